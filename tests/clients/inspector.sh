#!/usr/bin/env bash
# Runs one request through the MCP Inspector CLI (the pinned @modelcontextprotocol/inspector from
# tests/tools/install.sh) over Streamable HTTP and prints its JSON result on stdout.
#
#   tests/clients/inspector.sh URL KEY METHOD [inspector args...]
#
#   tests/clients/inspector.sh http://127.0.0.1:8767/mcp "$KEY" tools/list
#   tests/clients/inspector.sh http://127.0.0.1:8767/mcp "$KEY" tools/call \
#       --tool-name papierkram_invoices_list --tool-args-json '{"page_size": 5}'
#   tests/clients/inspector.sh http://127.0.0.1:8767/mcp "$KEY" tools/list --protocol-era modern
#
# KEY goes out as `Authorization: Bearer KEY` (the Inspector's `--header "Name: value"` flag); pass
# "" to send no Authorization header. Extra arguments go to the Inspector unchanged (--tool-name,
# --tool-arg k=v, --tool-args-json JSON, --uri, --prompt-name, --protocol-era legacy|modern, ...).
# Each run gets a throw-away HOME, so no catalog, stored OAuth token or config leaks between runs;
# --stored-auth-only keeps it from ever starting an interactive OAuth login.
#
# Exit status is the Inspector's: 0 ok, 1 usage, 3 auth required (e.g. 401), 4 unreachable,
# 5 tool error (isError result, unknown tool). Errors come as one JSON object on stderr.
set -euo pipefail

if [[ $# -lt 3 ]]; then
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 1
fi
url="$1" key="$2" method="$3"
shift 3

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../tools/env.sh
source "$here/../tools/env.sh"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/inspector-home.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

args=(--cli "$url" --transport http)
if [[ -n "$key" ]]; then
    args+=(--header "Authorization: Bearer $key")
fi
args+=(--method "$method" --format json --quiet --stored-auth-only)

status=0
HOME="$scratch" XDG_CONFIG_HOME="$scratch/.config" XDG_CACHE_HOME="$scratch/.cache" \
    XDG_DATA_HOME="$scratch/.local/share" \
    mcp-inspector "${args[@]}" "$@" </dev/null || status=$?
exit "$status"
