"""What every test shares: nothing a test writes reaches the user's own directories."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="session")
def _own_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """BM25 indexes built without --cache-dir go under $XDG_CACHE_HOME: a directory of
    this session's own, so that no index built by an earlier version of the code, kept in
    ~/.cache between CI runs, is reused, and no test writes into the home directory. The
    environment is set for the whole session, so the commands tests start inherit it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache-home")))
        yield
