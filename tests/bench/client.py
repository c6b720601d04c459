"""Keep-alive HTTP client and statistics for the benchmark driver (stdlib only).

Every server in a run (hosted-mcp, the FastMCP peer, the upstream sandbox) is timed with this same
client, so the Python-side cost is identical on both sides of each ratio. The clock covers sending
the request and reading the whole reply; parsing and checking the reply happen after it stops.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import statistics
import struct
import subprocess
import time

PROTOCOL_VERSION = "2025-11-25"
MCP_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
}


def free_port() -> int:
    """A port the OS just handed out on loopback (closed again, so the server can bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Endpoint:
    """One keep-alive connection to one URL path, sending one fixed request over and over."""

    def __init__(self, port: int, method: str, path: str, headers: dict, body: bytes | None,
                 timeout: float = 10.0):
        self.port, self.method, self.path = port, method, path
        self.headers, self.body, self.timeout = headers, body, timeout
        self.conn: http.client.HTTPConnection | None = None
        self.reconnects = 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def send(self) -> tuple[int, bytes]:
        """One request on the kept-alive connection; (status, body). Raises on transport errors."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            self.conn.request(self.method, self.path, body=self.body, headers=self.headers)
            resp = self.conn.getresponse()
            return resp.status, resp.read()
        except Exception:
            self.close()
            raise

    def prime(self) -> tuple[int, bytes]:
        """An untimed request that reopens the connection if the server closed it while idle
        (uvicorn drops keep-alive connections after 5 s)."""
        try:
            return self.send()
        except (http.client.RemoteDisconnected, ConnectionError, BrokenPipeError):
            self.reconnects += 1
            return self.send()

    def timed(self, n: int, check) -> list[float]:
        """n sequential requests; milliseconds each. `check(status, body)` raises on a bad reply."""
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            status, body = self.send()
            out.append((time.perf_counter() - t0) * 1000.0)
            check(status, body)
        return out


def mcp_call(port: int, method: str, params: dict, token: str | None = None) -> Endpoint:
    """An endpoint posting one JSON-RPC request to /mcp (stateless: no initialize needed)."""
    headers = dict(MCP_HEADERS)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    return Endpoint(port, "POST", "/mcp", headers, body)


def mcp_result(status: int, body: bytes) -> dict:
    """The JSON-RPC result of a reply (application/json or one SSE event), or raise."""
    if status != 200:
        raise RuntimeError(f"HTTP {status}: {body[:200]!r}")
    text = body.decode()
    if text.lstrip().startswith(("event:", "data:")):
        text = "\n".join(l[5:].lstrip() for l in text.splitlines() if l.startswith("data:"))
    msg = json.loads(text)
    if "result" not in msg:
        raise RuntimeError(f"JSON-RPC error: {msg.get('error')}")
    return msg["result"]


INITIALIZE = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
              "clientInfo": {"name": "bench", "version": "1"}}


def raw_mcp_request(port: int, method: str, params: dict, token: str | None = None) -> bytes:
    """The bytes of the same POST /mcp request `mcp_call` sends (for the load generator)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    headers = {"Host": f"127.0.0.1:{port}", **MCP_HEADERS, "Content-Length": str(len(body))}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    head = "POST /mcp HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return (head + "\r\n").encode() + body


def check_ok(status: int, body: bytes) -> None:
    """Any JSON-RPC result (ping answers `{}`)."""
    mcp_result(status, body)


def check_tool_ok(status: int, body: bytes) -> None:
    if mcp_result(status, body).get("isError"):
        raise RuntimeError(f"tool returned isError: {body[:300]!r}")


def check_http_ok(status: int, body: bytes) -> None:
    if status != 200:
        raise RuntimeError(f"HTTP {status}: {body[:200]!r}")
    json.loads(body)


def percentile(sorted_vals: list[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    k = max(0, min(len(sorted_vals) - 1, int(round(p / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[k]


def summary(samples: list[float]) -> dict:
    s = sorted(samples)
    return {
        "n": len(s),
        "min": s[0],
        "median": statistics.median(s),
        "mean": statistics.fmean(s),
        "p95": percentile(s, 95),
        "p99": percentile(s, 99),
        "max": s[-1],
    }


def proc_cpu_ms(pid: int) -> float:
    """User + system CPU time a process (all its threads) has used so far, ms (clock-tick
    resolution, so read it around blocks of many requests)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def proc_memory_kib(pid: int) -> dict:
    """VmRSS (now) and VmHWM (peak) of a process, and the file-backed and anonymous parts of
    VmRSS (RssFile: the pages of the binary and libraries mapped in; RssAnon: heap, stacks,
    relocated data), KiB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssFile", "RssAnon"):
                out[key] = int(value.split()[0])
    return out


def code_kib(pid: int, binary: str) -> dict:
    """How much of the binary's `.text.hot` (the functions a server runs, placed first by
    mcp-server's build script) and of the rest of `.text` the process has mapped now, KiB: the
    pages present in /proc/PID/pagemap. Cold `.text` growing means hot-text.txt no longer matches
    the code (tests/bench/hot_text.py). {} when the binary has no `.text.hot`."""
    sections = {}
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\.text(?:\.hot)?)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)",
                     line)
        if m:
            sections[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    if ".text.hot" not in sections:
        return {}
    real = os.path.realpath(binary)
    with open(f"/proc/{pid}/maps") as f:
        maps = [line.split() for line in f]
    # A position-independent binary: its first mapping (file offset 0) is where address 0 went.
    base = min(int(m[0].split("-")[0], 16) for m in maps
               if len(m) > 5 and m[5] == real and int(m[2], 16) == 0)
    page = os.sysconf("SC_PAGE_SIZE")
    res = {}
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for name, (addr, size) in sections.items():
            first, last = (base + addr) // page, (base + addr + size - 1) // page
            pagemap.seek(first * 8)
            entries = struct.unpack(f"<{last - first + 1}Q", pagemap.read((last - first + 1) * 8))
            res[name] = sum(e >> 63 for e in entries) * page // 1024
    return res
