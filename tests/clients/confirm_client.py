#!/usr/bin/env python3
"""Call one tool with the official Python `mcp` SDK's high-level `Client` on protocol 2026-07-28,
answering the server's confirmation form (a multi-round-trip input request with a form
elicitation) like a person would: --answer accept ticks the box and accepts, decline declines,
none declares no elicitation capability at all (no callback).

Prints ONE JSON document on stdout:

    {"elicitations": [{"message", "schema"}], "is_error", "structured", "text"}

or {"error": {"type", "message"}} when the call failed as a protocol error. Exit 0 when a result
came back (tool errors included), 1 otherwise, 2 on bad arguments. Run it with .tools/venv/bin/python:

    python tests/clients/confirm_client.py --url http://127.0.0.1:8767/mcp --key "$KEY" \\
        --tool demo_invoice_deliver --args '{"id": 1}' --answer accept
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--key", required=True, help="API key sent as 'Authorization: Bearer KEY'")
    ap.add_argument("--tool", required=True)
    ap.add_argument("--args", default="{}", type=json.loads, help="the tool's arguments, a JSON object")
    ap.add_argument("--answer", choices=["accept", "decline", "none"], default="accept")
    ap.add_argument("--content", type=json.loads, default={"confirm": True},
                    help="what an accepted form answers, a JSON object (default: the confirmation box ticked)")
    ap.add_argument("--timeout", type=float, default=60.0)
    return ap.parse_args(argv)


async def run(args: argparse.Namespace, report: dict[str, Any]) -> None:
    async def on_elicit(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        report["elicitations"].append(
            {"message": params.message, "schema": params.requested_schema}
        )
        if args.answer == "accept":
            return types.ElicitResult(action="accept", content=args.content)
        return types.ElicitResult(action="decline")

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {args.key}"},
        timeout=httpx2.Timeout(30.0, read=args.timeout),
    )
    transport = streamable_http_client(args.url, http_client=http)
    callback = None if args.answer == "none" else on_elicit
    with anyio.fail_after(args.timeout):
        async with http, Client(transport, mode="2026-07-28", elicitation_callback=callback) as client:
            result = await client.call_tool(args.tool, args.args)
        texts = [b.text for b in result.content if isinstance(b, TextContent)]
        report["is_error"] = bool(result.is_error)
        report["structured"] = result.structured_content
        report["text"] = "\n".join(texts) if texts else None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report: dict[str, Any] = {"elicitations": []}
    ok = True
    try:
        anyio.run(run, args, report)
    except BaseException as e:  # noqa: BLE001 - every failure is reported
        while isinstance(e, BaseExceptionGroup) and e.exceptions:
            e = e.exceptions[0]
        report["error"] = {"type": type(e).__name__, "message": str(e)}
        ok = False
    json.dump(report, sys.stdout, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
