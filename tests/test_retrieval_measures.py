"""Every measure equals trec_eval's (pytrec_eval called directly) on generated runs.

The generated runs have tied scores, queries missing from the run, queries unknown to the
gold, unjudged documents and graded relevance. The run goes through the whole reading
path (a TREC file, trec_eval's order, unique scores for the backends); the reference is
pytrec_eval.RelevanceEvaluator on the raw run, which orders ties as trec_eval does.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import pytrec_eval

from tests.retrieval_fixtures import write_trec_run
from tfce_eval.errors import UsageError
from tfce_eval.retrieval import parse_measures, read_run
from tfce_eval.retrieval.measures import Backend, compute_measures, pytrec_values

# ir-measures name -> (trec_eval measure, relevance level)
PYTREC = {
    "nDCG@5": ("ndcg_cut_5", 1),
    "nDCG@10": ("ndcg_cut_10", 1),
    "nDCG": ("ndcg", 1),
    "P@5": ("P_5", 1),
    "P(rel=2)@5": ("P_5", 2),
    "R@10": ("recall_10", 1),
    "R@100": ("recall_100", 1),
    "AP": ("map", 1),
    "AP@10": ("map_cut_10", 1),
    "Success@1": ("success_1", 1),
    "Success@5": ("success_5", 1),
    "RR": ("recip_rank", 1),
}
CUT_RR = {"RR@1": (1, 1), "RR@10": (10, 1), "RR(rel=2)@5": (5, 2)}
JUDGED = {"Judged@5": 5, "Judged@20": 20}


def _generate(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(60)]
    qrels: dict[str, dict[str, int]] = {}
    for q in range(40):
        judged = rng.sample(docs, rng.randint(1, 12))
        # Graded 0..3; some queries end up with no relevant document at all.
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 2, 3]) for d in judged}
    run: dict[str, dict[str, float]] = {}
    for q in range(45):  # q40..q44 are not in the gold
        if rng.random() < 0.15:
            continue  # a gold query missing from the run
        n = rng.randint(1, 40)
        # Few distinct scores: many ties, broken by document id.
        run[f"q{q}"] = {d: float(rng.randint(0, 6)) / 2 for d in rng.sample(docs, n)}
    return qrels, run


def _trec_order(docs: dict[str, float]) -> list[str]:
    return [d for d, _ in sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_value_equals_trec_eval(tmp_path: Path, seed: int) -> None:
    qrels, raw = _generate(seed)
    # Shuffle each query's lines so that the file order says nothing.
    rng = random.Random(seed)
    shuffled = {q: rng.sample(list(docs.items()), len(docs)) for q, docs in raw.items()}
    run = read_run(write_trec_run(tmp_path / "run.trec", shuffled))
    assert run.tied  # the generated run has ties
    gold = sorted(q for q, d in qrels.items() if any(r > 0 for r in d.values()))
    assert set(gold) - set(raw) and set(raw) - set(qrels)  # missing and unknown queries
    names = [*PYTREC, *CUT_RR, *JUDGED]
    ours = compute_measures(parse_measures(names), qrels, run.rankings, gold)

    reference: dict[str, dict[str, float]] = {}
    for level in (1, 2):
        wanted = {m for m, lv in PYTREC.values() if lv == level} | {"recip_rank"}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=level)
        result = evaluator.evaluate(raw)
        for name, (measure, lv) in PYTREC.items():
            if lv == level:
                reference[name] = {q: result.get(q, {}).get(measure, 0.0) for q in gold}
        for name, (k, lv) in CUT_RR.items():
            if lv == level:
                top = {q: dict(list(docs.items())) for q, docs in raw.items()}
                cut = {q: {d: top[q][d] for d in _trec_order(top[q])[:k]} for q in top}
                rr = pytrec_eval.RelevanceEvaluator(
                    qrels, {"recip_rank"}, relevance_level=level
                ).evaluate(cut)
                reference[name] = {q: rr.get(q, {}).get("recip_rank", 0.0) for q in gold}
    for name, k in JUDGED.items():
        values = {}
        for q in gold:
            top = _trec_order(raw[q])[:k] if q in raw else []
            values[q] = sum(d in qrels[q] for d in top) / min(k, len(top)) if top else 0.0
        reference[name] = values

    for name in names:
        canonical = str(parse_measures([name])[0].name)
        for q in gold:
            assert ours[canonical][q] == pytest.approx(reference[name][q], abs=1e-9), (name, q)
        mean_ours = sum(ours[canonical].values()) / len(gold)
        mean_ref = sum(reference[name].values()) / len(gold)
        assert mean_ours == pytest.approx(mean_ref, abs=1e-9), name
        assert set(ours[canonical]) == set(gold)
    # Some values are neither 0 nor 1, and RR@1 differs from RR: the test has teeth.
    assert any(0 < v < 1 for v in ours["nDCG@10"].values())
    assert ours["RR@1"] != ours["RR"]


def test_pytrec_eval_orders_ties_as_trec_eval() -> None:
    # The reference above relies on it: all four tied, trec_eval ranks c, b, ab, a.
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank", "P_1"})
    result = evaluator.evaluate({"q": {"a": 1.0, "ab": 1.0, "b": 1.0, "c": 1.0}})
    assert result["q"]["recip_rank"] == 0.25


def test_by_hand_with_ties(tmp_path: Path) -> None:
    # a, b, c tied: trec_eval ranks c, b, a; the relevant a is third.
    run = read_run(write_trec_run(tmp_path / "r.trec", {"q": [("a", 1), ("b", 1), ("c", 1)]}))
    values = compute_measures(
        parse_measures("RR RR@2 RR@3 Success@1 P@3 R@2 Judged@2"),
        {"q": {"a": 1, "b": 0}},
        run.rankings,
        ["q"],
    )
    assert {m: v["q"] for m, v in values.items()} == {
        "RR": pytest.approx(1 / 3),
        "RR@2": 0.0,
        "RR@3": pytest.approx(1 / 3),
        "Success@1": 0.0,
        "P@3": pytest.approx(1 / 3),
        "R@2": 0.0,
        "Judged@2": 0.5,  # c unjudged, b judged
    }


def test_the_documented_path_of_ir_measures_gives_the_same(tmp_path: Path) -> None:
    import ir_measures

    qrels, raw = _generate(7)
    run = read_run(
        write_trec_run(tmp_path / "r.trec", {q: list(d.items()) for q, d in raw.items()})
    )
    unique = {q: dict(zip(d, range(len(d), 0, -1), strict=True)) for q, d in run.rankings.items()}
    measures = [ir_measures.parse_measure(m) for m in ("nDCG@10", "P(rel=2)@5", "AP")]
    evaluator = ir_measures.providers.registry["pytrec_eval"].evaluator(measures, qrels)

    class Plain:  # an evaluator without the per-level invokers: iter_calc is used
        iter_calc = evaluator.iter_calc

    fast = sorted((q, str(m), v) for q, m, v in pytrec_values(evaluator, unique))
    slow = sorted((q, str(m), v) for q, m, v in pytrec_values(Plain(), unique))
    assert fast == slow and len(fast) == 3 * len(set(unique) & set(qrels))


def test_parse_measures() -> None:
    parsed = parse_measures(None)
    assert [m.name for m in parsed] == [
        "nDCG@10",
        "RR@10",
        "R@10",
        "R@100",
        "Success@1",
        "Success@5",
    ]
    assert [m.backend for m in parsed][:2] == [Backend.PYTREC, Backend.RR_CUT]
    assert [m.name for m in parse_measures("AP  nDCG@10 AP")] == ["AP", "nDCG@10"]
    assert parse_measures("Judged@10")[0].backend is Backend.JUDGED
    cov = parse_measures("SpanCov@5 SpanCov(rel=2)@10", spans=True)
    assert [(m.backend, m.cutoff, m.rel) for m in cov] == [
        (Backend.SPANCOV, 5, 1),
        (Backend.SPANCOV, 10, 2),
    ]
    with pytest.raises(UsageError, match="unknown measure 'nDGC@10'; known: nDCG@k"):
        parse_measures("nDGC@10")
    with pytest.raises(UsageError, match="SpanCov@5 needs gold given as spans"):
        parse_measures("SpanCov@5")
    with pytest.raises(UsageError, match="not computed by trec_eval"):
        parse_measures("ERR@10")
    with pytest.raises(UsageError, match="no measures given"):
        parse_measures("  ")
