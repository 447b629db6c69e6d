"""Reading a retrieval run in any form of docs/retrieval.md, detected from the file's content.

TREC runs (`qid Q0 docid rank score tag`) are parsed by pyarrow's CSV reader when the
columns are separated by single spaces or tabs (a million lines in a fraction of a
second); any other whitespace falls back to a Python reader, which also names the line
of any malformed entry. The JSON forms are read line by line. Every form ends in
`ranking.order_run`, which fixes trec_eval's order and makes the checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfce_eval.errors import DataError
from tfce_eval.jsonl import JsonLimits, JsonRefused, parse_json, read_json
from tfce_eval.model import parse_choice
from tfce_eval.retrieval.columns import RunColumns, entry_lines, origin_lines
from tfce_eval.retrieval.ranking import Run, RunForm
from tfce_eval.retrieval.records import Origin
from tfce_eval.retrieval.runobject import finite_score, object_columns
from tfce_eval.retrieval.tables import Problems, iter_rows
from tfce_eval.retrieval.textfiles import CR_FIX, CR_NOTE, cr_note, line_text, not_utf8
from tfce_eval.scoring.rundir import RUN_JSON, file_sha256
from tfce_eval.words import counted

if TYPE_CHECKING:
    from tfce_eval.retrieval.dataset import RetrievalDataset

_TREC = "qid Q0 docid rank score tag"
_TREC_COLUMNS = ["qid", "q0", "docid", "rank", "score", "tag"]


def detect_run_form(path: str | Path) -> RunForm:
    """The form of a run file, from its first line; DataError when none fits."""
    file = Path(path)
    if file.name.endswith(".parquet"):
        return RunForm.ROWS
    first = _first_line(file)
    if first is None:
        raise DataError(
            "the run is empty", path=str(file), hint=f"write one `{_TREC}` line per document"
        )
    if first.startswith(("{", "[")):
        try:
            record = parse_json(first.encode("utf-8"))
        except JsonRefused as exc:
            if exc.syntax:
                return RunForm.OBJECT  # a JSON document over several lines
            raise exc.error(file) from None  # a limit: too deep, or a huge integer
        if isinstance(record, dict):
            if "docids" in record:
                return RunForm.RANKED
            if "corpus_id" in record:
                return RunForm.ROWS
            return RunForm.OBJECT
    columns = len(first.split())
    if columns == 6:
        return RunForm.TREC
    what = "cannot tell the form of this run"
    hint = (
        f"write a TREC run (`{_TREC}`), JSON Lines {{query_id, corpus_id, rank, "
        'retrieval_score} or {"qid", "docids"}, or one JSON object {qid: {docid: score}}'
    )
    if not first.startswith(("{", "[")):
        what += f": {counted(columns, 'column')}, a TREC run has 6"
        if "\r" in first:
            what, hint = what + CR_NOTE, CR_FIX
    raise DataError(what, path=str(file), line=1, hint=hint)


def _first_line(path: Path) -> str | None:
    number = 0  # the line being read, for the error
    try:
        with path.open("rb") as fh:
            for raw in fh:
                number += 1
                if raw.strip():
                    return line_text(raw, number).strip()
    except OSError as exc:
        raise DataError(f"cannot read the run: {exc.strerror}", path=str(path)) from None
    except UnicodeDecodeError as exc:
        raise DataError(
            f"not UTF-8 (byte {exc.start + 1} of the line)",
            path=str(path),
            line=number,
            hint="save the run as UTF-8",
        ) from None
    return None


def read_run(
    path: str | Path,
    *,
    name: str | None = None,
    form: RunForm | None = None,
    scores: bool = False,
) -> Run:
    """Read a run file in any form, in trec_eval's order; DataError naming the line. With
    `scores`, the run also keeps the scores as the file gives them (`Run.scores`)."""
    file = Path(path)
    if not file.is_file():
        raise DataError("no such run file", path=str(file), hint="give the path of a run file")
    if not file.name.endswith(".parquet") and _first_line(file) is None:
        empty = _written_empty(file, name)
        if empty is not None:
            return empty
    kind = detect_run_form(file) if form is None else parse_choice(RunForm, form, "form")
    columns = _READERS[kind](file)
    return columns.finish(name or file.name, str(file), kind, scores=scores)


def described(run: Run) -> dict[str, Any]:
    """What a summary records of a run: with the SHA-256 of its file, so that a report
    shows its rankings only while the file is still the one scored."""
    out = run.describe()
    path = out.get("path")
    if path and Path(path).is_file():
        out["sha256"] = file_sha256(Path(path))
    return out


#: run.json is a few kilobytes; anything far larger is not `retrieve`'s.
_META_LIMITS = JsonLimits(max_bytes=1 << 20)


def _written_empty(file: Path, name: str | None) -> Run | None:
    """An empty run that `retrieve` wrote (no query shares a word with the corpus), as a
    run of no documents: its run.json beside it names the file and says that no query
    found one. None for any other empty file, which read_run refuses."""
    meta_path = file.with_name(RUN_JSON)
    if meta_path == file or not meta_path.is_file():
        return None
    try:
        meta = read_json(meta_path, limits=_META_LIMITS)
    except DataError:
        return None
    if (
        not isinstance(meta, dict)
        or meta.get("run") != file.name
        or meta.get("answered") != 0
        or meta.get("entries", 0) != 0
        or not isinstance(meta.get("queries"), int)
    ):
        return None
    note = (
        "the run is empty: retrieve found no document for any query "
        f"({counted(meta['queries'], 'query', 'queries')} asked; {RUN_JSON} beside it "
        "says so); every judged query scores 0",
        "no query shares a word with the corpus: check that the run was made from "
        "this dataset's queries and corpus",
    )
    return Run(name or file.name, str(file), RunForm.TREC, {}, 0, notes=(note,))


def dataset_run(dataset: RetrievalDataset) -> Run:
    """The dataset's own retrieved_docs for its split, as a run."""
    files = dataset.files.retrieved_docs
    if not files:
        raise DataError(
            f"the dataset has no retrieved_docs for split {dataset.split!r}",
            path=str(dataset.root),
            hint="give a run file instead",
        )
    parts = [_row_columns(p) for p in files]
    merged = RunColumns.merge(parts)
    return merged.finish(
        f"{dataset.name} retrieved_docs", ", ".join(map(str, files)), RunForm.DATASET
    )


def _trec_columns(path: Path) -> RunColumns:
    fast = _trec_arrow(path)
    return fast if fast is not None else _trec_python(path)


def _trec_arrow(path: Path) -> RunColumns | None:
    """pyarrow's CSV reader on single-space (or tab) separated runs; None to fall back."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    first = _first_line(path) or ""
    delimiter = "\t" if "\t" in first and " " not in first else " "
    try:
        table = pcsv.read_csv(
            path,
            read_options=pcsv.ReadOptions(column_names=_TREC_COLUMNS, block_size=1 << 22),
            parse_options=pcsv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=True,
            ),
            convert_options=pcsv.ConvertOptions(
                column_types={
                    "qid": pa.string(),
                    "docid": pa.string(),
                    "rank": pa.int64(),
                    "score": pa.float64(),
                },
                null_values=[],
                strings_can_be_null=False,
                include_columns=["qid", "docid", "rank", "score"],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None  # the Python reader finds and names the bad line
    scores = table["score"].to_numpy()
    ranks = table["rank"].to_numpy()
    arrow = (table["qid"], table["docid"], scores, ranks)
    return RunColumns([], [], [], None, entry_lines(path), str(path), arrow)


def _trec_python(path: Path) -> RunColumns:
    """Any whitespace between the columns; DataError naming a malformed line."""
    name = str(path)
    qids: list[str] = []
    docids: list[str] = []
    rank_text: list[str] = []
    score_text: list[str] = []
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            try:
                parts = line_text(raw, number).split()
            except UnicodeDecodeError as exc:
                raise DataError(
                    not_utf8(exc), path=name, line=number, hint="save the run as UTF-8"
                ) from None
            if not parts:
                continue
            if len(parts) != 6:
                cr = cr_note(raw)
                raise DataError(
                    f"{counted(len(parts), 'column')}, expected 6: {_TREC}{cr}",
                    path=name,
                    line=number,
                    hint=CR_FIX if cr else f"write `{_TREC}` on every line",
                )
            qids.append(parts[0])
            docids.append(parts[2])
            rank_text.append(parts[3])
            score_text.append(parts[4])
    where = entry_lines(path)
    scores: list[float] = []
    for i, text in enumerate(score_text):
        try:
            scores.append(float(text))
        except ValueError:
            raise DataError(
                f"score {text!r} is not a number",
                path=name,
                line=where(i)[1],
                hint=f"the fifth column is the score: {_TREC}",
            ) from None
    columns = RunColumns(qids, docids, scores, None, where, name)
    try:
        columns.ranks = [int(t) for t in rank_text]
    except ValueError:
        columns.notes.append(
            (
                "the rank column is not all integers and is ignored, as trec_eval ignores it",
                "write the ranks as integers, or drop the rank column",
            )
        )
    return columns


def _row_columns(path: Path) -> RunColumns:
    """retrieved_docs rows {query_id, corpus_id, rank, retrieval_score} (JSONL, parquet)."""
    problems = Problems()
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    ranks: list[int] | None = []
    origins: list[Origin] = []
    for origin, record in _rows(path, problems):
        qid, docid = record.get("query_id"), record.get("corpus_id")
        score = record.get("retrieval_score", record.get("score"))
        rank = record.get("rank")
        hint = "each row needs query_id, corpus_id and retrieval_score (and rank)"
        if not isinstance(qid, str | int) or not isinstance(docid, str | int):
            problems.at(origin, "missing or non-string query_id or corpus_id", hint)
        elif not isinstance(score, int | float) or isinstance(score, bool):
            problems.at(origin, "missing or non-numeric retrieval_score", hint)
        elif finite_score(score) is None:
            problems.at(origin, "retrieval_score is not a finite number", hint)
        else:
            qids.append(str(qid))
            docids.append(str(docid))
            scores.append(float(score))
            origins.append(origin)
            if ranks is not None and isinstance(rank, int) and not isinstance(rank, bool):
                ranks.append(rank)
            else:
                ranks = None
        problems.raise_first()
    problems.raise_first()
    return RunColumns(qids, docids, scores, ranks, origin_lines(origins), str(path))


def _rows(path: Path, problems: Problems) -> Iterator[tuple[Origin, dict[str, Any]]]:
    columns = ("query_id", "corpus_id", "rank", "retrieval_score", "score")
    for origin, record in iter_rows(path, problems, columns):
        problems.raise_first()
        yield origin, record
    problems.raise_first()


def _ranked_columns(path: Path) -> RunColumns:
    """Ranked lists {"qid": ..., "docids": [...]}: score = n - rank, rank from 1."""
    problems = Problems()
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    origins: list[Origin] = []
    seen: dict[str, Origin] = {}  # where each query's list is
    for origin, record in _rows(path, problems):
        qid, ids = record.get("qid"), record.get("docids")
        if (
            not isinstance(qid, str | int)
            or not isinstance(ids, list)
            or not all(isinstance(d, str | int) for d in ids)
        ):
            raise DataError(
                'expected {"qid": "...", "docids": ["...", ...]}',
                path=str(path),
                line=origin.line,
                hint="give each line a query id and its document ids, best first",
            )
        if str(qid) in seen:
            # Merged, its two lists' scores n - rank would tie and be ordered by id.
            at, line = origin.place()
            raise DataError(
                f"query {str(qid)!r} has a second list (the first at "
                f"{seen[str(qid)].where(str(path))}): one of its rankings would be lost",
                path=at,
                line=line,
                hint="give each query one line with all its documents, best first",
            )
        seen[str(qid)] = origin
        n = len(ids)
        for rank, docid in enumerate(ids, 1):
            qids.append(str(qid))
            docids.append(str(docid))
            scores.append(float(n - rank))
            origins.append(origin)
    return RunColumns(qids, docids, scores, None, origin_lines(origins), str(path))


_READERS: dict[RunForm, Callable[[Path], RunColumns]] = {
    RunForm.TREC: _trec_columns,
    RunForm.ROWS: _row_columns,
    RunForm.DATASET: _row_columns,
    RunForm.RANKED: _ranked_columns,
    RunForm.OBJECT: object_columns,
}
