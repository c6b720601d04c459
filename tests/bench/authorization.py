#!/usr/bin/env python3
"""The authorization server's figures (issue 46): what connecting with the URL alone costs.

    .tools/venv/bin/python tests/bench/authorization.py [--server target/debug/mcp-server]
        [--connects 3] [--tokens 50] [--checks 300]

Starts what the end-to-end test starts (tests/tests/it/authorization_server.rs), once:
moto_server (the table and the KMS key, as on Lambda) behind a relay of ours that counts each
AWS request by its `X-Amz-Target`, oidc-provider as the company IdP (tests/tools/oidc/op.mjs),
and mcp-server as its own authorization server. Then measures:

- **pasting the URL → the first tool call**, per client type: the Python SDK's OAuth client
  (tests/clients/python_client.py) registering dynamically (`dcr`) and named by its metadata
  document's https URL (`cimd`), --connects runs each, a fresh process per run. The seconds run
  from the client's start (the URL given, SDK imported) to the first `tools/call` answer; the
  steps are the HTTP requests of the flow (discovery, registration, authorization, the IdP, the
  consent form, the token) and the person's actions (paste the URL, sign in at the IdP, which the
  test IdP does by itself, approve).
- **token issue**: --tokens refresh grants in a row over one keep-alive connection (each rotates
  the refresh token: the take, the family check, the new token's write, one `kms:Sign`), and the
  DynamoDB and KMS requests each one made, counted at the relay; then the same against a second
  server in memory with a key made at start (the server's own share, without moto's).
- **token check**: --checks JSON-RPC `ping`s with our access token, against the same with an
  API key: the difference is the token's verification (signature, claims) on the request path.

Prints a table and writes target/bench/authorization.json. Figures depend on the machine and its
load (a debug build by default: pass a release binary for Lambda-like numbers); quote ratios and
counts, not absolute times. Never run by CI.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import http.client
import json
import os
import secrets
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / ".tools"
sys.path.insert(0, str(REPO / "tests" / "clients"))

import boto3  # noqa: E402 - the venv's
import httpx2  # noqa: E402
from python_client import consent_form, keep_cookies  # noqa: E402

API_KEY = "bench-key-0123456789abcdef0123"
REDIRECT = "http://127.0.0.1:1/callback"
CERT = REPO / "shared/connector/tests/fixtures/self-signed.cert.der"
KEY = REPO / "shared/connector/tests/fixtures/self-signed.key.der"
TABLE = "hosted-mcp-authorization"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Counting:
    """A relay to moto that counts each AWS request by its target (`DynamoDB_20120810.GetItem`)."""

    def __init__(self, moto: str) -> None:
        self.seen: Counter[str] = Counter()
        lock = threading.Lock()
        upstream = urlsplit(moto)
        seen = self.seen

        class Relay(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with lock:
                    seen[self.headers.get("x-amz-target", self.path)] += 1
                conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=10)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                conn.request("POST", self.path, body, headers)
                answer = conn.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                for k, v in answer.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Relay)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def snapshot(self) -> Counter[str]:
        return Counter(self.seen)


def start(cmd: list[str], ready: str, env: dict[str, str] | None = None, stream: str = "stdout") -> tuple[subprocess.Popen, str]:
    """A process and the first line of `stream` containing `ready`."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE, text=True, env=env)
    out = proc.stdout if stream == "stdout" else proc.stderr
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = out.readline()
        if ready in line:
            threading.Thread(target=lambda: [None for _ in out], daemon=True).start()
            return proc, line
        if not line and proc.poll() is not None:
            break
    raise SystemExit(f"{cmd[0]} did not start: {proc.stderr.read() if stream == 'stdout' else ''}")


def wait_port(port: int) -> None:
    import socket

    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def setup() -> tuple[list[subprocess.Popen], Counting, str, str]:
    """moto (the table, the key), the relay and the IdP: the processes, the relay, the IdP's issuer, the key id."""
    moto_port = free_port()
    moto = subprocess.Popen([str(TOOLS / "venv/bin/moto_server"), "-H", "127.0.0.1", "-p", str(moto_port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(moto_port)
    moto_url = f"http://127.0.0.1:{moto_port}"
    aws = {"endpoint_url": moto_url, "region_name": "eu-central-1", "aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
    boto3.client("dynamodb", **aws).create_table(
        TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    key_id = boto3.client("kms", **aws).create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    node = str(TOOLS / "node/node_modules/.bin/node")
    # The IdP's own resource does not matter here: our server only asks it for ID tokens.
    op, line = start([node, str(REPO / "tests/tools/oidc/op.mjs"), "--port", "0", "--resource", "http://127.0.0.1:1/mcp",
                      "--scopes", "mcp:tools", "--exit-with-stdin"], "listening",
                     env={**os.environ, "HOSTED_MCP_TOOLS": str(TOOLS)})
    return [op, moto], Counting(moto_url), line.split("issuer=")[1].strip(), key_id


def serve(server: str, issuer: str, aws: tuple[Counting, str] | None) -> tuple[subprocess.Popen, str, str]:
    """mcp-server as the authorization server, on the table and the key behind the relay (`aws`)
    or in memory with a key made at start: the process, its origin, the resource."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    resource = f"{origin}/mcp"
    reg = httpx2.post(f"{issuer}/reg", json={"redirect_uris": [f"{origin}/oauth/callback"], "token_endpoint_auth_method": "none",
                                             "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]})
    env = {
        "PATH": os.environ.get("PATH", ""), "RUST_LOG": "warn", "MCP_LOG_FORMAT": "text", "MCP_LIMITS": "off",
        "MCP_API_KEYS": f"bench:{API_KEY}", "MCP_PSEUDONYM_PEPPER": "bench-pepper-0123456789abcdef0123",
        "MCP_OAUTH_ISSUER": origin, "MCP_RESOURCE_URL": resource, "MCP_AS_IDP_ISSUER": issuer,
        "MCP_AS_IDP_CLIENT_ID": reg.json()["client_id"],
        "MCP_AS_CIMD_ALLOW_LOOPBACK": "1", "MCP_AS_CIMD_TEST_CA": str(CERT),
    }
    if aws is not None:
        relay, key_id = aws
        env.update({
            "AWS_ENDPOINT_URL": relay.url, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "eu-central-1", "AWS_EC2_METADATA_DISABLED": "true", "MCP_AS_TABLE": TABLE, "MCP_AS_KEY_ID": key_id,
        })
    mcp = subprocess.Popen([server, "serve", "--addr", f"127.0.0.1:{port}"], env=env, cwd="/tmp",
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port(port)
    return mcp, origin, resource


def connect(origin: str, kind: str) -> dict:
    """One Python SDK run: seconds to the first tool call and the flow's HTTP requests."""
    cmd = [str(TOOLS / "venv/bin/python"), str(REPO / "tests/clients/python_client.py"), "--url", f"{origin}/mcp",
           "--era", "modern", "--oauth", "--oauth-client", kind, "--oauth-cimd-cert", f"{CERT},{KEY}",
           "--call", 'search_tools={"query": "invoices"}', "--timeout", "60"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    report = json.loads(out.stdout)
    oauth = report.get("oauth", {})
    if report["calls"][0].get("is_error") is not False:
        raise SystemExit(f"{kind}: {out.stdout} {out.stderr}")
    # The authorization request is among the SDK's steps and the browser's requests.
    requests = len(oauth["steps"]) + oauth["browser_requests"] - 1
    return {"first_call_s": oauth["first_call_s"], "requests": requests, "steps": oauth["steps"],
            "browser_requests": oauth["browser_requests"]}


def tokens(origin: str, resource: str) -> tuple[httpx2.Client, dict, str]:
    """A registered client signed in and approved by hand (as tests/tests/it does): the first tokens."""
    http = httpx2.Client(timeout=10)
    client = http.post(f"{origin}/oauth/register", json={"redirect_uris": [REDIRECT], "client_name": "bench"}).json()["client_id"]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    url = f"{origin}/oauth/authorize?" + urlencode({
        "response_type": "code", "client_id": client, "redirect_uri": REDIRECT, "state": "s", "scope": "mcp:tools",
        "resource": resource, "code_challenge": challenge, "code_challenge_method": "S256"})
    jars: dict[str, dict[str, str]] = {}
    form = None
    while not url.startswith(REDIRECT):
        jar = jars.setdefault(urlsplit(url).netloc, {})
        headers = {"cookie": "; ".join(f"{k}={v}" for k, v in jar.items())}
        answer = http.post(url, data=form, headers=headers) if form else http.get(url, headers=headers)
        form = None
        keep_cookies(jar, answer)
        if answer.status_code == 200 and (consent := consent_form(answer.text)):
            url, form = urljoin(url, consent[0]), consent[1]
            continue
        url = urljoin(url, answer.headers["location"])
    code = dict(parse_qsl(urlsplit(url).query))["code"]
    first = http.post(f"{origin}/oauth/token", data={"grant_type": "authorization_code", "code": code, "client_id": client,
                                                     "redirect_uri": REDIRECT, "code_verifier": verifier}).json()
    return http, first, client


def timed(n: int, step) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        step()
        out.append((time.perf_counter() - started) * 1000)
    return out


def spread(ms: list[float]) -> str:
    return f"{min(ms):.2f} / {statistics.median(ms):.2f} / {max(ms):.2f} ms"


def tokens_and_checks(origin: str, resource: str, args: argparse.Namespace, relay: Counting | None = None) -> dict:
    """Refresh grants in a row (token issue), and `ping`s with our token and with an API key."""
    http, current, client = tokens(origin, resource)
    before = relay.snapshot() if relay else None

    def refresh() -> None:
        nonlocal current
        answer = http.post(f"{origin}/oauth/token", data={"grant_type": "refresh_token", "client_id": client,
                                                          "refresh_token": current["refresh_token"]})
        current = answer.json()
        assert answer.status_code == 200, current

    out: dict = {"token_issue_ms": timed(args.tokens, refresh)}
    if relay is not None and before is not None:
        out["requests_per_refresh"] = {k: v / args.tokens for k, v in (relay.snapshot() - before).items()}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    base = {"content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25"}

    def ping(bearer: str):
        def once() -> None:
            answer = http.post(f"{origin}/mcp", content=body, headers={**base, "authorization": f"Bearer {bearer}"})
            assert answer.status_code == 200, answer.text
        return once

    timed(50, ping(current["access_token"]))  # warm-up
    out["ping_token_ms"] = timed(args.checks, ping(current["access_token"]))
    out["ping_api_key_ms"] = timed(args.checks, ping(API_KEY))
    return out


def main() -> None:
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default=str(target / "debug/mcp-server"))
    ap.add_argument("--connects", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=50)
    ap.add_argument("--checks", type=int, default=300)
    args = ap.parse_args()
    procs, relay, issuer, key_id = setup()
    try:
        results: dict = {"server": args.server, "connect": {}}
        mcp, origin, resource = serve(args.server, issuer, (relay, key_id))
        procs.insert(0, mcp)
        for kind in ("dcr", "cimd"):
            runs = [connect(origin, kind) for _ in range(args.connects)]
            results["connect"][kind] = {"first_call_s": [r["first_call_s"] for r in runs],
                                        "requests": runs[0]["requests"], "steps": runs[0]["steps"],
                                        "browser_requests": runs[0]["browser_requests"]}
        results["aws"] = tokens_and_checks(origin, resource, args, relay)
        mcp, origin, resource = serve(args.server, issuer, None)
        procs.insert(0, mcp)
        results["memory"] = tokens_and_checks(origin, resource, args)
    finally:
        for p in procs:
            p.terminate()
            p.wait()
    out = REPO / "target/bench/authorization.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"server: {args.server}")
    for kind, r in results["connect"].items():
        secs = ", ".join(f"{s:.2f}" for s in r["first_call_s"])
        print(f"{kind:5} paste → first tool call: {secs} s; {r['requests']} HTTP requests before it "
              f"({len(r['steps'])} by the SDK, {r['browser_requests']} by the browser); "
              "3 person steps (paste, sign in, approve)")
    for where, r in (("table and KMS on moto", results["aws"]), ("in memory, local key", results["memory"])):
        print(f"{where}: token issue (refresh) min/median/max {spread(r['token_issue_ms'])}")
        token, key = r["ping_token_ms"], r["ping_api_key_ms"]
        print(f"  ping with our token {spread(token)}; with an API key {spread(key)}; "
              f"check ≈ {statistics.median(token) - statistics.median(key):.3f} ms (median difference)")
    per_refresh = results["aws"]["requests_per_refresh"]
    print("AWS requests per refresh: " + ", ".join(f"{k.split('.')[-1]} {v:g}" for k, v in sorted(per_refresh.items())))
    print(f"written: {out}")


if __name__ == "__main__":
    main()
