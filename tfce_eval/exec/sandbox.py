"""What keeps a dataset's functions from reaching past their worker process.

A worker is a fresh interpreter (never a fork of the harness) started in a session of its
own, with a minimal environment: no API key or other secret of the harness's environment
reaches a function. Inside it:

- the address-space limit (RLIMIT_AS) is set hard as well as soft, so a function cannot
  raise it again, and core dumps are off;
- the worker is a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): a process that a
  function starts stays below the worker even when its parent exits or it calls `setsid`,
  so every descendant can be found by walking parent links in /proc, without cgroups;
- stray descendants are killed after every call, and the harness kills the whole tree
  (descendants stopped first, so none can fork while the tree is walked) when it stops a
  worker.

On a system without /proc, the worker's process group (the session it leads) is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path

#: Environment variables a worker gets from the harness, when they are set. Nothing else:
#: API keys, tokens and the like never reach a function.
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")
#: `prctl` option numbers (linux/prctl.h).
_PR_SET_CHILD_SUBREAPER = 36
#: How many rounds of stopping newly found descendants before they are all killed.
_MAX_ROUNDS = 100


def worker_env(source: Mapping[str, str], package_root: Path) -> dict[str, str]:
    """The whole environment of a worker process: a few harmless variables, and a Python
    path on which `tfce_eval` itself is found (after anything the harness's path names)."""
    env = {k: source[k] for k in PASSED_ENV if k in source}
    env.setdefault("PATH", "/usr/bin:/bin")
    paths = [p for p in source.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([*paths, str(package_root)])
    env["PYTHONSAFEPATH"] = "1"  # the current directory never shadows a module
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ in the dataset's directory
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def _libc_prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes  # lazily: only workers on Linux need it

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); False elsewhere."""
    return _libc_prctl(_PR_SET_CHILD_SUBREAPER, 1)


def limit_resources(memory_mb: int) -> None:
    """Address space limited to `memory_mb` (soft and hard); no core files."""
    try:
        import resource  # lazily: not on every platform
    except ImportError:
        return
    limit = memory_mb * 1024 * 1024
    with contextlib.suppress(ValueError, OSError):
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _parents() -> dict[int, int] | None:
    """pid -> parent pid for every process, from /proc; None without /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    parents: dict[int, int] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may hold anything: read after the last `)`.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 2:
            parents[int(entry)] = int(fields[1])
    return parents


def descendants(pid: int) -> list[int] | None:
    """Every process below `pid`; None when the system has no /proc to ask."""
    parents = _parents()
    if parents is None:
        return None
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def kill_descendants(pid: int) -> None:
    """Kill every process below `pid`. Each is stopped as it is found (a stopped process
    cannot fork), until a walk finds no new one; then all are killed at once."""
    stopped: set[int] = set()
    for _ in range(_MAX_ROUNDS):
        found = descendants(pid)
        if found is None:
            break
        new = [p for p in found if p not in stopped]
        if not new:
            break
        for child in new:
            _signal(child, signal.SIGSTOP)
        stopped.update(new)
    for child in stopped:
        _signal(child, signal.SIGKILL)


def has_children() -> bool:
    """True when this process has a child (alive or not yet reaped); cheap on Linux."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return True  # cannot tell: let the caller look the slow way
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children", "rb") as fh:
                if fh.read().strip():
                    return True
        except OSError:
            return True
    return False


def reap_children() -> None:
    """Collect the exit status of finished children, so they do not linger as zombies."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_tree(pid: int) -> None:
    """Stop `pid` (a worker), kill everything below it, then it and its process group."""
    _signal(pid, signal.SIGSTOP)
    kill_descendants(pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)  # the worker leads its own session and group
    _signal(pid, signal.SIGKILL)
