#!/usr/bin/env bash
# hosted-mcp against a bare rmcp server (tests/bench/bare) and the FastMCP peer, in one run:
# builds the release binaries, makes sure the peer's pinned venv exists (.tools/bench-venv), then
# runs tests/bench/bench.py, which prints the table and writes target/bench/results.json.
#
#   tests/bench/run.sh [--no-build] [--zips] [bench.py options: --before BIN --no-peer --runs 5 ...]
#
# --zips first builds the three release zips (tests/lambda-zips.sh, the deploy's build) and prints
# their sizes: the figures tests/bench/README.md keeps.
#
# Run one benchmark at a time, on an otherwise quiet machine.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

build=1
zips=0
peer=1
args=()
for a in "$@"; do
    case "$a" in
    --no-build) build=0 ;;
    --zips) zips=1 ;;
    --no-peer) peer=0; args+=("$a") ;;
    -h | --help)
        sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
        python3 tests/bench/bench.py --help
        exit 0
        ;;
    *) args+=("$a") ;;
    esac
done

if ((zips)); then
    echo "building the release zips (tests/lambda-zips.sh) ..." >&2
    tests/lambda-zips.sh
fi
if ((build)); then
    echo "building release binaries (slow the first time: lto, codegen-units=1) ..." >&2
    # mcp-server with the Lambda zip's features (tests/lambda-zips.sh): no in-process sandbox and
    # no OpenAPI importer, so the figures are the deployed binary's. The sandbox it calls runs as
    # its own process, and bench-bare is built in the same invocation, so the dependencies they
    # share get the same features.
    cargo build --release --quiet --no-default-features -p mcp-server -p papierkram-sandbox -p bench-bare
fi
for bin in target/release/{mcp-server,papierkram-sandbox,bench-bare,bench-load}; do
    [[ -x "$bin" ]] || { echo "missing $bin (drop --no-build)" >&2; exit 1; }
done

# The peer venv is (re)built whenever tests/bench/peer/requirements.txt changes.
venv="$ROOT/.tools/bench-venv"
reqs="$ROOT/tests/bench/peer/requirements.txt"
if ((peer)) && { ! cmp -s "$reqs" "$venv/requirements.installed" || [[ ! -x "$venv/bin/python" ]]; }; then
    echo "creating the peer venv $venv (pinned FastMCP) ..." >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$reqs"
    cp "$reqs" "$venv/requirements.installed"
fi

exec python3 tests/bench/bench.py --peer-python "$venv/bin/python" "${args[@]}"
