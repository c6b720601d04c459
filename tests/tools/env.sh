# shellcheck shell=bash
# Source this (do not execute it) to use the test tools installed by tests/tools/install.sh:
#
#     source tests/tools/env.sh
#
# Puts .tools/node/node_modules/.bin first on PATH (Node 22, conformance, mcp-inspector), then
# .tools/venv/bin (python with the mcp SDK, moto_server), and exports:
#   HOSTED_MCP_TOOLS             absolute path of .tools
#   HOSTED_MCP_CONFORMANCE_NEXT  the 0.2.0 pre-release `conformance` binary (not on PATH, so
#                                `conformance` stays the pinned 0.1.x release)
#   HOSTED_MCP_PRISM             the pinned Prism mock server (`prism mock --errors api.yaml`; not on
#                                PATH: the tests in tests/tests/it/prism.rs start it themselves)
# Safe to source more than once and from shells running with `set -euo pipefail`.

HOSTED_MCP_TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.tools"
export HOSTED_MCP_TOOLS
export HOSTED_MCP_CONFORMANCE_NEXT="$HOSTED_MCP_TOOLS/conformance-next/node_modules/.bin/conformance"
export HOSTED_MCP_PRISM="$HOSTED_MCP_TOOLS/prism/node_modules/.bin/prism"

case ":$PATH:" in
*":$HOSTED_MCP_TOOLS/node/node_modules/.bin:$HOSTED_MCP_TOOLS/venv/bin:"*) ;;
*) export PATH="$HOSTED_MCP_TOOLS/node/node_modules/.bin:$HOSTED_MCP_TOOLS/venv/bin:$PATH" ;;
esac

if [[ ! -x "$HOSTED_MCP_TOOLS/node/node_modules/.bin/node" || ! -x "$HOSTED_MCP_TOOLS/venv/bin/python" ]]; then
    echo "env.sh: test tools missing under $HOSTED_MCP_TOOLS; run tests/tools/install.sh" >&2
fi
