#!/usr/bin/env bash
# Calls as a person, measured with a release build: isolation of two people (50 concurrent calls
# each over two instances sharing the vault on moto), a disconnect seen by the other instance, and
# the latency a call through us adds over the same request sent to the Google twin directly (median
# and p95, with the vault on moto and with the embedded vault), with the vault requests per call.
#
#   tests/bench/person.sh              # builds mcp-server in release, then runs the benchmark
#   tests/bench/person.sh --no-build   # with the release binary already built
#
# Figures are printed; nothing here is a pass/fail on time. Run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ "${1:-}" != "--no-build" ]]; then
    cargo build --release --locked --no-default-features -p mcp-server
fi
target="${CARGO_TARGET_DIR:-target}"
[[ -d .tools/venv ]] || tests/tools/install.sh
source tests/tools/env.sh
HOSTED_MCP_SERVER_BIN="$PWD/$target/release/mcp-server"
[[ "$target" = /* ]] && HOSTED_MCP_SERVER_BIN="$target/release/mcp-server"
export HOSTED_MCP_SERVER_BIN
echo "server: $HOSTED_MCP_SERVER_BIN; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo test --locked -p integration-tests --test it -- --ignored --exact \
    person_bench::calls_as_a_person_stay_apart_and_what_they_cost --nocapture 2>&1 |
    grep -E '^(isolation|vault|embedded|a disconnect|test result)|panicked|FAILED'
