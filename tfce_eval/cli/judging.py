"""`--judge` and its companions turned into a judge for open answers (or none)."""

from __future__ import annotations

from typing import Any

from tfce_eval.run.judge import ProviderJudge, judge_for


def make_judge(options: dict[str, Any], *, model_under_test: str | None) -> ProviderJudge | None:
    """The judge `--judge` names, refused when it is the model under test (unless allowed)."""
    name = options.get("judge")
    if not name:
        return None
    from tfce_eval.qa import check_judge

    if model_under_test:
        check_judge(model_under_test, name, allow_self_judge=bool(options.get("allow_self_judge")))
    return judge_for(name, options.get("judge_base_url"))
