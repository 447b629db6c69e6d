"""The package's layering, kept true: folders are layers, imports point one way, no cycles.

Every import counts, at module level or inside a function; only imports under
`if TYPE_CHECKING:` are left out (they never run). docs/architecture.md draws the same
layers.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tfce_eval"

#: Lowest first. A module may import its own layer's modules and any lower layer's.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "tfce_eval",
        "tfce_eval.model",
        "tfce_eval.errors",
        "tfce_eval.jsonl",
        "tfce_eval.stats",
        "tfce_eval.words",
    ),
    ("tfce_eval.report.document", "tfce_eval.report.formats"),
    ("tfce_eval.schema",),
    ("tfce_eval.decode", "tfce_eval.check"),
    ("tfce_eval.dataset",),
    ("tfce_eval.exec",),
    ("tfce_eval.scoring",),
    ("tfce_eval.retrieval",),
    ("tfce_eval.qa",),
    ("tfce_eval.tasks",),
    ("tfce_eval.providers",),
    ("tfce_eval.run",),
    ("tfce_eval.report",),
    ("tfce_eval.verbs",),
    ("tfce_eval.cli", "tfce_eval.__main__"),
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, best_len = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    assert best >= 0, f"{module} belongs to no layer: add it to LAYERS"
    return best


def _type_checking_blocks(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                for inner in ast.walk(child):
                    skipped.add(id(inner))
    return skipped


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that `module` imports (resolving `from pkg import submodule`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_blocks(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("tfce_eval"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            if not base.startswith("tfce_eval"):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
    found.discard(module)
    return found


def graph() -> dict[str, set[str]]:
    modules = all_modules()
    known = set(modules)
    return {name: imports_of(name, path, known) & known for name, path in modules.items()}


def test_imports_point_down_the_layers() -> None:
    upward = []
    for module, targets in graph().items():
        for target in targets:
            # A package's __init__ is its public face; importing a package's own parent
            # package (for `__version__`) is the one sideways step allowed.
            if target == "tfce_eval":
                continue
            if layer_of(target) > layer_of(module):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports against the layering:\n" + "\n".join(sorted(upward))


def _module_level_imports(module: str, path: Path, known: set[str]) -> set[str]:
    """What importing `module` runs at once: its imports outside functions, classes and
    TYPE_CHECKING blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("tfce_eval"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            if base.startswith("tfce_eval"):
                found.update(
                    f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
                )
    return found & known


def test_a_package_init_runs_nothing_above_its_lowest_module() -> None:
    """Importing `pkg.mod` runs `pkg/__init__.py` first: what that imports at once must be
    no higher than the lowest layer of the package's own modules (report.document, low
    in the layers, lives in the report package)."""
    modules = all_modules()
    known = set(modules)
    upward = []
    for package, path in modules.items():
        if path.name != "__init__.py" or package == "tfce_eval":
            continue
        inside = [m for m in modules if m.startswith(package + ".")]
        if not inside:
            continue
        lowest = min(layer_of(m) for m in inside)
        for target in _module_level_imports(package, path, known):
            if target != "tfce_eval" and layer_of(target) > lowest:
                upward.append(f"{package}/__init__.py -> {target}")
    assert not upward, "package inits importing above their modules:\n" + "\n".join(upward)


def test_no_import_cycles() -> None:
    edges = graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_package_shape() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 8, f"more than 8 modules directly in tfce_eval/: {top}"
    assert "types.py" not in top
    long = []
    for path in PACKAGE.rglob("*.py"):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > 400:
            long.append(f"{path.relative_to(PACKAGE)}: {lines} lines")
    assert not long, "modules over ~400 lines:\n" + "\n".join(long)


def _help_output(argv: list[str], banned: str) -> str:
    """What `tfce-eval ARGV` prints, then `LOADED [...]`: the modules it imported that
    `banned` (an expression of the module's name `m`) picks out."""
    code = (
        "import sys\n"
        "from tfce_eval.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('LOADED', sorted(m for m in sys.modules if {banned}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


def test_help_imports_no_command() -> None:
    """`tfce-eval --help` lists the commands without importing them or their libraries."""
    out = _help_output(
        ["--help"],
        "m.split('.')[0] in ('rich', 'openai', 'anthropic', 'jsonschema', 'numpy', "
        "'pyarrow', 'bm25s') or m.startswith(('tfce_eval.cli.', 'tfce_eval.scoring', "
        "'tfce_eval.dataset'))",
    )
    assert "LOADED []" in out, out
    assert "retrieve" in out and "datasets" in out and "score" in out


#: What no command's `--help` needs: the SDKs, asyncio, the heavy libraries, and the
#: modules that do a command's work (they are imported when the command runs).
NOT_FOR_HELP = (
    "asyncio",
    "rich",
    "openai",
    "anthropic",
    "jsonschema",
    "pyarrow",
    "bm25s",
    "ir_measures",
    "ssl",
    "email",
    "tfce_eval.providers.registry",
    "tfce_eval.run",
    "tfce_eval.scoring.score",
    "tfce_eval.dataset.load",
    "tfce_eval.report",
    "tfce_eval.retrieval",
    "tfce_eval.qa",
    "tfce_eval.exec",
    "tfce_eval.tasks",
    "tfce_eval.jsonl",
)
#: Of those, what an option's choices and bounds come from: the report formats' closed
#: set and the prices' bound, each in a light module of its own, and the report
#: package's light `__init__` (its names are lazy).
HELP_CHOICES = ("tfce_eval.report", "tfce_eval.report.formats", "tfce_eval.report.prices")


@pytest.mark.parametrize(
    "command",
    ["run", "score", "report", "retrieve", "validate", "doctor", "call", "datasets"],
)
def test_a_commands_help_imports_only_its_options(command: str) -> None:
    """`tfce-eval COMMAND --help` imports the command's options, not what it runs."""
    out = _help_output(
        [command, "--help"],
        f"(m in {NOT_FOR_HELP!r} or m.startswith({tuple(b + '.' for b in NOT_FOR_HELP)!r}))"
        f" and m not in {HELP_CHOICES!r}",
    )
    assert "LOADED []" in out, out
    assert "Usage: " in out


def test_a_function_calling_score_loads_nothing_of_qa_or_retrieval(tmp_path: Path) -> None:
    """`score` of function-calling outputs imports neither the QA and retrieval packages
    nor pyarrow, bm25s or ir_measures: they cost a function-calling score a tenth of its
    time (a check for QA predictions once read a retrieval dataset's files for every score)."""
    outputs = PACKAGE.parent / "examples" / "outputs.jsonl"
    out = _help_output(
        ["score", str(outputs), "--out", str(tmp_path), "--json"],
        "m.split('.')[0] in ('pyarrow', 'bm25s', 'ir_measures', 'numpy') "
        "or m.startswith(('tfce_eval.qa', 'tfce_eval.retrieval'))",
    )
    assert out.rstrip().endswith("LOADED []"), out[-2000:]
