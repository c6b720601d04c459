#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against an MCP endpoint.
#
#   tests/conformance/run.sh URL [--expected-failures FILE] [--scenario NAME] [--next]
#                            [--server-cmd CMD] [--fixture-remote] [--startup-timeout SECS]
#                            [-- SUITE ARGS...]
#
#   URL                      the Streamable HTTP endpoint, e.g. http://127.0.0.1:18767/mcp
#   --expected-failures FILE YAML `server: [scenario, ...]` baseline (tests/conformance/expected-failures.yml);
#                            listed scenarios may fail, and one that starts passing fails the run.
#                            With a baseline the suite counts WARNING checks as failures too.
#   --scenario NAME          run one scenario (`conformance list --server` names them)
#   --next                   use the 0.2.0 pre-release suite in .tools/conformance-next (2026-07-28
#                            scenarios: pass `-- --requirements 2026-07-28` or `-- --suite draft`)
#   --server-cmd CMD         start CMD (bash -c, own process group) first, wait until URL's port
#                            accepts connections, and stop it afterwards; also read from the
#                            environment variable HOSTED_MCP_CONFORMANCE_SERVER_CMD
#   --fixture-remote         before the server, start the multi-round fixture remote
#                            (tests/conformance/fixture_remote.py, a Python `mcp` SDK server on a
#                            free loopback port) and give the server its address in
#                            TEST_INPUT_REQUIRED_RESULT_HOST, JSON_HOST, TEST_MISSING_HOST,
#                            TEST_STREAMING_HOST and TEST_LOGGING_HOST (the catalogs
#                            test_input_required_result.yaml, json.yaml, test_missing.yaml,
#                            test_streaming.yaml and test_logging.yaml in
#                            tests/catalogs/conformance federate it); stopped with the server.
#                            Needs --server-cmd.
#   -- SUITE ARGS            passed to `conformance server` unchanged (--verbose, --spec-version V,
#                            --suite all|pending, and with --next --requirements REV, --timeout MS)
#
# Authentication: the suite sends no Authorization header, so the server under test must accept
# unauthenticated requests. Run hosted-mcp in its loopback-only test mode, which refuses to start
# on a non-loopback address and cannot be reached on Lambda:
#
#   TEST_HOST=127.0.0.1:PORT tests/conformance/run.sh http://localhost:18767/mcp \
#       --expected-failures tests/conformance/expected-failures.yml --fixture-remote \
#       --server-cmd 'target/debug/mcp-server serve --addr 127.0.0.1:18767 --insecure-no-auth \
#                     --catalog tests/catalogs/conformance'
#
# (TEST_HOST: the fixture upstream of the `test` connector, tests/src/conformance_fixture.rs,
# which the conformance tests in tests/tests/it/clients.rs start.)
#
# dns-rebinding-protection needs a localhost URL and a server that accepts Host 127.0.0.1:PORT.
#
# Results go to target/conformance/[next/]<UTC time>/ (`latest` links to the newest run):
# server-<scenario>-<time>/checks.json per scenario, suite.log (the suite's full output) and
# server.log (and fixture-remote.log). Prints the suite summary and every failed or warning check, ends with the `Total:`
# line, and exits with the suite's status (0 = pass; 1 = a failed check, or with a baseline an
# unexpected or stale entry).
set -euo pipefail

usage() { sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

[[ $# -ge 1 && "$1" != -* ]] || usage
url="$1"
shift
expected="" scenario="" next=false startup_timeout=60 fixture_remote=false
server_cmd="${HOSTED_MCP_CONFORMANCE_SERVER_CMD:-}"
suite_args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --expected-failures) expected="${2:?--expected-failures needs a file}"; shift 2 ;;
    --scenario) scenario="${2:?--scenario needs a name}"; shift 2 ;;
    --next) next=true; shift ;;
    --server-cmd) server_cmd="${2:?--server-cmd needs a command}"; shift 2 ;;
    --fixture-remote) fixture_remote=true; shift ;;
    --startup-timeout) startup_timeout="${2:?--startup-timeout needs seconds}"; shift 2 ;;
    --) shift; suite_args+=("$@"); break ;;
    -h | --help) usage ;;
    *) echo "run.sh: unknown argument '$1' (suite options go after --)" >&2; usage ;;
    esac
done

# shellcheck source-path=SCRIPTDIR source=../tools/env.sh
source "$repo/tests/tools/env.sh"
base="${CARGO_TARGET_DIR:-$repo/target}/conformance"
if $next; then
    conformance="$HOSTED_MCP_CONFORMANCE_NEXT"
    base="$base/next"
else
    conformance="$HOSTED_MCP_TOOLS/node/node_modules/.bin/conformance"
fi
[[ -x "$conformance" ]] || { echo "run.sh: $conformance missing; run tests/tools/install.sh" >&2; exit 2; }
if [[ -n "$expected" ]]; then
    [[ -f "$expected" ]] || { echo "run.sh: no such file: $expected" >&2; exit 2; }
    expected="$(cd "$(dirname "$expected")" && pwd)/$(basename "$expected")"
fi
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="$base/$stamp"
mkdir -p "$out"
ln -sfn "$stamp" "$base/latest"
log="$out/suite.log"

server_pid="" remote_pid=""
# Stops the process group a setsid child leads: TERM, up to five seconds, then KILL.
stop_group() {
    local pid="$1"
    [[ -n "$pid" ]] || return 0
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in {1..50}; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
# shellcheck disable=SC2329 # invoked by the EXIT trap
stop_server() {
    stop_group "$server_pid"
    server_pid=""
    stop_group "$remote_pid"
    remote_pid=""
}
trap stop_server EXIT

if $fixture_remote; then
    [[ -n "$server_cmd" ]] || { echo "run.sh: --fixture-remote needs --server-cmd (the server must learn its address)" >&2; exit 2; }
    remote_log="$out/fixture-remote.log"
    setsid "$HOSTED_MCP_TOOLS/venv/bin/python" "$here/fixture_remote.py" --port 0 >"$remote_log" 2>&1 &
    remote_pid=$!
    deadline=$((SECONDS + startup_timeout))
    remote_addr=""
    until remote_addr="$(sed -n 's/^listening \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$remote_log")" && [[ -n "$remote_addr" ]]; do
        if ! kill -0 "$remote_pid" 2>/dev/null; then
            echo "run.sh: the fixture remote exited before listening; its log:" >&2
            tail -n 30 "$remote_log" >&2
            exit 2
        fi
        if ((SECONDS >= deadline)); then
            echo "run.sh: the fixture remote did not listen within ${startup_timeout}s" >&2
            exit 2
        fi
        sleep 0.2
    done
    export TEST_INPUT_REQUIRED_RESULT_HOST="$remote_addr" JSON_HOST="$remote_addr" \
        TEST_MISSING_HOST="$remote_addr" TEST_STREAMING_HOST="$remote_addr" TEST_LOGGING_HOST="$remote_addr"
    echo "run.sh: fixture remote on $remote_addr (log: $remote_log)" >&2
fi

if [[ -n "$server_cmd" ]]; then
    if [[ ! "$url" =~ ^https?://(\[[^]]+\]|[^/:]+)(:([0-9]+))? ]]; then
        echo "run.sh: cannot find host and port in $url" >&2
        exit 2
    fi
    host="${BASH_REMATCH[1]}" port="${BASH_REMATCH[3]:-80}"
    host="${host#[}" host="${host%]}"
    server_log="$out/server.log"
    echo "run.sh: starting server: $server_cmd (log: $server_log)" >&2
    setsid bash -c "$server_cmd" >"$server_log" 2>&1 &
    server_pid=$!
    deadline=$((SECONDS + startup_timeout))
    until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
        if ! kill -0 "$server_pid" 2>/dev/null; then
            echo "run.sh: server exited before listening on $host:$port; its log:" >&2
            tail -n 30 "$server_log" >&2
            exit 2
        fi
        if ((SECONDS >= deadline)); then
            echo "run.sh: server not listening on $host:$port after ${startup_timeout}s" >&2
            exit 2
        fi
        sleep 0.2
    done
fi

cmd=("$conformance" server --url "$url" --output-dir "$out")
[[ -n "$scenario" ]] && cmd+=(--scenario "$scenario")
[[ -n "$expected" ]] && cmd+=(--expected-failures "$expected")
cmd+=("${suite_args[@]}")

echo "run.sh: $("$conformance" --version 2>/dev/null || echo '?') ${cmd[*]:1}" >&2
status=0
NO_COLOR=1 "${cmd[@]}" >"$log" 2>&1 || status=$?
sed -i 's/\x1b\[[0-9;]*m//g' "$log" # the suite colours its output unconditionally

if [[ -n "$scenario" ]]; then
    cat "$log"
    # A single scenario reports `Passed: P/N, F failed, W warnings`; restate it as the Total line.
    total="$(sed -nE 's/^Passed: ([0-9]+)\/[0-9]+, ([0-9]+) failed, ([0-9]+) warnings.*/Total: \1 passed, \2 failed, \3 warnings/p' "$log" | tail -n 1)"
else
    # The per-scenario summary and the baseline verdict; the full output stays in the log.
    sed -n '/=== SUMMARY ===/,$p' "$log" | grep -v '^Total:' || cat "$log"
    total="$(grep -E '^Total:' "$log" | tail -n 1 || true)"
    # The summary names scenarios only; list the checks that did not pass, from checks.json.
    node - "$out" <<'EOF' || true
const fs = require("fs");
const out = process.argv[2];
const lines = [];
for (const dir of fs.readdirSync(out).filter((d) => d.startsWith("server-")).sort()) {
  const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
  for (const c of JSON.parse(fs.readFileSync(`${out}/${dir}/checks.json`, "utf8"))) {
    if (c.status === "FAILURE" || c.status === "WARNING") {
      const why = (c.errorMessage || c.description || "").replace(/\s+/g, " ").slice(0, 200);
      lines.push(`  ${c.status === "FAILURE" ? "FAIL" : "WARN"} ${scenario} / ${c.id}: ${why}`);
    }
  }
}
if (lines.length) console.log(`\nChecks not passing:\n${lines.join("\n")}`);
EOF
fi
echo "run.sh: full output in $log" >&2
echo "${total:-Total: unknown (the suite did not finish; see $log)}"
exit "$status"
