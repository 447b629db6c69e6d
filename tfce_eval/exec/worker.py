"""The worker side of exec checking: imports a functions directory and runs calls on request.

`main` is the entry point of a worker process: a fresh interpreter that
`tfce_eval.exec.pool` starts (`pool.BOOT`) in a session of its own with a minimal
environment; `tfce_eval.exec.sandbox` says what limits it. The harness's own process never
imports this module and never runs a dataset function itself.

The functions directory is imported as a package from its path under a private name chosen by
the harness, so `units.dbm_to_watts` means `<dir>/units.py` and never a module found on
`sys.path` (a doc named `math.db_to_linear` cannot reach the standard library). A module is
located before it is imported: one whose file (or a parent package) resolves outside the
directory, through a symbolic link for example, is refused without running any of it.
Requests and replies are JSON documents, so only JSON-like data crosses the pipe in either
direction, and a result is capped (`MAX_RESULT_BYTES` of JSON).

Requests: `{"op": "resolve" | "call" | "signature", "name": ..., "arguments": {...}}`.
Replies: `{"ok": true, "value": ...}` or `{"ok": false, "error": "...", "cacheable": bool,
"restart": bool}`; `restart` asks the harness to replace this worker (it exits after replying).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from types import ModuleType
from typing import Any

from tfce_eval.exec.names import Resolution, check_name
from tfce_eval.exec.results import MAX_RESULT_BYTES, ResultTooLarge, size_error, to_json_like
from tfce_eval.exec.sandbox import (
    become_subreaper,
    has_children,
    kill_descendants,
    limit_resources,
    reap_children,
)

#: Exception messages are cut to this many characters.
MAX_MESSAGE_CHARS = 500


def describe_exception(exc: BaseException) -> str:
    """`ValueError: message`, cut to a readable length; never raises."""
    try:
        message = str(exc)
    except Exception:  # a hostile __str__ must not break the report
        message = ""
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return text


def _where(exc: BaseException, directory: Path) -> str:
    """` (at core.py:12)`: the innermost line inside `directory` that the exception passed."""
    found = ""
    tb = exc.__traceback__
    root = directory.resolve()
    while tb is not None:
        path = Path(tb.tb_frame.f_code.co_filename)
        if path.is_absolute() and path.resolve().is_relative_to(root):
            found = f" (at {path.resolve().relative_to(root)}:{tb.tb_lineno})"
        tb = tb.tb_next
    return found


def _error(message: str, *, cacheable: bool = True, restart: bool = False) -> dict[str, Any]:
    return {"ok": False, "error": message, "cacheable": cacheable, "restart": restart}


class FunctionsPackage:
    """A functions directory imported as a package under a private name, in this process."""

    def __init__(self, directory: Path, package: str, memory_mb: int = 0) -> None:
        self.directory = directory.resolve()
        self.package = package
        self.memory_mb = memory_mb
        self.module = self._import()

    def _import(self) -> ModuleType:
        init = self.directory / "__init__.py"
        if init.is_file() and not init.resolve().is_relative_to(self.directory):
            raise ImportError("its __init__.py is a link to a file outside the directory")
        locations = [str(self.directory)]
        spec: importlib.machinery.ModuleSpec | None
        if init.is_file():
            spec = importlib.util.spec_from_file_location(
                self.package, init, submodule_search_locations=locations
            )
        else:
            # A directory without __init__.py still serves its modules by dotted name.
            spec = importlib.machinery.ModuleSpec(self.package, None, is_package=True)
            spec.submodule_search_locations = locations
        if spec is None:
            raise ImportError(f"cannot import {self.directory} as a package")
        module = importlib.util.module_from_spec(spec)
        sys.modules[self.package] = module
        if spec.loader is not None:
            spec.loader.exec_module(module)
        return module

    def _inside(self, module: ModuleType) -> bool:
        file = getattr(module, "__file__", None)
        places = [file] if file else list(getattr(module, "__path__", []))
        return bool(places) and all(
            Path(p).resolve().is_relative_to(self.directory) for p in places
        )

    def _locate(self, parts: Sequence[str]) -> tuple[Resolution, str] | None:
        """(status, message) when the module `parts` names may not be imported: it is not in
        the directory, or its file (or a parent package) lies outside it. Nothing is run."""
        locations: list[str] | None = [str(self.directory)]
        for i in range(len(parts)):
            dotted = ".".join(parts[: i + 1])
            if locations is None:
                return Resolution.MISSING, f"there is no module {dotted} in the functions directory"
            spec = importlib.machinery.PathFinder.find_spec(f"{self.package}.{dotted}", locations)
            if spec is None:
                return Resolution.MISSING, f"there is no module {dotted} in the functions directory"
            places = list(spec.submodule_search_locations or [])
            if spec.origin and spec.has_location:
                places.append(spec.origin)
            if not places or not all(
                Path(p).resolve().is_relative_to(self.directory) for p in places
            ):
                return Resolution.MISSING, f"module {dotted} is outside the functions directory"
            locations = list(spec.submodule_search_locations or []) or None
        return None

    def _owns(self, func: Callable[..., Any]) -> bool:
        origin = getattr(func, "__module__", None) or ""
        return origin == self.package or origin.startswith(self.package + ".")

    def resolve(self, name: str) -> tuple[Resolution, str, Callable[..., Any] | None]:
        """(status, message, function); the function only when the status is OK."""
        problem = check_name(name)
        if problem is not None:
            return Resolution.MISSING, problem, None
        *path, attr = name.split(".")
        module = self.module
        if path:
            dotted = ".".join(path)
            full = f"{self.package}.{dotted}"
            refused = self._locate(path)
            if refused is not None:
                return refused[0], refused[1], None
            try:
                module = importlib.import_module(full)
            except ModuleNotFoundError as exc:
                # Missing only when the module we asked for (or a parent) is what is absent;
                # a module that exists but imports something absent is broken.
                absent = exc.name or ""
                if absent.startswith(self.package + ".") and (full + ".").startswith(absent + "."):
                    return (
                        Resolution.MISSING,
                        f"there is no module {dotted} in the functions directory",
                        None,
                    )
                return (
                    Resolution.BROKEN,
                    f"module {dotted} cannot be imported: {describe_exception(exc)}",
                    None,
                )
            except BaseException as exc:  # SystemExit or worse at import: the module's fault
                return (
                    Resolution.BROKEN,
                    f"module {dotted} cannot be imported: {describe_exception(exc)}",
                    None,
                )
            if not self._inside(module):
                return (
                    Resolution.MISSING,
                    f"module {dotted} is outside the functions directory",
                    None,
                )
        where = f"module {'.'.join(path)}" if path else "the functions package"
        obj = vars(module).get(attr)
        if obj is None:
            return Resolution.MISSING, f"{name} is not defined in {where}", None
        if not inspect.isfunction(obj):
            return Resolution.MISSING, f"{name} is not a function", None
        if not self._owns(obj):
            return Resolution.MISSING, f"{name} is not defined in the functions directory", None
        return Resolution.OK, "", obj

    def call(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        status, message, func = self.resolve(name)
        if func is None:
            if status is Resolution.MISSING:
                return _error(f"is not implemented: {message}")
            return _error(f"cannot be run: {message}")
        kwargs = _drop_nulls(func, arguments)
        failure: str | None = None
        restart = False
        try:
            value = func(**kwargs)
        except MemoryError:
            limit = f" (limit {self.memory_mb} MB)" if self.memory_mb else ""
            failure, restart = f"ran out of memory{limit}", True
        except BaseException as exc:  # the call's own failure is its result
            failure = f"raised {describe_exception(exc)}"
        # Reported outside the except blocks, so the failed call's frames (and whatever
        # memory they hold) are released before the reply is built.
        if failure is not None:
            return _error(failure, cacheable=not restart, restart=restart)
        try:
            return {"ok": True, "value": to_json_like(value)}
        except ResultTooLarge as exc:
            return _error(str(exc))
        except (TypeError, ValueError, RecursionError) as exc:
            return _error(f"returned a result that is not JSON-like: {exc}")

    def signature(self, name: str) -> dict[str, Any]:
        _, message, func = self.resolve(name)
        if func is None:
            return _error(message)
        try:
            sig = inspect.signature(func)
        except (TypeError, ValueError) as exc:
            return _error(f"has no readable signature: {exc}")
        params: list[dict[str, Any]] = []
        for param in sig.parameters.values():
            entry: dict[str, Any] = {
                "name": param.name,
                "kind": param.kind.name,
                "required": param.default is inspect.Parameter.empty,
            }
            if param.default is not inspect.Parameter.empty:
                try:
                    entry["default"] = to_json_like(param.default)
                except (TypeError, ValueError):
                    entry["default_repr"] = repr(param.default)[:200]
            params.append(entry)
        source = inspect.getsourcefile(func) or ""
        with contextlib.suppress(ValueError):
            source = str(Path(source).resolve().relative_to(self.directory))
        line = getattr(getattr(func, "__code__", None), "co_firstlineno", 0)
        return {"ok": True, "value": {"params": params, "file": source, "line": line}}

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        op, name = request.get("op"), request.get("name")
        if not isinstance(name, str):
            return _error("the request names no function")
        if op == "resolve":
            status, message, _ = self.resolve(name)
            return {"ok": True, "value": {"status": status, "message": message}}
        if op == "call":
            arguments = request.get("arguments")
            if not isinstance(arguments, dict):
                return _error("the arguments are not an object")
            return self.call(name, arguments)
        if op == "signature":
            return self.signature(name)
        return _error(f"unknown request {op!r}")


def _drop_nulls(func: Callable[..., Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Null for a parameter that has a default means "not given" (docs/checking.md 5.2.5), so
    leave it out."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return dict(arguments)
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        param = params.get(key)
        if value is None and param is not None and param.default is not inspect.Parameter.empty:
            continue
        out[key] = value
    return out


def _encode(reply: Mapping[str, Any]) -> bytes:
    try:
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8", "backslashreplace")
    except (TypeError, ValueError, RecursionError, MemoryError) as exc:
        restart = isinstance(exc, MemoryError)
        fallback = _error(f"returned a result that cannot be encoded: {exc}", restart=restart)
        return json.dumps(fallback, ensure_ascii=False).encode("utf-8")
    if len(data) > MAX_RESULT_BYTES + 4096:
        return json.dumps(_error(str(size_error()))).encode("utf-8")
    return data


def _silence_standard_streams() -> None:
    # At the descriptor level, so neither print() nor C code nor a child process can write to
    # the harness's terminal or read its stdin.
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        null = os.open(os.devnull, mode)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)


def _exit_with_the_harness(lifeline: int) -> None:
    # The harness holds the only write end of this pipe: end-of-file means it is gone, and a
    # call stuck in a loop would otherwise run on with nobody to read its answer.
    with contextlib.suppress(OSError):
        while os.read(lifeline, 1):
            pass
    kill_descendants(os.getpid())
    os._exit(1)


def _clean_up_children() -> None:
    """Kill whatever a call left running (a function's own subprocesses included)."""
    if has_children():
        kill_descendants(os.getpid())
        reap_children()


def main(argv: Sequence[str]) -> None:
    """Entry point of a worker process: import the directory, then answer requests until EOF."""
    conn_fd, lifeline, functions_dir, package, memory_mb = argv
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness handles Ctrl-C and kills us
    _silence_standard_streams()
    sys.dont_write_bytecode = True  # leave no __pycache__ in the dataset's directory
    become_subreaper()
    threading.Thread(target=_exit_with_the_harness, args=(int(lifeline),), daemon=True).start()
    limit_resources(int(memory_mb))
    conn = Connection(int(conn_fd))
    try:
        functions = FunctionsPackage(Path(functions_dir), package, int(memory_mb))
    except BaseException as exc:  # any failure of the directory is reported, not raised
        where = _where(exc, Path(functions_dir))
        message = f"the functions package cannot be imported: {describe_exception(exc)}{where}"
        conn.send_bytes(_encode(_error(message)))
        return
    _clean_up_children()
    conn.send_bytes(_encode({"ok": True}))
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            request = json.loads(data)
        except ValueError:
            request = {}
        reply = functions.handle(request if isinstance(request, dict) else {})
        _clean_up_children()
        conn.send_bytes(_encode(reply))
        if reply.get("restart"):
            return
