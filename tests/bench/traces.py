#!/usr/bin/env python3
"""What OpenTelemetry traces cost per call: mcp-server with traces off and on, in one run.

Run it through tests/bench/traces.sh (which builds the release binaries first):

    tests/bench/traces.sh [--no-build] [--requests 2000] [--rounds 5] [--before BIN]

Two servers over the demo catalog with the sandbox behind them, alike but for
MCP_OTLP_ENDPOINT: `off` has none (no exporter, no layer), `on` exports every call (sample ratio
1) by OTLP/HTTP to a local receiver, a process of its own that decodes each export (protobuf,
walked field by field) and counts the spans. Measured, interleaved in rounds as bench.py does:
the warm latency and the server's CPU per request of `ping` and of `tools/call demo_info_get`
(the whole pipeline and the upstream hop); then the spans one call of each makes, counted at the
receiver, and whether any span was dropped. With --before, a third server (`before`: another
binary, e.g. one built before traces existed) shows what `off` costs against having no traces
at all.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bench import ROOT, Setup, start_until_initialized, stop, wait_http_ok, warm_latency
from client import Endpoint, check_ok, check_tool_ok, free_port, mcp_call

# Exports leave the SDK's queue every 200 ms (default 5 s), so the count settles quickly.
SCHEDULE_MS = 200


def varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def fields(buf: bytes):
    """(field number, bytes) of each length-delimited field of one protobuf message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        wire = key & 7
        if wire == 0:
            _, i = varint(buf, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, i = varint(buf, i)
            yield key >> 3, buf[i:i + n]
            i += n
        else:
            raise ValueError(f"wire type {wire}")


def span_names(export: bytes) -> list[str]:
    """ExportTraceServiceRequest: resource_spans (1) → scope_spans (2) → spans (2) → name (5)."""
    names = []
    for n1, resource_spans in fields(export):
        for n2, scope_spans in fields(resource_spans) if n1 == 1 else ():
            for n3, span in fields(scope_spans) if n2 == 2 else ():
                if n3 == 2:
                    names += [v.decode() for n, v in fields(span) if n == 5]
    return names


def receive(port: int) -> None:
    """The receiver process: POST /v1/traces counts spans by name; GET /count answers them."""
    counts: dict[str, int] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            for name in span_names(body):
                counts[name] = counts.get(name, 0) + 1
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self):
            body = json.dumps(counts).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def received(port: int) -> dict[str, int]:
    ep = Endpoint(port, "GET", "/count", {}, None)
    try:
        return json.loads(ep.send()[1])
    finally:
        ep.close()


def settled(port: int) -> dict[str, int]:
    """The receiver's counts once they stop growing (three schedule delays without a change)."""
    last, still = received(port), 0
    while still < 3:
        time.sleep(SCHEDULE_MS / 1000.0)
        now = received(port)
        still = still + 1 if now == last else 0
        last = now
    return last


def spans_of(port: int, ep: Endpoint, check, n: int) -> dict[str, float]:
    """The spans `n` more requests of `ep` add at the receiver, per request, by name."""
    before = settled(port)
    for _ in range(n):
        check(*ep.send())
    after = settled(port)
    return {k: (after[k] - before.get(k, 0)) / n for k in after if after[k] != before.get(k, 0)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000, help="timed requests per target (2000)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (5)")
    ap.add_argument("--warmup", type=int, default=200, help="untimed requests per target first (200)")
    ap.add_argument("--ours", default=str(ROOT / "target/release/mcp-server"))
    ap.add_argument("--before", default=None, help="another binary, run like `off`")
    ap.add_argument("--sandbox", default=str(ROOT / "target/release/papierkram-sandbox"))
    ap.add_argument("--out", default=str(ROOT / "target/bench/traces.json"))
    args = ap.parse_args()
    out = Path(args.out)
    logdir = out.parent / "logs"
    logdir.mkdir(parents=True, exist_ok=True)

    otlp = free_port()
    receiver = multiprocessing.Process(target=receive, args=(otlp,), daemon=True)
    receiver.start()
    setup = Setup()
    off = setup.demo("off", args.ours, {"MCP_LIMITS": "off"})
    on = setup.demo("on", args.ours, {"MCP_LIMITS": "off",
                                      "MCP_OTLP_ENDPOINT": f"http://127.0.0.1:{otlp}",
                                      "MCP_TRACE_SAMPLE_RATIO": "1",
                                      "OTEL_BSP_SCHEDULE_DELAY": str(SCHEDULE_MS)})
    running = []
    try:
        sandbox = setup.sandbox(args.sandbox)
        running.append(sandbox.popen(0, logdir / "sandbox.log"))
        wait_http_ok(setup.direct(), 60)
        up = {}
        before = [setup.demo("before", args.before, {"MCP_LIMITS": "off"})] if args.before else []
        for spec in (off, on, *before):
            _, run = start_until_initialized(spec, logdir / f"traces-{spec.name}.log", 0.001, 60)
            running.append(run.proc)
            up[spec.name] = run
        targets = {}
        for name, run in up.items():
            pid = {name: run.proc.pid}
            targets[f"{name} ping"] = (mcp_call(run.port, "ping", {}, run.spec.token), check_ok, pid)
            targets[f"{name} demo_info_get"] = (
                mcp_call(run.port, "tools/call", {"name": "demo_info_get", "arguments": {}},
                         run.spec.token), check_tool_ok, pid)
        print(f"warm: {args.requests} sequential requests per target ...", file=sys.stderr)
        warm = warm_latency(targets, args)
        sent = settled(otlp)
        traced = up["on"]
        per_call = {
            "ping": spans_of(otlp, mcp_call(traced.port, "ping", {}, traced.spec.token),
                             check_ok, 100),
            "demo_info_get": spans_of(otlp, mcp_call(
                traced.port, "tools/call", {"name": "demo_info_get", "arguments": {}},
                traced.spec.token), check_tool_ok, 100),
        }
    finally:
        for proc in running:
            stop(proc)
        receiver.terminate()

    # Per target: a prime, the warm-up, a prime a round and the timed requests.
    calls = 1 + args.warmup + args.rounds + args.requests
    expected = {k: sum(v.values()) for k, v in per_call.items()}
    res = {"warm": warm, "spans_per_call": per_call, "spans_received": sent,
           "spans_expected_from_warm": sum(expected.values()) * calls}
    out.write_text(json.dumps(res, indent=2) + "\n")
    print(report(res))
    return 0


def report(res: dict) -> str:
    w = res["warm"]
    lines = ["| call | off median ms | on median ms | on/off | off CPU µs | on CPU µs | spans |",
             "|---|---|---|---|---|---|---|"]
    for call in ("ping", "demo_info_get"):
        if f"before {call}" in w:
            x = w[f"before {call}"]
            lines.append(f"| {call} (before) | {x['median']:.3f} | | off/before "
                         f"{w[f'off {call}']['median'] / x['median']:.2f} | "
                         f"{x['cpu_us_per_request']['before']:.0f} | | |")
        a, b = w[f"off {call}"], w[f"on {call}"]
        cpu_a = a["cpu_us_per_request"]["off"]
        cpu_b = b["cpu_us_per_request"]["on"]
        spans = sum(res["spans_per_call"][call].values())
        lines.append(f"| {call} | {a['median']:.3f} | {b['median']:.3f} | "
                     f"{b['median'] / a['median']:.2f} | {cpu_a:.0f} | {cpu_b:.0f} | {spans:g} |")
    got = sum(res["spans_received"].values())
    lines.append(f"\nspans received during the warm run: {got} "
                 f"(expected about {res['spans_expected_from_warm']:.0f}: fewer means dropped)")
    for call, names in res["spans_per_call"].items():
        lines.append(f"{call}: " + ", ".join(f"{k} {v:g}" for k, v in sorted(names.items())))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
