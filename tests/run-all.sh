#!/usr/bin/env bash
# Runs every test of hosted-mcp: installs the pinned test tools (moto, MCP clients, conformance
# suite) into .tools/, then format, lint, the catalog checks and the whole cargo test suite
# (unit, HTTP, end-to-end with real clients). This is the command CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; df -h . | awk 'NR == 2 { print "    (disk: " $4 " free)" }'; }

# One full run gains nothing from incremental compilation and it costs gigabytes of disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

step "test tools (pinned, into .tools/)"
tests/tools/install.sh
# shellcheck source=tools/env.sh
source tests/tools/env.sh

step "format"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "catalogs against the JSON Schema"
python tests/tools/validate_catalogs.py shared/connector/catalogs tests/catalogs

step "catalog lint on the shipped catalogs (fails on any gap)"
cargo run --quiet --locked -p mcp-server -- lint shared/connector/catalogs

step "cargo test (unit, HTTP, end to end)"
cargo test --workspace --locked

step "infra (CDK: type-check, assertion tests, offline synth, cfn-lint)"
infra/test.sh

step "Lambda zips (cargo lambda build --release --output-format zip), with sizes"
tests/lambda-zips.sh

step "all tests passed"
