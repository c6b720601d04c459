#!/usr/bin/env bash
# Builds the three Lambda zip files with cargo-lambda (pinned in tests/tools/requirements.txt) and
# reports their sizes. CI builds for the machine's own architecture; a deploying machine builds
# arm64 (`rustup target add aarch64-unknown-linux-gnu`, then add `--arm64`), which the CDK app does
# itself through cargo-lambda-cdk.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/env.sh
source tests/tools/env.sh
functions=(mcp-server tool-error-digest quota-alarm)
args=()
for f in "${functions[@]}"; do args+=(-p "$f"); done
cargo lambda build --release --output-format zip "${args[@]}" "$@"
for f in "${functions[@]}"; do
    zip="target/lambda/$f/bootstrap.zip"
    [[ -s "$zip" ]] || { echo "missing $zip" >&2; exit 1; }
    printf '%-20s %9d bytes  %s\n' "$f" "$(stat -c %s "$zip")" "$zip"
done
