#!/usr/bin/env python3
"""Drive an MCP server with the official Python SDK (`mcp`) over Streamable HTTP.

Connects to --url (with `Authorization: Bearer <--key>` when --key is given), negotiates the
protocol (the `initialize` handshake by default, `server/discover` with --era modern), lists the
tools, calls each --call NAME=JSONARGS in order, and prints ONE JSON document on stdout:

    {"server": {"name", "version", "protocol_version"},
     "tools": [names],
     "calls": [{"name", "is_error", "structured", "text"}]}

A call the server answers with a JSON-RPC error gets an "error": {"type", "code", "message"} entry
instead of its result; a failure before the tool list adds a top-level "error": {"type", "message"};
the first HTTP status >= 400 seen (e.g. 401 without a valid key) is reported as "http_status".

Exit status: 0 when every step succeeded (tool results with isError=true count as success: that
is the server reporting a tool failure correctly), 1 on any protocol failure (connection, HTTP
status, JSON-RPC error, a result that does not match the tool's outputSchema, timeout), 2 on
bad command-line arguments.

Run it with the Python from .tools/venv (tests/tools/install.sh), for example:

    .tools/venv/bin/python tests/clients/python_client.py --url http://127.0.0.1:8767/mcp \
        --key "$KEY" --call 'invoices_list={"page_size": 5}' --call 'echo={"text": "hi"}'
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, Implementation, TextContent

CLIENT_INFO = Implementation(name="hosted-mcp-python-client", version="0.1.0")


def parse_call(spec: str) -> tuple[str, dict[str, Any]]:
    """`NAME=JSONARGS` (JSONARGS a JSON object) or a bare `NAME` for a call without arguments."""
    name, sep, raw = spec.partition("=")
    name = name.strip()
    if not name:
        raise argparse.ArgumentTypeError(f"--call {spec!r}: missing tool name")
    if not sep or not raw.strip():
        return name, {}
    try:
        args = json.loads(raw)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"--call {spec!r}: arguments are not JSON ({e})") from e
    if not isinstance(args, dict):
        raise argparse.ArgumentTypeError(f"--call {spec!r}: arguments must be a JSON object")
    return name, args


def parse_header(spec: str) -> tuple[str, str]:
    name, sep, value = spec.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"--header {spec!r}: expected 'Name: value'")
    return name.strip(), value.strip()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="MCP endpoint, e.g. http://127.0.0.1:8767/mcp")
    ap.add_argument("--key", help="API key sent as 'Authorization: Bearer KEY' (omit for no auth header)")
    ap.add_argument(
        "--call",
        action="append",
        default=[],
        type=parse_call,
        metavar="NAME=JSONARGS",
        help="call tool NAME with the JSON object JSONARGS; repeatable, calls run in order",
    )
    ap.add_argument(
        "--header",
        action="append",
        default=[],
        type=parse_header,
        metavar="'NAME: VALUE'",
        help="extra HTTP header on every request; repeatable",
    )
    ap.add_argument(
        "--era",
        choices=["handshake", "modern"],
        default="handshake",
        help="handshake: initialize (2025-11-25); modern: server/discover (2026-07-28)",
    )
    ap.add_argument("--timeout", type=float, default=60.0, help="overall deadline in seconds (default 60)")
    return ap.parse_args(argv)


def describe(exc: BaseException) -> dict[str, Any]:
    """The innermost meaningful error; anyio wraps task failures in exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return {"type": "jsonrpc", "code": exc.code, "message": exc.error.message, "data": exc.error.data}
    if isinstance(exc, TimeoutError):
        return {"type": "timeout", "message": str(exc) or "deadline exceeded"}
    return {"type": type(exc).__name__, "message": str(exc)}


def call_entry(name: str, result: CallToolResult) -> dict[str, Any]:
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    return {
        "name": name,
        "is_error": bool(result.is_error),
        "structured": result.structured_content,
        "text": "\n".join(texts) if texts else None,
    }


async def run(args: argparse.Namespace, report: dict[str, Any]) -> bool:
    """Fill `report` step by step (so a late failure still prints what worked); True if all succeeded."""
    headers = dict(args.header)
    if args.key:
        headers["Authorization"] = f"Bearer {args.key}"
    ok = True

    async def note_http_error(response: httpx2.Response) -> None:
        # The SDK turns a 4xx/5xx into a generic JSON-RPC error; keep the status for the report.
        # Only POSTs count: a 405 on the optional GET stream or the session DELETE is no failure.
        if response.request.method == "POST" and response.status_code >= 400 and "http_status" not in report:
            report["http_status"] = response.status_code

    http = httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(30.0, read=args.timeout),
        event_hooks={"response": [note_http_error]},
    )
    async with http, streamable_http_client(args.url, http_client=http) as (read, write):
        async with ClientSession(read, write, client_info=CLIENT_INFO) as session:
            if args.era == "modern":
                await session.discover()
            else:
                await session.initialize()
            info = session.server_info
            report["server"] = {
                "name": info.name if info else None,
                "version": info.version if info else None,
                "protocol_version": session.protocol_version,
            }

            names: list[str] = []
            cursor: str | None = None
            while True:
                params = {"cursor": cursor} if cursor else None
                listing = await session.list_tools(params=params)
                names.extend(tool.name for tool in listing.tools)
                cursor = listing.next_cursor
                if not cursor:
                    break
            report["tools"] = names

            for name, arguments in args.call:
                try:
                    result = await session.call_tool(name, arguments)
                except (MCPError, RuntimeError) as e:
                    # RuntimeError: the SDK's verdict on structuredContent that breaks the outputSchema.
                    ok = False
                    report["calls"].append({"name": name, "error": describe(e)})
                    continue
                if not isinstance(result, CallToolResult):
                    ok = False
                    report["calls"].append(
                        {"name": name, "error": {"type": "unexpected_result", "message": type(result).__name__}}
                    )
                    continue
                report["calls"].append(call_entry(name, result))
    return ok


async def run_with_deadline(args: argparse.Namespace, report: dict[str, Any]) -> bool:
    with anyio.fail_after(args.timeout):
        return await run(args, report)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report: dict[str, Any] = {"server": None, "tools": None, "calls": []}
    try:
        ok = anyio.run(run_with_deadline, args, report)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - every failure becomes a reported protocol error
        ok = False
        report["error"] = describe(e)
    json.dump(report, sys.stdout, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
    if not ok:
        detail = report.get("error") or next((c["error"] for c in report["calls"] if "error" in c), None)
        print(f"python_client: protocol failure: {json.dumps(detail, default=str)}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
