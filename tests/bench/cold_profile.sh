#!/usr/bin/env bash
# Instructions a cold start of mcp-server costs, repeatable under any machine load: runs
# `BIN serve` under `valgrind --tool=callgrind` from exec until its first answered `initialize`,
# dumps the profile there (what shutting down costs is left out), stops it (SIGINT) and prints
# the total. Without serve arguments it loads the shipped catalogs (the embedded default, as a
# deployment starts) with placeholder credentials, so no sandbox starts and no upstream is
# called; `--catalog "$PWD/tests/catalogs"` for the demo catalog.
#
#   tests/bench/cold_profile.sh BIN OUT [serve arguments...]
#
# BIN needs its symbols for a readable profile (see README.md: CARGO_PROFILE_RELEASE_STRIP=false);
# read OUT with `callgrind_annotate --inclusive=yes OUT | head -60`. Its stderr goes to OUT.log.
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
bin="$(realpath "$1")" out="$(realpath "$2")"
shift 2
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
key=cold-profile-key-0123456789
# Only what is given here: no AWS, no .env.local (the server starts in an empty directory).
workdir="$(mktemp -d)"
env -i PATH="$PATH" HOME="$workdir" RUST_LOG=warn MCP_LIMITS=off MCP_API_KEYS="profile:$key" \
    PAPIERKRAM_SUBDOMAIN=profile PAPIERKRAM_TOKEN=profile \
    SEVDESK_API_KEY=0123456789abcdef0123456789abcdef CALCOM_API_KEY=cal_live_profile \
    DEMO_HOST=127.0.0.1:9 DEMO_TOKEN=profile \
    bash -c 'cd "$1" && shift && exec "$@"' _ "$workdir" \
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" serve --addr "127.0.0.1:$port" "$@" \
    >"$out.log" 2>&1 &
server=$!
trap 'kill -INT $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$workdir"' EXIT

initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cold-profile","version":"1"}}}'
code=000
deadline=$((SECONDS + 120))
until [[ "$code" == 200 ]]; do
    kill -0 "$server" 2>/dev/null || { echo "the server exited; see $out.log" >&2; exit 1; }
    ((SECONDS < deadline)) || { echo "no initialize within 120 s; see $out.log" >&2; exit 1; }
    code="$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/mcp" \
        -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2025-11-25' \
        -d "$initialize" || true)"
    [[ "$code" == 200 ]] || sleep 0.05
done
callgrind_control --dump=initialize "$server" >/dev/null 2>&1
kill -INT "$server"
wait "$server" || true
trap 'rm -rf "$workdir"' EXIT
# The dump at `initialize` is "$out.1"; what ran after it (shutting down) is dropped.
mv "$out.1" "$out"
total="$(sed -n 's/^totals: //p' "$out")"
echo "exec → first initialize: $(sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$total") instructions"
