"""Lists of ids, files and values read the same in every message."""

from __future__ import annotations

from tfce_eval.words import listed


def test_a_list_names_the_first_five_then_counts_the_rest() -> None:
    ids = [f"s_{i}" for i in range(12)]
    assert listed(ids[:1]) == "s_0"
    assert listed(ids[:2]) == "s_0, s_1"
    assert listed(ids[:5]) == "s_0, s_1, s_2, s_3, s_4"
    assert listed(ids) == "s_0, s_1, s_2, s_3, s_4 and 7 more"
    assert listed(ids, 3) == "s_0, s_1, s_2 and 9 more"
    # Names that hold commas are parted by semicolons, the count too.
    places = ["a in x.json, line 3", "b in y.json, line 1", "c in x.json, line 9"]
    assert listed(places, 2) == "a in x.json, line 3; b in y.json, line 1; and 1 more"


def test_article_is_the_one_said() -> None:
    from tfce_eval.words import article

    said = {w: article(w) for w in ("fc", "qa", "retrieval", "item", "mc", "tf", "open")}
    assert said == {
        "fc": "an fc",
        "qa": "a qa",
        "retrieval": "a retrieval",
        "item": "an item",
        "mc": "an mc",
        "tf": "a tf",
        "open": "an open",
    }
