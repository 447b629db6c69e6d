"""The figures of one size, printed as a table with the verdicts and targets."""

from __future__ import annotations

from typing import Any

from benchlib import wrap

from .result import SizeResult

#: Why the checkers may disagree on a variant (make_synthetic.py's labels).
REASONS = {
    "float_for_int": "an integral float (30.0) for an integer: BFCL requires type int",
    "unicode_punct": "full-width comma or en dash in a string: BFCL's normalisation strips "
    "only ASCII ' ,./-_*^'",
    "explicit_default": "an optional parameter sent with its default value: BFCL forbids "
    "every parameter the ground truth does not list",
    "greedy_order": "parallel calls in an order BFCL's greedy matching cannot pair",
    "case_space": "string case or spacing",
    "int_for_float": "an int for a float",
    "reordered_calls": "parallel calls in another order, where one call satisfies two "
    "expected calls (a parameter at its default): BFCL's greedy matching gives it to the "
    "first and leaves the other unmatched",
}


def _row(name: str, seconds: float, best: float, count: int, rss: float | None) -> str:
    rate = count / seconds if seconds else float("inf")
    us = 1e6 * seconds / count if count else 0.0
    rss_s = f"{rss:6.0f}" if rss is not None else "     -"
    return f"  {name:<29} {count:>7,} {seconds:>8.3f} {best:>7.3f} {rate:>8,.0f} {us:>7.1f} {rss_s}"


def print_size(r: SizeResult, startup: dict[str, Any], *, show_startup: bool) -> None:
    cats = ", ".join(f"{c} {n:,}" for c, n in r.categories.items())
    print()
    print(wrap(f"{r.size:,} items ({cats}); {r.right:,} answers right by construction"))
    print("  score: `tfce-eval score` as a child process, start-up included")
    print(
        f"  {'what':<29} {'items':>7} {'median s':>8} {'best s':>7} {'items/s':>8}"
        f" {'us/item':>7} {'RSS MB':>6}"
    )
    for label, e in r.e2e.items():
        print(_row(f"score, {label}", e["median_s"], e["min_s"], r.size, e["peak_rss_mb"]))
    if show_startup:
        print(
            f"  {'  start-up (--version)':<29} {'':>7} "
            f"{startup['median_s']:>8.3f} {startup['min_s']:>7.3f}"
            f"  bare python {startup['python_bare_median_s']:.3f} s"
        )
    o = r.ours
    rows = [
        (
            "our checker, decoded answers",
            "check_decoded_s",
            o["decoded_cases"],
            o["child_peak_rss_mb"],
        ),
        ("our checker, all items", "check_all_s", o["items"], None),
        ("our decoder, all items", "decode_s", o["items"], None),
    ]
    for name, key, count, rss in rows:
        print(_row(name, o[f"median_{key}"], o[f"min_{key}"], count, rss))
    if r.bfcl is not None:
        b = r.bfcl
        print(
            _row(
                f"BFCL's checker {b['bfcl_eval_version']}",
                b["median_checker_s"],
                b["min_checker_s"],
                b["cases"],
                b["child_peak_rss_mb"],
            )
        )
        print(
            f"  {'  (BFCL import alone)':<29} {'':>7} {b['import_s']:>8.3f}"
            f"   RSS after import {b['peak_rss_mb_after_import']:.0f} MB"
        )
        if r.ratio is not None:
            print(
                wrap(
                    f"ratio ours/BFCL per case: {r.ratio['median']:.2f} on medians, "
                    f"{r.ratio['best']:.2f} on best passes (below 1: ours is faster)",
                    "  ",
                )
            )
        if r.by_category or r.by_answer:
            print(f"    {'per case':<18} {'cases':>7} {'ours us':>8} {'BFCL us':>8} {'ratio':>6}")
        for group, c in [*r.by_category.items(), *r.by_answer.items()]:
            print(
                f"    {group:<18} {c['cases']:>7,} {c['ours_us']:>8.1f} {c['bfcl_us']:>8.1f}"
                f" {c['ratio']:>6.2f}"
            )
    else:
        print(wrap(str(r.bfcl_skipped), "  "))
    if r.agreement is not None:
        a = r.agreement
        print()
        print(
            wrap(
                f"verdicts on the {a['cases']:,} cases both check: {a['agree']:,} agree, "
                f"{a['cases'] - a['agree']:,} differ (under a row that differs: BFCL's "
                "errors there)",
                "  ",
            )
        )
        print(
            f"  {'variant':<20} {'right?':>6} {'cases':>7} {'ours ok':>8} {'BFCL ok':>8}"
            f" {'differ':>7}"
        )
        from synthetic.answers import RIGHT_VARIANTS

        for variant, g in a["by_variant"].items():
            right = "yes" if variant in RIGHT_VARIANTS else "no"
            print(
                f"  {variant:<20} {right:>6} {g.get('cases', 0):>7,} "
                f"{g.get('ours_valid', 0):>8,} {g.get('bfcl_valid', 0):>8,} "
                f"{g.get('disagree', 0):>7,}"
            )
            errors = a["bfcl_error_types"].get(variant, {})
            if errors:
                listed = ", ".join(f"{k} {n:,}" for k, n in errors.items())
                print(wrap(f"BFCL: {listed}", " " * 6, " " * 8))
        for variant, g in a["by_variant"].items():
            if g.get("disagree") and variant in REASONS:
                examples = ", ".join(a["examples"].get(variant, []))
                print(wrap(f"{variant}: {REASONS[variant]} (e.g. {examples})", "    "))
    if r.decoding is not None:
        d = r.decoding
        shown = ", ".join(d["first_ids"])
        print(
            wrap(
                f"answers the decoder read into other calls than the generator wrote: "
                f"{d['differ']:,}" + (f" (e.g. {shown})" if d["differ"] else ""),
                "  ",
            )
        )
        shown = ", ".join(d["verdict_against_label_ids"])
        print(
            wrap(
                f"our verdicts against the generator's right/wrong labels, all items: "
                f"{d['verdict_against_label']:,}" + (f" (e.g. {shown})" if shown else ""),
                "  ",
            )
        )
    if r.checks:
        print()
        for line in r.checks:
            print(wrap(line, "  ", " " * 9))
