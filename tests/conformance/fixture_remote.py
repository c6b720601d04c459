#!/usr/bin/env python3
"""The conformance suites' multi-round fixture tools, as a remote MCP server the `test_input_required_result`
connector federates (tests/catalogs/conformance/test_input_required_result.yaml), written with the official
Python SDK (`mcp`, pinned in tests/tools/requirements.txt). `run.sh --fixture-remote` starts it.

Each tool asks the client of its own accord, as the 0.2.0 suite's input-required-result-* scenarios
describe (2026-07-28 `input_required` results, SEP-2322); the platform passes the questions on with
this server's `requestState` wrapped inside its own. Tool names are what they ask; the connector's
naming rule gives the suite's names (`elicitation` -> `test_input_required_result_elicitation`):

    elicitation      a form for the name; answers "Hello, <name>!"
    sampling         one sampling request; answers with the sampled text
    list_roots       roots/list; answers with the roots' URIs
    request_state    a confirmation form with a state; answers "state-ok" when the state comes back
    multiple_inputs  elicitation, sampling and roots/list at once, with a state
    multi_round      two rounds of forms, a new state each round
    tampered_state   a form with a state (the platform's integrity check rejects a changed one)
    capabilities     asks only what the client declared (elicitation and sampling)

and the prompt (input-required-result-non-tool-request: an input request from `prompts/get`):

    prompt           a form for the context; then one user message using it

and, for the server-stateless scenario's diagnostic tools (0.2.0), each federated by its own
connector whose naming rule gives the suite's name (tests/catalogs/conformance/test_missing.yaml,
test_streaming.yaml, test_logging.yaml):

    capability       test_missing_capability: needs the client's sampling capability; without it
                     in the request's clientCapabilities it answers the SDK's JSON-RPC -32021 with
                     requiredCapabilities {"sampling": {}}, with it one sampling request
    elicitation      test_streaming_elicitation (the tool above): its answer is an
                     input_required result, never a request of its own on the response stream
    tool             test_logging_tool: logs one line at info through the SDK, which sends it
                     only when the request set `io.modelcontextprotocol/logLevel`; answers "logged"

and, for the `json` connector (tests/catalogs/conformance/json.yaml), the suite's JSON Schema
2020-12 fixture (json-schema-2020-12: `$schema`, `$defs` with an `$anchor`, `$ref`, `allOf`/`anyOf`,
`if`/`then`/`else`, `additionalProperties: false`), which the platform lists as the remote declares it:

    schema_2020_12_tool  takes a contact with an address; answers what it got
    schema_header_param  takes a `region` its schema marks `x-mcp-header: Region` (SEP-2243: the
                         value comes as the header Mcp-Param-Region too, which the SDK checks)

Every tool says readOnlyHint (they change nothing). An answer that does not carry the expected
key asks again. Binds 127.0.0.1 on --port (0: a free one) and prints `listening 127.0.0.1:PORT`
on stdout once it accepts connections.

    .tools/venv/bin/python tests/conformance/fixture_remote.py --port 0
"""

from __future__ import annotations

import argparse
import socket
import sys

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    ClientCapabilities,
    CreateMessageRequest,
    CreateMessageRequestParams,
    ElicitRequest,
    ElicitRequestFormParams,
    InputRequiredResult,
    ListRootsRequest,
    MissingRequiredClientCapabilityErrorData,
    SamplingCapability,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from mcp_types.jsonrpc import MISSING_REQUIRED_CLIENT_CAPABILITY

READ_ONLY = ToolAnnotations(readOnlyHint=True)
SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


def form(message: str, field: str, kind: str = "string") -> ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def sample(text: str, max_tokens: int) -> CreateMessageRequest:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=text))
    return CreateMessageRequest(params=CreateMessageRequestParams(messages=[message], max_tokens=max_tokens))


def roots() -> ListRootsRequest:
    return ListRootsRequest(params=None)


def answer(ctx: Context, key: str) -> dict | None:
    """The client's answer to `key` as plain JSON, or None when it did not send one."""
    got = (ctx.input_responses or {}).get(key)
    if hasattr(got, "model_dump"):
        got = got.model_dump(by_alias=True, mode="json", exclude_none=True)
    return got if isinstance(got, dict) else None


def build() -> MCPServer:
    server = MCPServer(name="conformance-input-fixtures", version="1.0.0")

    @server.tool(annotations=READ_ONLY, description="Asks for a name with a form, then greets it.")
    async def elicitation(ctx: Context) -> str | InputRequiredResult:
        got = answer(ctx, "user_name")
        if got is None or not isinstance(got.get("content"), dict):
            return InputRequiredResult(input_requests={"user_name": form("What is your name?", "name")})
        return f"Hello, {got['content'].get('name', 'stranger')}!"

    @server.tool(annotations=READ_ONLY, description="Asks the client's model a question, then answers with it.")
    async def sampling(ctx: Context) -> str | InputRequiredResult:
        got = answer(ctx, "capital_question")
        if got is None:
            return InputRequiredResult(
                input_requests={"capital_question": sample("What is the capital of France?", 100)})
        content = got.get("content") or {}
        return f"The model said: {content.get('text', '')}"

    @server.tool(annotations=READ_ONLY, description="Asks for the client's roots, then names them.")
    async def list_roots(ctx: Context) -> str | InputRequiredResult:
        got = answer(ctx, "client_roots")
        if got is None:
            return InputRequiredResult(input_requests={"client_roots": roots()})
        return "Roots: " + ", ".join(r.get("uri", "") for r in got.get("roots", []))

    @server.tool(annotations=READ_ONLY, description="Asks for a confirmation with a state, then checks it.")
    async def request_state(ctx: Context) -> str | InputRequiredResult:
        if answer(ctx, "confirm") is None or ctx.request_state != "confirm-asked":
            return InputRequiredResult(input_requests={"confirm": form("Please confirm", "ok", "boolean")},
                                       request_state="confirm-asked")
        return "state-ok: the requestState came back"

    @server.tool(annotations=READ_ONLY, description="Asks a form, a sampling request and the roots at once.")
    async def multiple_inputs(ctx: Context) -> str | InputRequiredResult:
        keys = ("user_name", "greeting", "client_roots")
        if ctx.request_state != "all-asked" or any(answer(ctx, k) is None for k in keys):
            return InputRequiredResult(
                input_requests={"user_name": form("What is your name?", "name"),
                                "greeting": sample("Generate a greeting", 50),
                                "client_roots": roots()},
                request_state="all-asked")
        return "All three answers arrived."

    @server.tool(annotations=READ_ONLY, description="Asks two forms, one round after the other.")
    async def multi_round(ctx: Context) -> str | InputRequiredResult:
        if ctx.request_state == "round-2" and answer(ctx, "step2") is not None:
            return "Both rounds answered."
        if ctx.request_state == "round-1" and answer(ctx, "step1") is not None:
            return InputRequiredResult(
                input_requests={"step2": form("Step 2: What is your favorite color?", "color")},
                request_state="round-2")
        return InputRequiredResult(input_requests={"step1": form("Step 1: What is your name?", "name")},
                                   request_state="round-1")

    @server.tool(annotations=READ_ONLY, description="Asks a confirmation whose state must come back unchanged.")
    async def tampered_state(ctx: Context) -> str | InputRequiredResult:
        if ctx.request_state == "tamper-check" and answer(ctx, "confirm") is not None:
            return "The state came back unchanged."
        return InputRequiredResult(input_requests={"confirm": form("Please confirm", "ok", "boolean")},
                                   request_state="tamper-check")

    @server.tool(annotations=READ_ONLY, description="Asks only what the client declared it can answer.")
    async def capabilities(ctx: Context) -> str | InputRequiredResult:
        declared = ctx.client_capabilities
        asks = {}
        if declared is not None and declared.elicitation is not None:
            asks["user_name"] = form("What is your name?", "name")
        if declared is not None and declared.sampling is not None:
            asks["greeting"] = sample("Generate a greeting", 50)
        if not asks or all(answer(ctx, k) is not None for k in asks):
            return "Asked only what the client can answer: " + (", ".join(sorted(asks)) or "nothing")
        return InputRequiredResult(input_requests=asks)

    @server.tool(annotations=READ_ONLY, description="Needs the client's sampling capability; asks its model once.")
    async def capability(ctx: Context) -> str | InputRequiredResult:
        declared = ctx.client_capabilities
        if declared is None or declared.sampling is None:
            data = MissingRequiredClientCapabilityErrorData(
                required_capabilities=ClientCapabilities(sampling=SamplingCapability()))
            raise MCPError(code=MISSING_REQUIRED_CLIENT_CAPABILITY,
                           message="capability needs the sampling capability",
                           data=data.model_dump(by_alias=True, mode="json", exclude_none=True))
        got = answer(ctx, "greeting")
        if got is None:
            return InputRequiredResult(input_requests={"greeting": sample("Generate a greeting", 50)})
        return f"The model said: {(got.get('content') or {}).get('text', '')}"

    @server.tool(name="tool", annotations=READ_ONLY, description="Logs one line (sent only when asked), then answers.")
    async def log_line(ctx: Context) -> str:
        await ctx.info("test_logging_tool ran")
        return "logged"

    @server.prompt(description="Asks what context to use, then writes a prompt with it.")
    async def prompt(ctx: Context) -> str | InputRequiredResult:
        got = answer(ctx, "user_context")
        if got is None or not isinstance(got.get("content"), dict):
            return InputRequiredResult(
                input_requests={"user_context": form("What context should the prompt use?", "context")})
        return f"Use this context: {got['content'].get('context', '')}"

    @server.tool(annotations=READ_ONLY, description="Takes a contact with an address (a JSON Schema 2020-12 input).")
    def schema_2020_12_tool(name: str = "", address: dict | None = None, contactMethod: str = "",
                            phone: str = "", email: str = "") -> dict:
        return {"name": name, "address": address, "contactMethod": contactMethod, "phone": phone, "email": email}

    server._tool_manager.get_tool("schema_2020_12_tool").parameters = SCHEMA_2020_12

    @server.tool(annotations=READ_ONLY, description="Echoes a region that travels as a header too.")
    def schema_header_param(region: str, text: str = "") -> dict:
        return {"region": region, "text": text}

    server._tool_manager.get_tool("schema_header_param").parameters = {
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}, "text": {"type": "string"}},
        "required": ["region"],
    }
    return server


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    app = build().streamable_http_app(host="127.0.0.1")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    original = server.startup

    async def startup(sockets=None):
        await original(sockets=sockets)
        print(f"listening 127.0.0.1:{sock.getsockname()[1]}", flush=True)

    server.startup = startup
    server.run(sockets=[sock])
    sys.exit(0)


if __name__ == "__main__":
    main()
