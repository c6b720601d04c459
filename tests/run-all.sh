#!/usr/bin/env bash
# Runs every test of hosted-mcp; this is the command CI runs (.ci/run).
#
#   tests/run-all.sh           everything: format, clippy (also of mcp-server's Lambda
#                              configuration), docs, catalog checks, the whole cargo test suite
#                              (unit, HTTP, end to end with real clients, the Lambda binary through
#                              a local Runtime API), infra
#   tests/run-all.sh --quick   the developer tier: format, clippy, unit tests (no tools to install)
#
# The release zips (fat LTO) are not built here: tests/lambda-zips.sh is the release path, which
# the deploy runs (tests/README.md says what each proves).
#
# Order and overlap: the checks that need nothing but cargo come first, while the pinned test
# tools (moto, MCP clients, conformance suites, Prism, Node 22) install into .tools/ in the
# background. Once the tools are there, the infra tests run beside everything else at the lowest
# CPU priority: the tests spend much of their time waiting on the processes they start, and the
# foreground keeps the CPU whenever it wants it. Each step's wall time and CPU time are printed at
# the end (also after a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=false
case "${1:-}" in
--quick) quick=true ;;
"") ;;
*)
    echo "usage: tests/run-all.sh [--quick]" >&2
    exit 2
    ;;
esac

# Cargo's own settings, incremental compilation included: the workspace's crates are then the
# ones a developer's `cargo run -p mcp-server` finds (with CARGO_INCREMENTAL=0 it would build them
# again), at some CPU and disk here. The shell's PATH before the test tools join it, for the check
# that such a run builds nothing.
newcomer_path="$PATH"

logs="$(mktemp -d)"
started=$SECONDS
timings=()
current=""
current_start=0
current_cpu=0

# CPU seconds (user + sys) of this script's finished child processes so far, into $cpu. A step's
# CPU is what finished during it: a background job's whole cost lands in the step during which
# it ended (its `await` step only if it was still running then). (`times` reports this shell's
# children only outside a subshell, hence the file.)
cpu=0
read_cpu() {
    times >"$logs/times"
    cpu=$(awk 'NR == 2 {
        total = 0
        for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); total += t[1] * 60 + t[2] }
        printf "%d", total
    }' "$logs/times")
}

step() {
    finish_step
    current="$*"
    current_start=$SECONDS
    read_cpu
    current_cpu=$cpu
    printf '\n==> %s\n' "$current"
    df -h . | awk 'NR == 2 { print "    (disk: " $4 " free)" }'
}
finish_step() {
    [[ -n "$current" ]] || return 0
    read_cpu
    timings+=("$(printf '%5ss %6ss CPU  %s' $((SECONDS - current_start)) $((cpu - current_cpu)) "$current")")
    current=""
}
kill_tree() {
    local child
    for child in $(pgrep -P "$1"); do kill_tree "$child"; done
    kill "$1" 2>/dev/null || true
}
report() {
    local status=$?
    # A failed step leaves no background job (nor its cargo) behind.
    local job
    for job in $(jobs -p); do kill_tree "$job"; done
    finish_step
    printf '\n==> step times (wall, and CPU of the processes that finished during the step)\n'
    printf '    %s\n' "${timings[@]}"
    read_cpu
    printf '    %5ss %6ss CPU  total (%s)\n' $((SECONDS - started)) "$cpu" \
        "$([[ $status -eq 0 ]] && echo passed || echo FAILED)"
    rm -rf "$logs"
}
trap report EXIT

# A background job whose output is shown when it is waited for.
background() { # name command...
    local name=$1
    shift
    "$@" >"$logs/$name.log" 2>&1 &
    echo $! >"$logs/$name.pid"
}
await() { # name "step title"
    local name=$1 status=0
    step "$2"
    wait "$(cat "$logs/$name.pid")" || status=$?
    cat "$logs/$name.log"
    return "$status"
}

if ! $quick; then
    background tools tests/tools/install.sh
fi

step "format"
cargo fmt --all -- --check

step "every repository path the docs name exists"
python3 tests/tools/readme_paths.py

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

if $quick; then
    step "unit tests"
    cargo test --workspace --locked --lib --bins
    finish_step
    printf '\n==> quick tier passed (the full run: tests/run-all.sh)\n'
    exit 0
fi

step "docs (rustdoc, warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet

target="${CARGO_TARGET_DIR:-$PWD/target}"
step "mcp-server in its Lambda configuration passes clippy (--no-default-features)"
# The Lambda zip's configuration: no offline sandbox, no OpenAPI importer. Checked and linted
# here over the dependencies the clippy step checked; built and run only on the release path
# (tests/lambda-zips.sh), since a debug build of it would compile the whole mcp-server library a
# second time. The Runtime API test runs the test build's binary, which takes the same Lambda path.
cargo clippy --locked --no-default-features -p mcp-server --lib --bins -- -D warnings

await tools "test tools (pinned, into .tools/)"
# shellcheck source=tools/env.sh
source tests/tools/env.sh
background infra nice -n 19 infra/test.sh

step "catalogs against the JSON Schema"
python tests/tools/validate_catalogs.py shared/connector/catalogs tests/catalogs tests/catalogs/documents \
    tests/catalogs/conformance tests/catalogs/jobs tests/catalogs/spend tests/catalogs/rate tests/catalogs/inbound

step "build the tests"
cargo test --workspace --locked --no-run
# The server binary that build made for mcp-server's own integration tests; the end-to-end tests
# and the lint use it instead of building it again (see server_binary in tests/src/lib.rs).
export HOSTED_MCP_SERVER_BIN="$target/debug/mcp-server"
[[ -x "$HOSTED_MCP_SERVER_BIN" ]] || { echo "missing $HOSTED_MCP_SERVER_BIN" >&2; exit 1; }

step "catalog lint on the shipped catalogs (fails on any gap)"
"$HOSTED_MCP_SERVER_BIN" lint shared/connector/catalogs

step "cargo test (unit, HTTP, end to end)"
# Four test threads on two cores: the end-to-end tests spend most of their time waiting on the
# processes they start (moto, MCP clients, Prism, Chromium), so two threads leave a core idle.
cargo test --workspace --locked -- --test-threads=4

step "the local server needs no second build (cargo build -p mcp-server compiles nothing)"
# What a newcomer runs next (`cargo run -p mcp-server -- serve`): the test build made it already.
# Verbose, so that what cargo found dirty, and why, is in the log (the fresh units are left out).
PATH="$newcomer_path" cargo build --locked -v -p mcp-server 2>&1 | grep -v "^ *Fresh " >"$logs/local-build.log"
cat "$logs/local-build.log"
if grep -q "Compiling" "$logs/local-build.log"; then
    echo "cargo build -p mcp-server compiled again what the test build made: the features differ" >&2
    exit 1
fi

await infra "infra (CDK: type-check, assertion tests, offline synth, cfn-lint)"

finish_step
printf '\n==> all tests passed\n'
