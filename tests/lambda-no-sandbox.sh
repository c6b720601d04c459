#!/usr/bin/env bash
# The mcp-server binary of a Lambda build cannot start the offline sandbox: `serve` without
# Papierkram credentials must refuse and say why, where a local build would answer from demo
# data. Run by tests/lambda-zips.sh on the binary inside the zip.
#   tests/lambda-no-sandbox.sh BINARY
set -euo pipefail
binary="${1:?usage: tests/lambda-no-sandbox.sh BINARY}"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
if out="$(env -i PATH="$PATH" HOME="$home" "$binary" serve --addr 127.0.0.1:0 2>&1)"; then
    echo "the Lambda build of mcp-server served without credentials: it must not carry the sandbox" >&2
    exit 1
fi
grep -q "this build has no offline sandbox" <<<"$out" || {
    printf 'the Lambda build refused for another reason than the missing sandbox:\n%s\n' "$out" >&2
    exit 1
}
echo "mcp-server (Lambda build): serve without credentials refused, no sandbox in the build"
