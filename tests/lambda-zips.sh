#!/usr/bin/env bash
# Builds the three Lambda zip files with cargo-lambda (pinned in tests/tools/requirements.txt),
# reports their sizes and checks the shipped binary. This is the release path (fat LTO, one
# codegen unit: minutes of CPU): the deploy runs it and the benchmark reports what it builds; CI
# checks the Lambda configuration with clippy instead (tests/run-all.sh). By default it builds
# for the machine's own architecture with plain cargo and the system linker (`--compiler cargo`):
# zig, cargo-lambda's default, is only needed to cross-link, and it compiles its own libc and
# runtime into a cache on first use. A deploying machine builds arm64 (`rustup target add aarch64-unknown-linux-gnu`, then
# `CARGO_LAMBDA_COMPILER=cargo-zigbuild tests/lambda-zips.sh --arm64`, with zig installed); the CDK
# app does that itself through cargo-lambda-cdk (see infra/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/env.sh
source tests/tools/env.sh
functions=(mcp-server tool-error-digest quota-alarm)
args=()
for f in "${functions[@]}"; do args+=(-p "$f"); done
# --no-default-features: the Lambda build carries no offline sandbox (mcp-server's `sandbox`
# feature, on for local `cargo run -p mcp-server -- serve`) and no OpenAPI importer (`import`).
cargo lambda build --compiler "${CARGO_LAMBDA_COMPILER:-cargo}" --release --output-format zip --no-default-features "${args[@]}" "$@"
for f in "${functions[@]}"; do
    zip="target/lambda/$f/bootstrap.zip"
    [[ -s "$zip" ]] || { echo "missing $zip" >&2; exit 1; }
    printf '%-20s %9d bytes  %s\n' "$f" "$(stat -c %s "$zip")" "$zip"
done

# The shipped binary cannot start the sandbox.
unpacked="$(mktemp -d)"
trap 'rm -rf "$unpacked"' EXIT
python3 -m zipfile -e target/lambda/mcp-server/bootstrap.zip "$unpacked"
chmod +x "$unpacked/bootstrap"
tests/lambda-no-sandbox.sh "$unpacked/bootstrap"

# The functions a running server uses sit together in .text.hot (functions/mcp-server/build.rs).
# When hot-text.txt stops matching (v0 mangling lost, or the code moved on: regenerate it with
# tests/bench/hot_text.py), the section shrinks and a server maps most of .text again.
hot="$(readelf -SW "$unpacked/bootstrap" | sed -n 's/.* \.text\.hot  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')"
hot=$((16#${hot:-0}))
min_hot=1000000
if ((hot < min_hot)); then
    echo "mcp-server (Lambda build): .text.hot is $hot bytes, expected at least $min_hot" >&2
    exit 1
fi
echo "mcp-server (Lambda build): .text.hot $hot bytes"
