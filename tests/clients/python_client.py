#!/usr/bin/env python3
"""Drive an MCP server with the official Python SDK (`mcp`) over Streamable HTTP.

Connects to --url (with `Authorization: Bearer <--key>` when --key is given, or through OAuth with
--oauth), negotiates the protocol (the `initialize` handshake by default, `server/discover` with
--era modern), lists the tools, calls each --call NAME=JSONARGS in order, lists the prompts when
the server offers them, gets each --prompt NAME=JSONARGS, asks each --complete REF ARG=VALUE
(REF is prompt:NAME or resource:URI-TEMPLATE), reads each --read URI (resources/read), and prints
ONE JSON document on stdout:

    {"server": {"name", "version", "protocol_version", "capabilities"},
     "tools": [names],
     "calls": [{"name", "is_error", "structured", "text", "content"}],
     "reads": [{"uri", "contents"}],
     "prompts": [{"name", "title", "arguments": [{"name", "required"}]}],
     "prompt_results": [{"name", "messages": [{"role", "text"}]}],
     "completions": [{"ref", "argument", "values", "total", "has_more", "ms"}]}

With --task NAME=JSONARGS the tool is called as an MCP task, after the --call calls: on
2026-07-28 (--era modern) the client declares the tasks extension (io.modelcontextprotocol/tasks)
and claims the `resultType: "task"` answer through the SDK's extension mechanism
(`ResultClaim`), then the claim's resolver polls `tasks/get` (with `Mcp-Name`) until the task is no longer
working and hands the SDK the inlined tool result; on 2025-11-25 it sends `params.task` (the SDK's
own models of that generation) and reads `tasks/get`, then `tasks/result`. The entry is a call's,
plus "task": {"id", "statuses": [each status read, in order], "created": the answer that
created it}.

With --progress every call passes the SDK a progress callback (the SDK then sends a
`progressToken` in the call's `_meta`), and its entry gets "progress": [{"progress", "total",
"message"}], the notifications received before the result, in order.

"content" lists a result's blocks other than text, and "contents" a read's, as sent (camelCase),
with base64 `data`/`blob` replaced by `bytes` (the decoded length) and `head` (the first 8 decoded
bytes, Latin-1), so a report stays small and says what the document is.

A call the server answers with a JSON-RPC error gets an "error": {"type", "code", "message"} entry
instead of its result; a failure before the tool list adds a top-level "error": {"type", "message"};
the first HTTP status >= 400 of a POST (e.g. 401 without a valid key) is reported as "http_status".

With --oauth the SDK's own OAuth client (`mcp.client.auth.OAuthClientProvider`) authorizes: from
the server's 401 it finds the protected resource metadata (RFC 9728) and the authorization
server's metadata (RFC 8414), registers a public client dynamically (RFC 7591,
token_endpoint_auth_method none, redirect URI http://127.0.0.1:33418/callback, where nothing
listens), sends the authorization request with PKCE S256 and the resource parameter (RFC 8707)
and exchanges the code at the token endpoint. Tokens and the registration live in memory only.
This script plays the person's browser: it follows the authorization server's redirects with a
cookie jar of its own (per host and port) until one goes to the redirect URI, and hands the code,
state and iss from there to the SDK. That needs an authorization server that logs in without a
person; tests/tools/oidc/op.mjs logs in the --oauth-user the browser adds as login_hint. A
consent page on the way (hosted-mcp as the authorization server: a form with a `decision`
button) is approved by posting its form. --oauth-scope replaces the scope the SDK put in the
authorization request (the person asks for other scopes). --oauth-refresh, after the calls, makes
the SDK's token look expired and lists the tools once more, so the SDK refreshes it first.
--oauth-client cimd names the client by the URL of its metadata document instead of registering
(Client ID Metadata Documents, the SDK's `client_metadata_url`, which it takes only over https):
the script serves the document itself at https://127.0.0.1:<port>/client.json with the
certificate and PKCS#8 key of --oauth-cimd-cert (DER files; the server must trust that
certificate). --oauth-client both connects twice: by registration, then by the document, whose
run is reported as a whole under "cimd".
The report gets

    "oauth": {"client_id", "token_scope", "resource" (sent in the authorization request),
              "consent": true when a consent page was approved,
              "refreshed": with --oauth-refresh, whether a new refresh token came back,
              "first_call_s": seconds from the start of the connection to the first call's answer,
              "browser_requests": the requests the browser made, from the authorization request
                                  to the redirect URI (the IdP's and the consent page's included),
              "steps": [URLs without query, in order: the request answered 401 (or 403), each
                        discovery, registration and token request the SDK made, and the
                        authorization request the browser was sent to]}

and "http_status" only for a status the OAuth flow did not resolve (the 401 that started a
successful flow is in "steps"). No token is ever printed.

With --connect (and --oauth --oauth-user WHO) the client connects the person's own upstream
account when a call asks for it, as the person would in a browser: it opens the link (following
redirects by hand, a cookie jar per host and port, login_hint WHO at each authorization request:
first our authorization server, then the upstream's), then the call goes on. `--connect link`
declares no elicitation: a result `connection_required` with `connect_url` is opened and the call
made once more. `--connect elicit` declares elicitation (form and url): on 2026-07-28 the SDK
hands the `input_required` URL request to the callback, which opens it and accepts (the SDK then
retries the call itself); on 2025-11-25 the server answers JSON-RPC error -32042
(`URLElicitationRequiredError`), whose `data.elicitations` URLs are opened before the call is
made once more (the SDK's ClientSession leaves the 2026-07-28 round to its caller: this script
answers the URL requests and calls again with the answers and the server's state). The call's
entry gets "connected": {"via": "result" | "url_elicitation" |
"url_error", "pages": [the final HTTP status of each link opened]}.

Exit status: 0 when every step succeeded (tool results with isError=true count as success: that
is the server reporting a tool failure correctly), 1 on any protocol failure (connection, HTTP
status, JSON-RPC error, a result that does not match the tool's outputSchema, timeout), 2 on
bad command-line arguments.

Run it with the Python from .tools/venv (tests/tools/install.sh), for example:

    .tools/venv/bin/python tests/clients/python_client.py --url http://127.0.0.1:8767/mcp \
        --key "$KEY" --call 'papierkram_invoices_list={"page_size": 5}' --call 'echo={"text": "hi"}'
    .tools/venv/bin/python tests/clients/python_client.py --url http://127.0.0.1:8767/mcp \
        --oauth --oauth-user alice@example.com --era modern
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import ssl
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import anyio
import httpx2
from pydantic import Field
from mcp import ClientSession
from mcp import types
from mcp.client.auth import OAuthClientProvider
from mcp.client.extension import ClaimContext, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CallToolResult,
    ElicitResult,
    Implementation,
    InputRequiredResult,
    PromptReference,
    ResourceTemplateReference,
    TextContent,
)

CLIENT_INFO = Implementation(name="hosted-mcp-python-client", version="0.1.0")

# The 2026-07-28 tasks extension (SEP-2663).
TASKS = "io.modelcontextprotocol/tasks"
# How often a task is read while it works, at least (the server's pollIntervalMs may say more).
TASK_POLL_S = 0.25


class CreatedTask(types.Result):
    """A 2026-07-28 `tools/call` answered with a task (`resultType: "task"`)."""

    model_config = {"extra": "allow"}
    result_type: Literal["task"] = Field(alias="resultType", default="task")
    task_id: str = Field(alias="taskId")
    status: str
    poll_interval_ms: int | None = Field(alias="pollIntervalMs", default=None)


class DetailedTask(types.Result):
    """A 2026-07-28 `tasks/get` answer: the task, with the result inlined once completed."""

    model_config = {"extra": "allow"}
    status: str
    result: dict[str, Any] | None = None


class ModernGetTask(types.GetTaskRequest):
    """`tasks/get` of the extension, its task id mirrored into the `Mcp-Name` header."""

    name_param = "taskId"


async def follow_task(session: ClientSession, created: CreatedTask, seen: list[str]) -> CallToolResult:
    """Reads a 2026-07-28 task until it is no longer working; its inlined tool result."""
    every = max(TASK_POLL_S, (created.poll_interval_ms or 0) / 1000)
    while True:
        got = await session.send_request(
            ModernGetTask(params=types.GetTaskRequestParams(taskId=created.task_id)), DetailedTask
        )
        seen.append(got.status)
        if got.status != "working":
            break
        await anyio.sleep(every)
    if got.status != "completed" or got.result is None:
        raise RuntimeError(f"task {created.task_id} ended {got.status}")
    return CallToolResult.model_validate(got.result)

# Registered as the client's redirect URI; the browser below stops before it, so nothing listens.
REDIRECT_URI = "http://127.0.0.1:33418/callback"
# Redirects the browser follows at most between the authorization request and the redirect URI.
MAX_AUTHORIZE_REDIRECTS = 20


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


def parse_complete(spec: str) -> tuple[str, str, str]:
    """`prompt:NAME ARG=VALUE` or `resource:URI ARG=VALUE` (VALUE may be empty)."""
    ref, sep, rest = spec.rpartition(" ")
    arg, eq, value = rest.partition("=")
    if not sep or not eq or not arg or not ref.startswith(("prompt:", "resource:")):
        raise argparse.ArgumentTypeError(f"--complete {spec!r}: expected 'prompt:NAME ARG=VALUE' or 'resource:URI ARG=VALUE'")
    return ref, arg, value


def parse_header(spec: str) -> tuple[str, str]:
    name, sep, value = spec.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"--header {spec!r}: expected 'Name: value'")
    return name.strip(), value.strip()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="MCP endpoint, e.g. http://127.0.0.1:8767/mcp")
    auth = ap.add_mutually_exclusive_group()
    auth.add_argument("--key", help="API key sent as 'Authorization: Bearer KEY' (omit for no auth header)")
    auth.add_argument(
        "--oauth",
        action="store_true",
        help="authorize with OAuth: discovery from the 401, dynamic registration, authorization code with PKCE",
    )
    ap.add_argument(
        "--oauth-user",
        metavar="EMAIL",
        help="with --oauth: sent as login_hint in the authorization request (who logs in at the test provider)",
    )
    ap.add_argument(
        "--oauth-scope",
        metavar="'SCOPE ...'",
        help="with --oauth: the scope the person agrees to, replacing the one the SDK asks for "
        "(default: the SDK's choice, from the 401 or the metadata)",
    )
    ap.add_argument(
        "--oauth-client",
        choices=["dcr", "cimd", "both"],
        default="dcr",
        help="with --oauth: register dynamically (dcr, the default), name the client by its metadata "
        "document's https URL (cimd, needs --oauth-cimd-cert), or connect once each way (both)",
    )
    ap.add_argument(
        "--oauth-cimd-cert",
        metavar="CERT.der,KEY.der",
        help="with --oauth-client cimd or both: the certificate (for 127.0.0.1) and PKCS#8 key the "
        "client's metadata document is served with",
    )
    ap.add_argument(
        "--oauth-refresh",
        action="store_true",
        help="with --oauth: after the calls, let the SDK's token expire and list the tools again "
        "(the SDK refreshes it); the report's oauth.refreshed says whether a new refresh token came",
    )
    ap.add_argument(
        "--call",
        action="append",
        default=[],
        type=parse_call,
        metavar="NAME=JSONARGS",
        help="call tool NAME with the JSON object JSONARGS; repeatable, calls run in order",
    )
    ap.add_argument(
        "--task",
        action="append",
        default=[],
        type=parse_call,
        metavar="NAME=JSONARGS",
        help="call tool NAME as an MCP task (after the --call calls); repeatable",
    )
    ap.add_argument(
        "--progress",
        action="store_true",
        help="ask for progress notifications on every call (a progressToken) and report them",
    )
    ap.add_argument(
        "--prompt",
        action="append",
        default=[],
        type=parse_call,
        metavar="NAME=JSONARGS",
        help="get prompt NAME with the JSON object JSONARGS (string values); repeatable",
    )
    ap.add_argument(
        "--complete",
        action="append",
        default=[],
        type=parse_complete,
        metavar="'REF ARG=VALUE'",
        help="completion/complete of ARG typed as VALUE for REF (prompt:NAME or resource:URI); repeatable",
    )
    ap.add_argument(
        "--read",
        action="append",
        default=[],
        metavar="URI",
        help="resources/read URI after the calls; repeatable",
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
    ap.add_argument(
        "--connect",
        choices=["link", "elicit"],
        help="with --oauth-user: connect the person's own upstream account when a call asks "
        "(link: open connect_url from the result; elicit: declare URL elicitation)",
    )
    ap.add_argument("--timeout", type=float, default=60.0, help="overall deadline in seconds (default 60)")
    args = ap.parse_args(argv)
    if not args.oauth and (args.oauth_user or args.oauth_scope or args.oauth_refresh):
        ap.error("--oauth-user, --oauth-scope and --oauth-refresh need --oauth")
    if args.oauth_client != "dcr" and not args.oauth_cimd_cert:
        ap.error("--oauth-client cimd or both needs --oauth-cimd-cert CERT.der,KEY.der")
    if args.connect and not args.oauth_user:
        ap.error("--connect needs --oauth --oauth-user (the person who connects)")
    return args


def describe(exc: BaseException) -> dict[str, Any]:
    """The innermost meaningful error; anyio wraps task failures in exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return {"type": "jsonrpc", "code": exc.code, "message": exc.error.message, "data": exc.error.data}
    if isinstance(exc, TimeoutError):
        return {"type": "timeout", "message": str(exc) or "deadline exceeded"}
    return {"type": type(exc).__name__, "message": str(exc)}


def summary(block: Any) -> dict[str, Any]:
    """A content block or resource contents as sent, base64 replaced by its length and head."""
    wire = block.model_dump(by_alias=True, exclude_none=True, mode="json")
    for field in ("data", "blob"):
        if isinstance(wire.get(field), str):
            raw = base64.b64decode(wire.pop(field), validate=True)
            wire["bytes"] = len(raw)
            wire["head"] = raw[:8].decode("latin-1")
    resource = wire.get("resource")
    if isinstance(resource, dict) and isinstance(resource.get("blob"), str):
        raw = base64.b64decode(resource.pop("blob"), validate=True)
        resource["bytes"] = len(raw)
        resource["head"] = raw[:8].decode("latin-1")
    return wire


def call_entry(name: str, result: CallToolResult) -> dict[str, Any]:
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    return {
        "name": name,
        "is_error": bool(result.is_error),
        "structured": result.structured_content,
        "text": "\n".join(texts) if texts else None,
        "content": [summary(block) for block in result.content if not isinstance(block, TextContent)],
    }


def without_query(url: str | httpx2.URL) -> str:
    parts = urlsplit(str(url))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def keep_cookies(jar: dict[str, str], response: httpx2.Response) -> None:
    """The response's `Set-Cookie` values in `jar` (an empty value removes the cookie)."""
    for line in response.headers.get_list("set-cookie"):
        name, _, value = line.split(";", 1)[0].partition("=")
        if value:
            jar[name.strip()] = value
        else:
            jar.pop(name.strip(), None)


def consent_form(page: str) -> tuple[str, dict[str, str]] | None:
    """A consent page's form (its action and hidden fields, plus decision=approve), if `page` is one."""
    action = re.search(r'<form method="post" action="([^"]+)"', page)
    if action is None or 'name="decision" value="approve"' not in page:
        return None
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    fields = {k: v.replace("&amp;", "&").replace("&quot;", '"') for k, v in fields.items()}
    return action.group(1), {**fields, "decision": "approve"}


class MemoryTokenStorage:
    """The SDK's `TokenStorage`: tokens and the client registration for this run only."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


# The client's metadata, registered (RFC 7591) or served as its metadata document (CIMD).
CLIENT_METADATA: dict[str, Any] = {
    "redirect_uris": [REDIRECT_URI],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
    "client_name": CLIENT_INFO.name,
}


def serve_client_metadata(cert_and_key: str) -> str:
    """Serve this client's metadata document over https on loopback (a daemon thread, for as long
    as the process runs): its URL, which is its client_id."""
    cert_der, key_der = (Path(p).read_bytes() for p in cert_and_key.split(","))
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    # ssl loads PEM files only: written for the load, removed after it.
    with tempfile.TemporaryDirectory(prefix="cimd-") as tmp:
        pems = Path(tmp)
        (pems / "cert.pem").write_text(ssl.DER_cert_to_PEM_cert(cert_der))
        key_b64 = base64.encodebytes(key_der).decode()
        (pems / "key.pem").write_text(f"-----BEGIN PRIVATE KEY-----\n{key_b64}-----END PRIVATE KEY-----\n")
        tls.load_cert_chain(pems / "cert.pem", pems / "key.pem")
    document: dict[str, Any] = {}

    class Document(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            body = json.dumps(document).encode()
            self.send_response(200 if self.path == "/client.json" else 404)
            self.send_header("content-type", "application/json")
            self.send_header("cache-control", "max-age=300")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Document)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    url = f"https://127.0.0.1:{server.server_address[1]}/client.json"
    document.update(CLIENT_METADATA, client_id=url)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return url


class OAuthRun:
    """OAuth for one run: the SDK's provider, the person's browser, and what goes in the report.

    `report["oauth"]` is filled as the flow goes, so a flow that fails shows how far it got.
    """

    def __init__(self, args: argparse.Namespace, report: dict[str, Any]) -> None:
        self.mcp_url = without_query(args.url)
        self.login_hint: str | None = args.oauth_user
        self.scope: str | None = args.oauth_scope
        self.timeout = args.timeout
        self.storage = MemoryTokenStorage()
        self.steps: list[str] = []
        self.info: dict[str, Any] = {"client_id": None, "token_scope": None, "resource": None, "steps": self.steps}
        report["oauth"] = self.info
        # A 401/403 challenge no token has answered yet: reported as http_status if none does.
        self.unanswered: int | None = None
        self.answered_with: OAuthToken | None = None
        self.result: AuthorizationCodeResult | None = None
        self.started = time.perf_counter()
        document_url = serve_client_metadata(args.oauth_cimd_cert) if args.oauth_client == "cimd" else None
        self.provider = OAuthClientProvider(
            server_url=args.url,
            client_metadata=OAuthClientMetadata(**CLIENT_METADATA),
            storage=self.storage,
            redirect_handler=self.browse,
            callback_handler=self.callback,
            client_metadata_url=document_url,
        )

    def is_challenge(self, response: httpx2.Response) -> bool:
        return without_query(response.request.url) == self.mcp_url and response.status_code in (401, 403)

    async def on_response(self, response: httpx2.Response) -> None:
        """Event hook of the MCP client, whose requests include the SDK's discovery, registration
        and token requests: a challenge from the MCP endpoint is a step."""
        # First what the SDK stored since the last response: a new token (a new object each
        # time) answers the challenge before it; the response then is to a request carrying it.
        if self.storage.client_info is not None:
            self.info["client_id"] = self.storage.client_info.client_id
        if self.storage.tokens is not None and self.storage.tokens is not self.answered_with:
            self.answered_with = self.storage.tokens
            self.info["token_scope"] = self.storage.tokens.scope
            self.unanswered = None
        if self.is_challenge(response):
            self.unanswered = response.status_code
            self.steps.append(without_query(response.request.url))

    async def on_request(self, request: httpx2.Request) -> None:
        """Event hook: a step for each request of the SDK's flow, answered or not."""
        if without_query(request.url) != self.mcp_url:
            self.steps.append(without_query(request.url))

    async def browse(self, authorization_url: str) -> None:
        """The SDK's redirect_handler: what a person's browser would do with the authorization URL,
        without the person (the test authorization server logs in and consents by itself)."""
        self.steps.append(without_query(authorization_url))
        parts = urlsplit(authorization_url)
        query = dict(parse_qsl(parts.query))
        self.info["resource"] = query.get("resource")
        if self.login_hint:
            query["login_hint"] = self.login_hint
        if self.scope:
            query["scope"] = self.scope
        url = urlunsplit(parts._replace(query=urlencode(query)))
        # A cookie jar per host and port, kept by hand: httpx's jar would not send a `Secure`
        # (`__Host-`) cookie over the loopback's plain http, as browsers do.
        jars: dict[str, dict[str, str]] = {}
        async with httpx2.AsyncClient(follow_redirects=False, timeout=httpx2.Timeout(self.timeout)) as browser:
            form: dict[str, str] | None = None
            for _ in range(MAX_AUTHORIZE_REDIRECTS):
                self.info["browser_requests"] = self.info.get("browser_requests", 0) + 1
                jar = jars.setdefault(urlsplit(url).netloc, {})
                headers = {"cookie": "; ".join(f"{k}={v}" for k, v in jar.items())} if jar else {}
                if form is None:
                    response = await browser.get(url, headers=headers)
                else:
                    response = await browser.post(url, data=form, headers=headers)
                    form = None
                keep_cookies(jar, response)
                location = response.headers.get("location")
                if response.status_code == 200 and (consent := consent_form(response.text)) is not None:
                    # The authorization server's consent page: the person approves.
                    self.info["consent"] = True
                    url, form = urljoin(str(response.url), consent[0]), consent[1]
                    continue
                if not response.is_redirect or not location:
                    raise RuntimeError(
                        f"authorization stopped at {without_query(url)}: HTTP {response.status_code} "
                        f"{response.text[:300]}"
                    )
                url = urljoin(str(response.url), location)
                if url.startswith(REDIRECT_URI):
                    break
            else:
                raise RuntimeError(f"authorization did not reach {REDIRECT_URI} in {MAX_AUTHORIZE_REDIRECTS} redirects")
        answer = dict(parse_qsl(urlsplit(url).query))
        if "error" in answer:
            raise RuntimeError(f"authorization refused: {answer['error']}: {answer.get('error_description', '')}")
        self.result = AuthorizationCodeResult(
            code=answer.get("code", ""), state=answer.get("state"), iss=answer.get("iss")
        )

    async def refresh(self, session: ClientSession) -> bool:
        """The token made to look expired, then one request: the SDK refreshes it first. True when
        a new refresh token came back (rotation) and the request succeeded."""
        before = self.storage.tokens.refresh_token if self.storage.tokens else None
        self.provider.context.token_expiry_time = time.time() - 1
        try:
            await session.list_tools()
        except MCPError as e:
            self.info["refreshed"] = False
            self.info["refresh_error"] = describe(e)
            return False
        after = self.storage.tokens.refresh_token if self.storage.tokens else None
        self.info["refreshed"] = before is not None and after is not None and after != before
        return bool(self.info["refreshed"])

    async def callback(self) -> AuthorizationCodeResult:
        """The SDK's callback_handler: the redirect URI's parameters `browse` stopped at."""
        if self.result is None:
            raise RuntimeError("no authorization response")
        result, self.result = self.result, None
        return result

    def finish(self, report: dict[str, Any]) -> None:
        if self.storage.tokens is not None:
            self.info["token_scope"] = self.storage.tokens.scope
        if self.storage.client_info is not None:
            self.info["client_id"] = self.storage.client_info.client_id
        if self.unanswered is not None and "http_status" not in report:
            report["http_status"] = self.unanswered


async def run(args: argparse.Namespace, report: dict[str, Any]) -> bool:
    """Fill `report` step by step (so a late failure still prints what worked); True if all succeeded."""
    headers = dict(args.header)
    if args.key:
        headers["Authorization"] = f"Bearer {args.key}"
    oauth = OAuthRun(args, report) if args.oauth else None

    async def note_http_error(response: httpx2.Response) -> None:
        # The SDK turns a 4xx/5xx into a generic JSON-RPC error; keep the status for the report.
        # Only POSTs count: a 405 on the optional GET stream or the session DELETE is no failure.
        # With OAuth, a challenge counts only if no token answers it (OAuthRun.finish), and the
        # authorization server's answers are steps, not the MCP server's status.
        if oauth is not None:
            await oauth.on_response(response)
            if oauth.is_challenge(response) or without_query(response.request.url) != oauth.mcp_url:
                return
        if response.request.method == "POST" and response.status_code >= 400 and "http_status" not in report:
            report["http_status"] = response.status_code

    http = httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(30.0, read=args.timeout),
        event_hooks={"request": [oauth.on_request] if oauth else [], "response": [note_http_error]},
        auth=oauth.provider if oauth else None,
    )
    try:
        return await drive_session(args, report, http, oauth)
    finally:
        if oauth is not None:
            oauth.finish(report)


async def drive_session(
    args: argparse.Namespace, report: dict[str, Any], http: httpx2.AsyncClient, oauth: OAuthRun | None = None
) -> bool:
    """Negotiate, list the tools and make the calls; True if every step succeeded."""
    ok = True
    # What the URL elicitation callback opened during the current call (--connect elicit).
    opened: list[int] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        if getattr(params, "mode", None) != "url":
            return ElicitResult(action="decline")
        opened.append(await open_as(params.url, args.oauth_user, args.timeout))
        return ElicitResult(action="accept")

    elicit = on_elicit if args.connect == "elicit" else None
    # The statuses the current task was read with, and the answer that created it.
    seen: list[str] = []
    created_as: list[dict[str, Any]] = []

    async def resolve(created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        created_as.append(created.model_dump(by_alias=True, exclude_none=True))
        return await follow_task(ctx.session, created, seen)

    tasks: dict[str, Any] = {}
    if args.task and args.era == "modern":
        claim = ResultClaim(result_type="task", model=CreatedTask, resolve=resolve)
        tasks = {"extensions": {TASKS: {}}, "result_claims": {TASKS: [claim]}}
    async with http, streamable_http_client(args.url, http_client=http) as (read, write):
        async with ClientSession(
            read, write, client_info=CLIENT_INFO, elicitation_callback=elicit, **tasks
        ) as session:
            if args.era == "modern":
                await session.discover()
            else:
                await session.initialize()
            info = session.server_info
            capabilities = session.server_capabilities
            report["server"] = {
                "name": info.name if info else None,
                "version": info.version if info else None,
                "protocol_version": session.protocol_version,
                "capabilities": capabilities.model_dump(exclude_none=True) if capabilities else None,
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
                received: list[dict[str, Any]] = []

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    received.append({"progress": progress, "total": total, "message": message})

                opened.clear()
                connected: dict[str, Any] | None = None
                try:
                    try:
                        result = await session.call_tool(
                            name,
                            arguments,
                            progress_callback=on_progress if args.progress else None,
                            allow_input_required=args.connect == "elicit",
                        )
                        if isinstance(result, InputRequiredResult):
                            # 2026-07-28: each URL request opened and accepted, then the call
                            # again with the answers and the server's state (ClientSession leaves
                            # the round to its caller).
                            answers = {}
                            for key, request in (result.input_requests or {}).items():
                                answers[key] = await on_elicit(None, request.params)
                            result = await session.call_tool(
                                name, arguments, input_responses=answers, request_state=result.request_state
                            )
                    except MCPError as e:
                        if not (args.connect == "elicit" and e.code == -32042 and elicitation_urls(e)):
                            raise
                        pages = [await open_as(u, args.oauth_user, args.timeout) for u in elicitation_urls(e)]
                        connected = {"via": "url_error", "pages": pages}
                        result = await session.call_tool(name, arguments)
                    if opened:
                        connected = {"via": "url_elicitation", "pages": list(opened)}
                    link = (result.structured_content or {}) if isinstance(result, CallToolResult) else {}
                    if args.connect == "link" and link.get("status") == "connection_required" and link.get("connect_url"):
                        page = await open_as(link["connect_url"], args.oauth_user, args.timeout)
                        connected = {"via": "result", "pages": [page]}
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
                entry = call_entry(name, result)
                if connected is not None:
                    entry["connected"] = connected
                if args.progress:
                    entry["progress"] = received
                report["calls"].append(entry)
                if oauth is not None and "first_call_s" not in oauth.info:
                    oauth.info["first_call_s"] = round(time.perf_counter() - oauth.started, 3)

            if args.oauth_refresh and oauth is not None:
                ok = await oauth.refresh(session) and ok

            for name, arguments in args.task:
                seen.clear()
                created_as.clear()
                try:
                    if args.era == "modern":
                        # ClientSession parses the claimed task answer and leaves resolving it
                        # to its caller (the high-level Client would call the resolver itself).
                        result = await session.call_tool(name, arguments, allow_claimed=True)
                        if isinstance(result, CreatedTask):
                            result = await resolve(result, ClaimContext(session=session, tool_name=name, read_timeout_seconds=None))
                    else:
                        result = await older_task(session, name, arguments, seen, created_as)
                except (MCPError, RuntimeError) as e:
                    ok = False
                    report["calls"].append({"name": name, "error": describe(e)})
                    continue
                entry = call_entry(name, result)
                created = created_as[0] if created_as else {}
                entry["task"] = {"id": created.get("taskId"), "statuses": list(seen), "created": created}
                report["calls"].append(entry)

            for uri in args.read:
                try:
                    got = await session.read_resource(uri)
                except MCPError as e:
                    ok = False
                    report["reads"].append({"uri": uri, "error": describe(e)})
                    continue
                report["reads"].append({"uri": uri, "contents": [summary(c) for c in got.contents]})

            if capabilities is not None and capabilities.prompts is not None:
                listing = await session.list_prompts()
                report["prompts"] = [
                    {
                        "name": p.name,
                        "title": p.title,
                        "arguments": [{"name": a.name, "required": bool(a.required)} for a in p.arguments or []],
                    }
                    for p in listing.prompts
                ]
            for name, arguments in args.prompt:
                try:
                    got = await session.get_prompt(name, {k: str(v) for k, v in arguments.items()})
                except MCPError as e:
                    ok = False
                    report["prompt_results"].append({"name": name, "error": describe(e)})
                    continue
                messages = [
                    {"role": m.role, "text": m.content.text if isinstance(m.content, TextContent) else None}
                    for m in got.messages
                ]
                report["prompt_results"].append({"name": name, "messages": messages})
            for ref, argument, value in args.complete:
                kind, _, target = ref.partition(":")
                reference = PromptReference(name=target) if kind == "prompt" else ResourceTemplateReference(uri=target)
                entry: dict[str, Any] = {"ref": ref, "argument": argument, "value": value}
                started = time.perf_counter()
                try:
                    answer = await session.complete(reference, {"name": argument, "value": value})
                except MCPError as e:
                    ok = False
                    entry["error"] = describe(e)
                else:
                    entry.update(
                        values=answer.completion.values,
                        total=answer.completion.total,
                        has_more=answer.completion.has_more,
                    )
                entry["ms"] = round((time.perf_counter() - started) * 1000, 2)
                report["completions"].append(entry)
    return ok


async def older_task(
    session: ClientSession, name: str, arguments: dict[str, Any], seen: list[str], created_as: list[dict[str, Any]]
) -> CallToolResult:
    """A 2025-11-25 task: the call with `params.task`, `tasks/get` until it is no longer working,
    then `tasks/result`."""
    params = types.CallToolRequestParams(name=name, arguments=arguments, task=types.TaskMetadata(ttl=600_000))
    # The SDK has this generation's task models, but its result check for `tools/call` knows only
    # CallToolResult; the task-augmented call goes through its dispatcher as raw JSON-RPC.
    raw = await session._dispatcher.send_raw_request(  # noqa: SLF001
        "tools/call", params.model_dump(by_alias=True, mode="json", exclude_none=True), {}
    )
    created = types.CreateTaskResult.model_validate(raw, by_name=False)
    task = created.task
    created_as.append(created.model_dump(by_alias=True, exclude_none=True)["task"])
    every = max(TASK_POLL_S, (task.poll_interval or 0) / 1000)
    while True:
        got = await session.send_request(
            types.GetTaskRequest(params=types.GetTaskRequestParams(taskId=task.task_id)), types.GetTaskResult
        )
        seen.append(got.status)
        if got.status not in ("working", "input_required"):
            break
        await anyio.sleep(every)
    payload = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(taskId=task.task_id))
    return await session.send_request(payload, CallToolResult)


async def open_as(url: str, who: str, timeout: float) -> int:
    """Opens a connect link as `who` would in a browser: redirects followed by hand with a cookie
    jar per host and port (two test authorization servers on one host use the same cookie
    names), `login_hint` added to each authorization request. Answers the final page's status."""
    jars: dict[str, dict[str, str]] = {}
    async with httpx2.AsyncClient(follow_redirects=False, timeout=httpx2.Timeout(timeout)) as browser:
        for _ in range(MAX_AUTHORIZE_REDIRECTS):
            parts = urlsplit(url)
            if parts.path.endswith("/auth") and "login_hint=" not in parts.query:
                query = parse_qsl(parts.query) + [("login_hint", who)]
                url = urlunsplit(parts._replace(query=urlencode(query)))
            jar = jars.setdefault(parts.netloc, {})
            headers = {"cookie": "; ".join(f"{k}={v}" for k, v in jar.items())} if jar else {}
            response = await browser.get(url, headers=headers)
            for line in response.headers.get_list("set-cookie"):
                name, _, value = line.split(";", 1)[0].partition("=")
                if value:
                    jar[name.strip()] = value
                else:
                    jar.pop(name.strip(), None)
            location = response.headers.get("location")
            if not response.is_redirect or not location:
                if response.status_code != 200:
                    print(f"connect link stopped at {without_query(url)}: HTTP {response.status_code} "
                          f"{response.text[:300]}", file=sys.stderr)
                return response.status_code
            url = urljoin(str(response.url), location)
    raise RuntimeError(f"the connect link did not land in {MAX_AUTHORIZE_REDIRECTS} redirects")


def elicitation_urls(error: MCPError) -> list[str]:
    """The URLs of a -32042 error's URL-mode elicitations."""
    data = error.error.data if isinstance(error.error.data, dict) else {}
    return [e["url"] for e in data.get("elicitations", []) if isinstance(e, dict) and e.get("mode") == "url"]


async def run_with_deadline(args: argparse.Namespace, report: dict[str, Any]) -> bool:
    with anyio.fail_after(args.timeout):
        if args.oauth_client != "both":
            return await run(args, report)
        ok = await run(argparse.Namespace(**{**vars(args), "oauth_client": "dcr"}), report)
        report["cimd"] = second = new_report()
        return await run(argparse.Namespace(**{**vars(args), "oauth_client": "cimd"}), second) and ok


def new_report() -> dict[str, Any]:
    return {
        "server": None,
        "tools": None,
        "calls": [],
        "prompts": None,
        "prompt_results": [],
        "completions": [],
        "reads": [],
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = new_report()
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
        steps = report["calls"] + report["prompt_results"] + report["completions"] + report["reads"]
        detail = report.get("error") or next((c["error"] for c in steps if "error" in c), None)
        print(f"python_client: protocol failure: {json.dumps(detail, default=str)}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
