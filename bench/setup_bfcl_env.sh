#!/usr/bin/env bash
# Create bench/.venv-bfcl, a virtual environment of its own holding BFCL's `bfcl-eval`
# package, so that bench/bfcl_reference.py can import and call BFCL's AST checker.
# Nothing is installed into the project's own environment.
#
# bfcl-eval pins heavy dependencies (numpy 1.26.4, sentence-transformers -> torch, faiss,
# google-genai, ...). A CPU build of torch is installed first so that sentence-transformers
# does not pull a CUDA build. If the full install fails, the script falls back to
# `bfcl-eval --no-deps` plus the packages that importing the AST checker needs (its module
# imports BFCL's model table, which imports every provider SDK).
#
# Usage: bash bench/setup_bfcl_env.sh [--minimal] [--force]
#   --minimal  skip the full install and go straight to the fallback
#   --force    delete an existing bench/.venv-bfcl first
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv-bfcl"
python="${PYTHON:-python3}"
torch_version="${BFCL_TORCH_VERSION:-2.13.0}"
minimal=0
force=0
for arg in "$@"; do
    case "$arg" in
        --minimal) minimal=1 ;;
        --force) force=1 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "unknown option: $arg (try --help)" >&2; exit 2 ;;
    esac
done

if [[ $force -eq 1 && -d "$venv" ]]; then
    rm -rf "$venv"
fi
if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --quiet)

# qwen-agent (a bfcl-eval dependency) imports soundfile without declaring it.
undeclared_deps=("soundfile")
# What importing bfcl_eval.eval_checker.ast_eval.ast_checker needs when bfcl-eval is installed
# without its dependencies.
fallback_deps=(
    "numpy==1.26.4" "tree_sitter==0.21.3" "tree-sitter-java==0.21.0"
    "tree-sitter-javascript==0.21.4" "openai>=1.86.0" "mistralai==1.7.0" "anthropic>=0.75.0"
    "cohere==5.18.0" "google-genai>=1.52.0" "writer-sdk>=2.1.0" "qwen-agent" "boto3"
    "pydantic>=2.8.2" "python-dotenv>=1.0.1" "requests" "tqdm" "pandas" "huggingface_hub"
    "tenacity>=8.5.0" "overrides" "typer>=0.12.5" "tabulate>=0.9.0" "filelock==3.20.0"
    "mpmath==1.3.0" "networkx==3.3"
)

check_import() {
    "$venv/bin/python" -c \
        'from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker' 2>/dev/null
}

installed=0
if [[ $minimal -eq 0 ]]; then
    echo "installing torch==$torch_version (CPU) and bfcl-eval with all its dependencies..."
    if "${pip[@]}" "torch==$torch_version" && "${pip[@]}" bfcl-eval "${undeclared_deps[@]}" \
            && check_import; then
        installed=1
    else
        echo "the full install failed; falling back to bfcl-eval --no-deps" >&2
    fi
fi
if [[ $installed -eq 0 ]]; then
    "${pip[@]}" --no-deps bfcl-eval
    "${pip[@]}" "${fallback_deps[@]}" "${undeclared_deps[@]}"
    if ! check_import; then
        echo "bfcl-eval is installed but its AST checker does not import; run" >&2
        echo "  $venv/bin/python -c 'import bfcl_eval.eval_checker.ast_eval.ast_checker'" >&2
        echo "to see which module is missing" >&2
        exit 1
    fi
fi
version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("bfcl-eval"))')"
echo "bfcl-eval $version is ready in $venv"
