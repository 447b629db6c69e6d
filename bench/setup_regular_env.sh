#!/usr/bin/env bash
# Install tfce-eval the ordinary way (`pip install .`, a copy in site-packages) into
# bench/.venv-regular, so that bench_bfcl4.py can time the command as a user who installed
# it from a wheel runs it, beside the project's own editable install (.venv), whose import
# hook runs at every start.
#
# Only the package is installed (--no-deps); its dependencies are those of .venv, reached
# through a path file (deps.pth: one directory added to sys.path, nothing imported), so
# the two installs differ only in how tfce_eval itself is found. Run it again after
# changing the code: the copy is reinstalled every time.
#
# Usage: bash bench/setup_regular_env.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
venv="$here/.venv-regular"
base="$("$repo/.venv/bin/python" -c 'import sys; print(sys._base_executable)')"
deps="$("$repo/.venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"

if [[ ! -x "$venv/bin/python" ]]; then
    "$base" -m venv "$venv"
fi
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
# The build happens in a temporary copy, so nothing is written into the repository.
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
cp -r "$repo/pyproject.toml" "$repo/README.md" "$repo/tfce_eval" "$build"
find "$build" -name __pycache__ -prune -exec rm -rf {} +
"$venv/bin/python" -m pip install --quiet --no-deps --force-reinstall "$build"
echo "$deps" > "$site/deps.pth"
"$venv/bin/tfce-eval" --version >/dev/null
echo "tfce-eval is installed (not editable) in bench/.venv-regular"
