"""What a worker's answer to `resolve` becomes in the harness: one of three statuses."""

from __future__ import annotations

import json

import pytest

from tfce_eval.exec.executor import _resolution
from tfce_eval.exec.names import Resolution
from tfce_eval.exec.pool import Reply


@pytest.mark.parametrize("status", list(Resolution))
def test_each_status_a_worker_sends_as_text_is_read_back(status: Resolution) -> None:
    sent = json.loads(json.dumps({"status": status, "message": "why"}))
    assert sent == {"status": str(status), "message": "why"}
    assert _resolution(Reply(True, sent)) == (status, "why")
    assert _resolution(Reply(True, sent))[0] is status


def test_a_reply_without_a_status_is_missing() -> None:
    assert _resolution(Reply(True, {})) == (Resolution.MISSING, "")


def test_a_failed_or_unknown_reply_is_broken() -> None:
    assert _resolution(Reply(False, error="worker died")) == (Resolution.BROKEN, "worker died")
    assert _resolution(Reply(False)) == (Resolution.BROKEN, "cannot be looked up")
    assert _resolution(Reply(True, {"status": "maybe"})) == (
        Resolution.BROKEN,
        "the worker answered 'maybe'",
    )
