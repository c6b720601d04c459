#!/usr/bin/env bash
# Runs one command through `mcpdo`, the MCP Inspector's connection CLI (same pinned package as
# tests/clients/inspector.sh), for what the one-shot `mcp-inspector --cli` cannot send:
# `prompts/complete` (completion/complete). Prints the command's JSON result on stdout.
#
#   tests/clients/inspector_session.sh URL KEY COMMAND [mcpdo command args...]
#
#   tests/clients/inspector_session.sh http://127.0.0.1:8767/mcp "$KEY" prompts/complete \
#       --complete-ref-type ref/prompt --complete-ref papierkram_customer_open_items \
#       --complete-arg-name company_id --complete-arg-value Mü
#   tests/clients/inspector_session.sh http://127.0.0.1:8767/mcp "$KEY" prompts/get \
#       papierkram_month_close_review --prompt-args year=2026 month=5
#
# mcpdo keeps connections in a daemon: this script starts a private one (token-gated, in a
# throw-away HOME and TMPDIR), connects to URL with `Authorization: Bearer KEY` (--era modern
# in MCPDO_ERA for the 2026-07-28 generation), runs COMMAND, and stops that daemon on exit.
# Exit status is mcpdo's (0 ok; errors as one JSON object on stdout or stderr).
set -euo pipefail

if [[ $# -lt 3 ]]; then
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 1
fi
url="$1" key="$2" command="$3"
shift 3

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../tools/env.sh
source "$here/../tools/env.sh"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/inspector-session.XXXXXX")"
export HOME="$scratch" XDG_CONFIG_HOME="$scratch/.config" XDG_CACHE_HOME="$scratch/.cache" \
    XDG_DATA_HOME="$scratch/.local/share" TMPDIR="$scratch" MCP_INSPECTOR_SECRET_STORE=file
eval "$(mcpdo private)"
trap 'mcpdo daemon stop >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT

mcpdo --stored-auth-only connect "$url" --transport http --era "${MCPDO_ERA:-legacy}" \
    --header "Authorization: Bearer $key" </dev/null >/dev/null
mcpdo --format json --stored-auth-only --connection "$url" "$command" "$@" </dev/null
