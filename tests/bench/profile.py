#!/usr/bin/env python3
"""Allocations and instructions per request of mcp-server, repeatable under any machine load.

    python3 tests/bench/profile.py BIN [--n 200] [--callgrind] [--kinds ping,tools/list,demo_info_get]
    python3 tests/bench/profile.py BIN --shipped --kinds ping,tools/list
    python3 tests/bench/profile.py target/release/bench-bare --bare --kinds ping,tools/list,echo

For each kind of request, runs BIN `serve` (authenticated, limits off, the sandbox behind it, as
bench.py does) under `valgrind --tool=dhat` twice: --warmup requests then N, and --warmup then 2N,
over one keep-alive connection. --shipped serves the shipped catalogs instead (the embedded
default a deployment lists; their upstreams are never called, so ping and tools/list only). The difference of the two runs' totals over N is what one request
costs: start-up, the warm-up and the shutdown cancel out. With --callgrind, one more run per kind
counts instructions from after the warm-up (`callgrind_control -i on`) and writes
target/bench/callgrind.<kind>.out (read it with `callgrind_annotate --inclusive=yes`; BIN needs
its symbols: see README.md).
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench import ROOT, Setup, Spec, stop, wait_http_ok
from client import check_ok, check_tool_ok, free_port, mcp_call

KINDS = {
    "ping": ("ping", {}, check_ok),
    "tools/list": ("tools/list", {}, check_ok),
    "demo_info_get": ("tools/call", {"name": "demo_info_get", "arguments": {}}, check_tool_ok),
    "echo": ("tools/call", {"name": "echo", "arguments": {"text": "hello"}}, check_tool_ok),
}


def serve(spec: Spec, tool: list[str], log: Path):
    """Start BIN under valgrind; wait until it answers a ping (the one probe it sees)."""
    port = free_port()
    spec = Spec(spec.name, [*tool, *spec.argv], spec.env, spec.token)
    proc = spec.popen(port, log)
    ep = mcp_call(port, "ping", {}, spec.token)
    deadline = time.monotonic() + 120
    while True:
        try:
            check_ok(*ep.send())
            return proc, port
        except Exception:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(proc)
                raise RuntimeError(f"{spec.name} did not start under valgrind; see {log}")
            time.sleep(0.2)
        finally:
            ep.close()


def send(port: int, token: str | None, kind: str, n: int) -> None:
    method, params, check = KINDS[kind]
    ep = mcp_call(port, method, params, token)
    for _ in range(n):
        check(*ep.send())
    ep.close()


def interrupt(proc) -> None:
    """SIGINT: serve shuts down gracefully, so valgrind writes its output."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        stop(proc)


def dhat_totals(path: Path) -> tuple[int, int]:
    data = json.loads(path.read_text())
    # tbk: total blocks, tb: total bytes
    return sum(p["tbk"] for p in data["pps"]), sum(p["tb"] for p in data["pps"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--n", type=int, default=200, help="requests in the first run (200)")
    ap.add_argument("--warmup", type=int, default=20, help="requests before them (20)")
    ap.add_argument("--kinds", help="comma-separated, of: " + ", ".join(KINDS)
                    + " (default: all but echo; with --bare all but demo_info_get)")
    ap.add_argument("--bare", action="store_true", help="BIN is bench-bare (no auth, no upstream)")
    ap.add_argument("--shipped", action="store_true",
                    help="serve the shipped catalogs, not the demo catalog (ping, tools/list)")
    ap.add_argument("--callgrind", action="store_true", help="also an instruction profile per kind")
    ap.add_argument("--sandbox", default=str(ROOT / "target/release/papierkram-sandbox"))
    ap.add_argument("--out", default=str(ROOT / "target/bench"))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    setup = Setup()
    ours = setup.demo("ours", args.binary, {"MCP_LIMITS": "off"})
    if args.bare:
        ours = Spec("bare", [args.binary, "--addr", "127.0.0.1:{port}"])
    if args.shipped:
        ours = setup.shipped("ours", args.binary)
    kinds = args.kinds.split(",") if args.kinds else [
        k for k in KINDS if k != ("demo_info_get" if args.bare else "echo")]
    if args.shipped and not set(kinds) <= {"ping", "tools/list"}:
        ap.error("--shipped profiles ping and tools/list only (the upstreams are never called)")
    sandbox = setup.sandbox(args.sandbox)
    log = out / "profile.log"
    sb = sandbox.popen(0, log)
    rows = []
    try:
        wait_http_ok(setup.direct(), 30)
        for kind in kinds:
            totals = []
            for n in (args.n, 2 * args.n):
                dhat_file = out / f"dhat.{kind.replace('/', '_')}.{n}.json"
                proc, port = serve(ours, ["valgrind", "--tool=dhat",
                                          f"--dhat-out-file={dhat_file}"], log)
                send(port, ours.token, kind, args.warmup + n)
                interrupt(proc)
                totals.append(dhat_totals(dhat_file))
            blocks = (totals[1][0] - totals[0][0]) / args.n
            nbytes = (totals[1][1] - totals[0][1]) / args.n
            rows.append((kind, blocks, nbytes))
            print(f"{kind:12} {blocks:8.1f} allocations {nbytes:10.0f} bytes per request",
                  file=sys.stderr)
            if args.callgrind:
                cg_file = out / f"callgrind.{kind.replace('/', '_')}.out"
                proc, port = serve(ours, ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                                          f"--callgrind-out-file={cg_file}"], log)
                send(port, ours.token, kind, args.warmup)
                subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)],
                               capture_output=True, check=True)
                send(port, ours.token, kind, args.n)
                subprocess.run(["callgrind_control", "-i", "off", str(proc.pid)],
                               capture_output=True, check=True)
                interrupt(proc)
                summary = subprocess.run(["callgrind_annotate", str(cg_file)],
                                         capture_output=True, text=True).stdout
                ir = next((l.split()[0] for l in summary.splitlines() if "PROGRAM TOTALS" in l), "?")
                ir = int(ir.replace(",", "")) / args.n if ir != "?" else float("nan")
                print(f"{kind:12} {ir:10.0f} instructions per request ({cg_file})", file=sys.stderr)
    finally:
        stop(sb)
    print(f"\n{Path(args.binary).name}: per request, the difference of {args.n} and "
          f"{2 * args.n} requests under dhat")
    for kind, blocks, nbytes in rows:
        print(f"  {kind:12} {blocks:8.1f} allocations  {nbytes:10.0f} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
