#!/usr/bin/env python3
"""Peer baseline for the hosted-mcp benchmarks: a FastMCP server exposing one tool,
`echo(text) -> {"text": text}`, over Streamable HTTP at http://HOST:PORT/mcp.

The benchmark scripts under tests/bench/ measure hosted-mcp against this server side by side, on the
same machine and in the same run. tests/bench/run.sh installs its pinned stack into a venv of its
own, outside the repo's test venv, and starts it from there; by hand:

    .tools/bench-venv/bin/python tests/bench/peer/echo_server.py --port 8765

By default it mirrors how hosted-mcp answers: stateless (no Mcp-Session-Id) with plain
application/json replies. --stateful keeps sessions, --sse answers POSTs as text/event-stream, and
--protect-host turns on FastMCP's Host/Origin check (hosted-mcp always validates them).
"""

from __future__ import annotations

import argparse

from fastmcp import FastMCP

server = FastMCP("echo-peer")


@server.tool
def echo(text: str) -> dict:
    """Return the given text unchanged, as {"text": text}."""
    return {"text": text}


def main() -> None:
    ap = argparse.ArgumentParser(description="FastMCP echo server (benchmark peer)")
    ap.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=8765, help="TCP port (default 8765)")
    ap.add_argument("--stateful", action="store_true", help="issue Mcp-Session-Id and keep sessions")
    ap.add_argument("--sse", action="store_true", help="reply to POSTs with text/event-stream")
    ap.add_argument("--protect-host", action="store_true", help="reject foreign Host/Origin headers")
    args = ap.parse_args()
    server.run(
        transport="http",
        host=args.host,
        port=args.port,
        path="/mcp",
        stateless_http=not args.stateful,
        json_response=not args.sse,
        host_origin_protection=args.protect_host,
        show_banner=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
