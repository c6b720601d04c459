#!/usr/bin/env bash
# What OpenTelemetry traces cost per call (issue 47): mcp-server with traces off and on, one run,
# release build, exporting to a local OTLP receiver. Prints a Markdown table and writes
# target/bench/traces.json.
#   tests/bench/traces.sh [--no-build] [traces.py options: --requests 2000 --rounds 5]
# Run one benchmark at a time, on an otherwise quiet machine (see README.md).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
args=()
build=1
for a in "$@"; do
    case "$a" in
    --no-build) build=0 ;;
    *) args+=("$a") ;;
    esac
done
if ((build)); then
    echo "building release binaries (slow the first time: lto, codegen-units=1) ..." >&2
    cargo build --release --quiet --no-default-features -p mcp-server -p papierkram-sandbox
fi
target="${CARGO_TARGET_DIR:-$ROOT/target}"
exec python3 tests/bench/traces.py --ours "$target/release/mcp-server" \
    --sandbox "$target/release/papierkram-sandbox" --out "$target/bench/traces.json" "${args[@]}"
