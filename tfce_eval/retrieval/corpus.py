"""The whole corpus as three columns (ids, titles, texts), read fast for indexing.

Indexing needs every document's id, title and text and nothing else. pyarrow reads them
column by column (parquet directly, JSON Lines with its multi-threaded JSON reader), far
faster than one record at a time. A file pyarrow cannot read that way (a malformed line,
a missing or mistyped field, text that is not UTF-8) is read by the record reader
instead, which names the line and the fix.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from tfce_eval.errors import DataError
from tfce_eval.retrieval.layouts import DatasetFiles
from tfce_eval.retrieval.readers import CORPUS_FIELDS, iter_docs
from tfce_eval.retrieval.tables import Problems

Columns = tuple[list[str], list[str], list[str]]


def corpus_columns(files: DatasetFiles) -> Columns:
    """Ids, titles ("" when none) and texts of every document, in file order.

    DataError on a malformed row, and on an id that appears twice (a run would list it
    twice for one query).
    """
    ids: list[str] = []
    titles: list[str] = []
    texts: list[str] = []
    if not files.corpus:
        raise DataError(
            "no corpus files", path=str(files.root / files.corpus_name), hint="add the corpus"
        )
    for path in files.corpus:
        columns = _arrow_columns(path, files)
        if columns is None:
            columns = _record_columns(path, files)
        ids += columns[0]
        titles += columns[1]
        texts += columns[2]
    if len(set(ids)) != len(ids):
        seen: set[str] = set()
        twice = ""
        for docid in ids:
            if docid in seen:
                twice = docid
                break
            seen.add(docid)
        raise DataError(
            f"document id {twice!r} appears twice in the corpus",
            path=str(files.root / files.corpus_name),
            hint="give each document its own id (tfce-eval validate shows where)",
        )
    return ids, titles, texts


def _record_columns(path: Path, files: DatasetFiles) -> Columns:
    problems = Problems()
    one = dataclasses.replace(files, corpus=(path,))
    ids: list[str] = []
    titles: list[str] = []
    texts: list[str] = []
    for _, doc in iter_docs(one, problems):
        ids.append(doc.id)
        titles.append(doc.title)
        texts.append(doc.text)
    problems.raise_first()
    return ids, titles, texts


def _arrow_columns(path: Path, files: DatasetFiles) -> Columns | None:
    """The three columns by pyarrow; None when the file needs the record reader."""
    import pyarrow as pa
    import pyarrow.compute as pc

    id_names, text_names, _ = CORPUS_FIELDS[files.layout]
    try:
        table = _read_table(path, [*id_names, *text_names, "title"])
    except (pa.ArrowException, OSError, ValueError):
        return None
    if table is None:
        return None
    names = set(table.column_names)
    id_name = next((n for n in id_names if n in names), None)
    text_name = next((n for n in text_names if n in names), None)
    if id_name is None or text_name is None:
        return None
    id_col, text_col = table[id_name], table[text_name]
    if pa.types.is_integer(id_col.type):
        id_col = pc.cast(id_col, pa.string())
    if not _strings(id_col) or not _strings(text_col):
        return None
    if id_col.null_count or text_col.null_count:
        return None
    if "title" in names and not _strings(table["title"]):
        return None
    try:  # pyarrow takes bytes that are not UTF-8 in, and refuses them only here
        if "title" in names:
            titles = pc.fill_null(table["title"], "").to_pylist()
        else:
            titles = [""] * table.num_rows
        ids: list[str] = id_col.to_pylist()
        texts: list[str] = text_col.to_pylist()
    except UnicodeDecodeError:
        return None
    if any(not d.strip() for d in ids):
        return None
    return ids, titles, texts


def _strings(column: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(column.type) or pa.types.is_large_string(column.type))


def _read_table(path: Path, wanted: list[str]) -> Any:
    if path.name.endswith(".parquet"):
        import pyarrow.parquet as pq

        present = set(pq.ParquetFile(path).schema_arrow.names)
        return pq.read_table(path, columns=[c for c in wanted if c in present])
    if path.name.endswith(".jsonl"):
        import pyarrow.json as pj

        return pj.read_json(path, read_options=pj.ReadOptions(block_size=1 << 24))
    return None
