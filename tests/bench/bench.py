#!/usr/bin/env python3
"""hosted-mcp vs the FastMCP peer, side by side in one run: cold start, warm tools/call latency, RSS.

Run it through tests/bench/run.sh (which builds the release binaries and the peer venv first):

    tests/bench/run.sh [--runs 5] [--requests 3000] [--rounds 5] [--warmup 200]

What is measured (every figure from this one run, on this machine):
- cold start: wall time from spawning the server process to its first successful tools/list reply,
  polling every --poll-ms with a fresh connection; --runs runs per server, alternating, median.
- warm latency: sequential requests over one keep-alive connection per target, interleaved in
  --rounds blocks so drift in machine load hits every target alike:
    ours    tools/call info_get (hosted-mcp → GET /api/v1/info on the sandbox)
    direct  GET /api/v1/info on the sandbox itself (the upstream alone, same client)
    peer    tools/call echo on FastMCP (no upstream)
  Our overhead = median(ours) − median(direct).
- RSS: VmRSS and VmHWM (peak) from /proc/PID/status, idle after start and after the warm run.

It writes target/bench/results.json and prints a table with ratios and the target verdicts.
Performance is judged only by these ratios, never by timed assertions in tests.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from client import (
    Endpoint,
    check_http_ok,
    check_tool_ok,
    free_port,
    mcp_call,
    mcp_result,
    proc_cpu_ms,
    proc_memory_kib,
    summary,
)

ROOT = Path(__file__).resolve().parents[2]
MIB = 1024.0  # /proc reports KiB

SCRUBBED_ENV = ("MCP_", "AWS_", "DEMO_", "PAPIERKRAM_", "TOKIO_", "RUST_LOG", "SSL_CERT_",
                "PYTHON")

TARGET_COLD_RATIO = 100.0
TARGET_OVERHEAD_MS = 0.5
TARGET_RSS_MIB = 20.0


@dataclass
class Spec:
    """How to start one server: argv with {port}, extra env, and how to ask it for tools/list."""
    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    token: str | None = None

    def popen(self, port: int, log: Path) -> subprocess.Popen:
        # Settings from the caller's shell must not leak in (AWS_LAMBDA_RUNTIME_API would switch
        # to Lambda mode, MCP_SECRET_ID to Secrets Manager, TOKIO_WORKER_THREADS resize the runtime).
        env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_ENV)}
        env.update(self.env)
        with open(log, "ab") as err:
            return subprocess.Popen(
                [a.replace("{port}", str(port)) for a in self.argv],
                env=env,
                cwd=log.parent,  # no .env.local here: only the env we pass counts
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
            )


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the process group we started, SIGKILL if it lingers."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def start_until_tools_list(spec: Spec, log: Path, poll_s: float, timeout_s: float):
    """Spawn the server and poll tools/list; (ms from exec to first good reply, tool count, proc, port)."""
    port = free_port()
    t0 = time.perf_counter()
    proc = spec.popen(port, log)
    deadline = t0 + timeout_s
    last_error = None
    try:
        while True:
            probe = mcp_call(port, "tools/list", {}, spec.token)
            probe.timeout = 5.0
            try:
                status, body = probe.send()
                tools = mcp_result(status, body).get("tools") or []
                if tools:
                    return (time.perf_counter() - t0) * 1000.0, len(tools), proc, port
                last_error = "empty tools/list"
            except Exception as e:  # not listening yet, or not ready to answer
                last_error = e
            finally:
                probe.close()
            if proc.poll() is not None:
                raise RuntimeError(f"{spec.name} exited with {proc.returncode}; see {log}")
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{spec.name}: no tools/list within {timeout_s}s ({last_error})")
            time.sleep(poll_s)
    except BaseException:
        stop(proc)
        raise


def cold_starts(specs: list[Spec], args, logdir: Path) -> dict:
    """--cold-warmup untimed starts each (page cache, .pyc), then --runs timed starts, alternating."""
    times: dict[str, list[float]] = {s.name: [] for s in specs}
    for i in range(args.cold_warmup + args.runs):
        for spec in specs if i % 2 == 0 else reversed(specs):
            ms, _, proc, _ = start_until_tools_list(
                spec, logdir / f"{spec.name}.log", args.poll_ms / 1000.0, args.timeout)
            stop(proc)
            if i >= args.cold_warmup:
                times[spec.name].append(ms)
            time.sleep(0.2)
    return {name: {"runs_ms": t, **summary(t)} for name, t in times.items()}


def warm_latency(targets: dict[str, tuple[Endpoint, object, dict[str, int]]], args) -> dict:
    """--warmup untimed requests per target, then --requests timed ones split into --rounds blocks,
    rotating the target order each round. Also the CPU time the serving processes (name → pid)
    spend per request during the timed blocks."""
    names = list(targets)
    for name in names:
        ep, check, _ = targets[name]
        ep.prime()
        for _ in range(args.warmup):
            check(*ep.send())
    samples: dict[str, list[float]] = {n: [] for n in names}
    cpu_ms: dict[str, dict[str, float]] = {n: dict.fromkeys(targets[n][2], 0.0) for n in names}
    per_round = max(1, args.requests // args.rounds)
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            ep, check, pids = targets[name]
            check(*ep.prime())
            before = {who: proc_cpu_ms(pid) for who, pid in pids.items()}
            samples[name] += ep.timed(per_round, check)
            for who, pid in pids.items():
                cpu_ms[name][who] += proc_cpu_ms(pid) - before[who]
    out = {}
    for name in names:
        ep = targets[name][0]
        n = len(samples[name])
        out[name] = {
            **summary(samples[name]),
            "reconnects": ep.reconnects,
            "cpu_us_per_request": {who: ms * 1000.0 / n for who, ms in cpu_ms[name].items()},
        }
        ep.close()
    return out


def wait_http_ok(ep: Endpoint, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            check_http_ok(*ep.send())
            return
        except Exception as e:
            if time.monotonic() > deadline:
                raise RuntimeError(f"sandbox not answering: {e}") from e
            time.sleep(0.02)


def meta(args) -> dict:
    def run(*cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout.strip()
        except OSError:
            return ""

    cpu = ""
    try:
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                    if l.startswith("model name")), "")
    except OSError:
        pass
    peer_versions = run(args.peer_python, "-c",
                        "import importlib.metadata as m; "
                        "print(m.version('fastmcp'), m.version('mcp'))").split()
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": run("git", "rev-parse", "--short", "HEAD"),
        "git_dirty": bool(run("git", "status", "--porcelain", "--untracked-files=no")),
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "kernel": platform.release(),
        "driver_python": platform.python_version(),
        "peer": {"fastmcp": peer_versions[0] if peer_versions else None,
                 "mcp": peer_versions[1] if len(peer_versions) > 1 else None},
        "ours_binary_bytes": Path(args.ours).stat().st_size,
        # with --no-build the binary may predate the commit above
        "ours_binary_built_utc": datetime.datetime.fromtimestamp(
            Path(args.ours).stat().st_mtime, datetime.timezone.utc).isoformat(timespec="seconds"),
        "params": {k: getattr(args, k) for k in
                   ("runs", "cold_warmup", "requests", "rounds", "warmup", "poll_ms")},
    }


def loadavg() -> float:
    """1-minute load average: other work on the machine skews the figures, ours more (see README)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(res: dict) -> str:
    cs, wl, mem = res["cold_start"], res["warm"], res["rss_kib"]
    ours_w, peer_w, direct_w = wl["ours"], wl["peer"], wl["direct"]
    rows = [
        ("cold start, exec → tools/list (ms)", cs["ours"]["median"], cs["peer"]["median"], 1),
        ("warm tools/call median (ms)", ours_w["median"], peer_w["median"], 3),
        ("warm tools/call p95 (ms)", ours_w["p95"], peer_w["p95"], 3),
        ("warm tools/call p99 (ms)", ours_w["p99"], peer_w["p99"], 3),
        ("RSS idle after start (MiB)", mem["ours"]["idle"]["VmRSS"] / MIB,
         mem["peer"]["idle"]["VmRSS"] / MIB, 1),
        ("RSS after warm run (MiB)", mem["ours"]["after"]["VmRSS"] / MIB,
         mem["peer"]["after"]["VmRSS"] / MIB, 1),
        ("RSS peak, VmHWM (MiB)", mem["ours"]["after"]["VmHWM"] / MIB,
         mem["peer"]["after"]["VmHWM"] / MIB, 1),
    ]
    m = res["meta"]
    lines = [
        f"hosted-mcp vs FastMCP {m['peer']['fastmcp']} (mcp {m['peer']['mcp']}), same run, "
        f"{m['cpus']} CPUs, {m['date_utc']}, commit {m['git_commit']}{' (dirty)' if m['git_dirty'] else ''}",
        f"  machine load (1-min avg) before the run {m['load_start']:.2f}, after {m['load_end']:.2f} "
        "(includes this benchmark)"
        + ("\n  WARNING: other work was running before the run; rerun on a quiet machine"
           if m["load_start"] > 1.0 else ""),
        f"  cold start: median of {m['params']['runs']} runs each; warm: {ours_w['n']} sequential "
        f"keep-alive requests per target in {m['params']['rounds']} interleaved rounds",
        "",
        f"  {'':40} {'ours':>10} {'peer':>10} {'peer/ours':>10}",
    ]
    for label, ours, peer, prec in rows:
        lines.append(f"  {label:40} {ours:>10.{prec}f} {peer:>10.{prec}f} {peer / ours:>9.1f}×")
    lines.append("  cold start runs (ms): ours " +
                 ", ".join(f"{t:.1f}" for t in cs["ours"]["runs_ms"]) +
                 "; peer " + ", ".join(f"{t:.0f}" for t in cs["peer"]["runs_ms"]))
    r = res["ratios"]
    per_overhead = r["peer_median_over_our_overhead"]
    lines += [
        "",
        f"  upstream alone, GET /api/v1/info median {direct_w['median']:.3f} ms "
        f"(p95 {direct_w['p95']:.3f}, p99 {direct_w['p99']:.3f})",
        f"  server CPU per request (µs): ours {ours_w['cpu_us_per_request']['ours']:.0f} "
        f"(+ sandbox {ours_w['cpu_us_per_request']['sandbox']:.0f}), "
        f"peer {peer_w['cpu_us_per_request']['peer']:.0f}, "
        f"sandbox alone {direct_w['cpu_us_per_request']['sandbox']:.0f}",
        f"  our overhead = median(ours) − median(direct) = {r['overhead_ms']:.3f} ms; "
        f"peer median / our overhead = "
        f"{'n/a' if per_overhead is None else f'{per_overhead:.1f}×'}",
        "",
        "  targets:",
    ]
    checks = [
        (f"cold start ≥ {TARGET_COLD_RATIO:.0f}× faster than the peer", f"{r['cold_start']:.0f}×",
         "cold_start"),
        (f"median warm overhead ≤ {TARGET_OVERHEAD_MS} ms", f"{r['overhead_ms']:.3f} ms", "overhead"),
        (f"RSS ≤ {TARGET_RSS_MIB:.0f} MiB (peak VmHWM)", f"{mem['ours']['after']['VmHWM'] / MIB:.1f} MiB",
         "rss"),
    ]
    lines += [f"    {label:40} {value:>12}   {verdict(res['targets'][key])}"
              for label, value, key in checks]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed cold starts per server (5)")
    ap.add_argument("--cold-warmup", type=int, default=1,
                    help="untimed cold starts per server first, to warm the page cache (1)")
    ap.add_argument("--requests", type=int, default=3000, help="timed requests per target (3000)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds the requests are split into (5)")
    ap.add_argument("--warmup", type=int, default=200, help="untimed requests per target first (200)")
    ap.add_argument("--poll-ms", type=float, default=1.0, help="cold start poll interval, ms (1)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a server may take to start (60)")
    ap.add_argument("--ours", default=str(ROOT / "target/release/mcp-server"))
    ap.add_argument("--sandbox", default=str(ROOT / "target/release/papierkram-sandbox"))
    ap.add_argument("--peer-python", default=str(ROOT / ".tools/bench-venv/bin/python"))
    ap.add_argument("--out", default=str(ROOT / "target/bench/results.json"))
    args = ap.parse_args()

    out = Path(args.out)
    logdir = out.parent / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    for f in logdir.glob("*.log"):
        f.unlink()

    api_key = secrets.token_hex(16)
    upstream_token = "bench-" + secrets.token_hex(8)
    sandbox_port = free_port()
    # The limits are off: the bench sends thousands of calls a minute from one address.
    quiet = {"RUST_LOG": "warn", "MCP_LOG_FORMAT": "text", "MCP_LIMITS": "off"}
    ours = Spec("ours", [args.ours, "serve", "--addr", "127.0.0.1:{port}",
                         "--catalog", str(ROOT / "tests/catalogs")],
                env={**quiet, "MCP_API_KEYS": f"bench:{api_key}",
                     "DEMO_HOST": f"127.0.0.1:{sandbox_port}", "DEMO_TOKEN": upstream_token},
                token=api_key)
    peer = Spec("peer", [args.peer_python, str(ROOT / "tests/bench/peer/echo_server.py"),
                         "--port", "{port}"])
    sandbox = Spec("sandbox", [args.sandbox, "--addr", f"127.0.0.1:{sandbox_port}",
                               "--token", upstream_token,
                               # every request spends quota; a long run must not hit the 429s
                               "--monthly-limit", "1000000000"], env=quiet)

    load_start = loadavg()
    running: list[subprocess.Popen] = []
    try:
        running.append(sandbox.popen(0, logdir / "sandbox.log"))
        direct = Endpoint(sandbox_port, "GET", "/api/v1/info",
                          {"Authorization": f"Bearer {upstream_token}", "Accept": "application/json"},
                          None)
        wait_http_ok(direct, args.timeout)

        print(f"cold start: {args.cold_warmup} untimed + {args.runs} timed runs per server ...",
              file=sys.stderr)
        cold = cold_starts([ours, peer], args, logdir)

        print(f"warm: {args.requests} requests per target ...", file=sys.stderr)
        procs, ports, rss = {}, {}, {}
        for spec in (ours, peer):
            _, ntools, proc, port = start_until_tools_list(
                spec, logdir / f"{spec.name}.log", args.poll_ms / 1000.0, args.timeout)
            running.append(proc)
            procs[spec.name], ports[spec.name] = proc, port
            rss[spec.name] = {"idle": proc_memory_kib(proc.pid)}
        upstream = {"sandbox": running[0].pid}
        targets = {
            "direct": (direct, check_http_ok, upstream),
            "ours": (mcp_call(ports["ours"], "tools/call", {"name": "info_get", "arguments": {}},
                              api_key), check_tool_ok, {"ours": procs["ours"].pid, **upstream}),
            "peer": (mcp_call(ports["peer"], "tools/call",
                              {"name": "echo", "arguments": {"text": "hello"}}), check_tool_ok,
                     {"peer": procs["peer"].pid}),
        }
        warm = warm_latency(targets, args)
        for name, proc in procs.items():
            rss[name]["after"] = proc_memory_kib(proc.pid)
    finally:
        for proc in running:
            stop(proc)

    overhead = warm["ours"]["median"] - warm["direct"]["median"]
    res = {
        "meta": {**meta(args), "load_start": load_start, "load_end": loadavg()},
        "cold_start": cold,
        "warm": warm,
        "rss_kib": rss,
        "ratios": {
            "cold_start": cold["peer"]["median"] / cold["ours"]["median"],
            "warm_median": warm["peer"]["median"] / warm["ours"]["median"],
            "warm_p95": warm["peer"]["p95"] / warm["ours"]["p95"],
            "warm_p99": warm["peer"]["p99"] / warm["ours"]["p99"],
            "overhead_ms": overhead,
            "peer_median_over_our_overhead": warm["peer"]["median"] / overhead if overhead > 0 else None,
            "cpu_per_request": warm["peer"]["cpu_us_per_request"]["peer"]
            / warm["ours"]["cpu_us_per_request"]["ours"],
            "rss_after": rss["peer"]["after"]["VmRSS"] / rss["ours"]["after"]["VmRSS"],
            "rss_peak": rss["peer"]["after"]["VmHWM"] / rss["ours"]["after"]["VmHWM"],
        },
    }
    res["targets"] = {
        "cold_start": res["ratios"]["cold_start"] >= TARGET_COLD_RATIO,
        "overhead": overhead <= TARGET_OVERHEAD_MS,
        "rss": rss["ours"]["after"]["VmHWM"] / MIB <= TARGET_RSS_MIB,
    }
    out.write_text(json.dumps(res, indent=2) + "\n")
    print(report(res))
    print(f"\n  wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
