#!/usr/bin/env python3
"""hosted-mcp against a bare rmcp server and the FastMCP peer, side by side in one run.

Run it through tests/bench/run.sh (which builds the release binaries and the peer venv first):

    tests/bench/run.sh [--before PATH] [--runs 5] [--requests 3000] [--rounds 5] [--tp-seconds 3]

The servers (every figure from this one run, on this machine):
    bare     tests/bench/bare: rmcp's stateless Streamable HTTP service, JSON replies, one echo
             tool, on the workspace's axum and tokio; no auth, no limits, no logs (the yardstick)
    ours     target/release/mcp-server serve, authenticated (API key), limits off
    before   the same for another binary (--before), e.g. the one before a change
    peer     FastMCP (Python) with one echo tool
and the upstream sandbox behind ours (`demo_info_get` → GET /api/v1/info).

What is measured:
- cold start: spawning the process → its first answered `initialize`, polling every --poll-ms
  with a fresh connection; --runs runs per server, alternating. Ours twice: over the small demo
  catalog the other figures use, and over the shipped catalogs (the embedded default a deployment
  serves, placeholder credentials), which is what a Lambda cold start loads.
- warm latency: sequential requests over one keep-alive connection per target, interleaved in
  --rounds blocks so drift in machine load hits every target alike: `ping` on each server,
  `tools/call demo_info_get` on ours (the whole pipeline and the upstream hop), GET /api/v1/info on
  the sandbox itself (`direct`), `tools/call echo` on the peer. Plus the CPU each serving process
  spends per request.
- throughput: `ping` over 8 keep-alive connections from one client thread (tests/bench/bare's
  bench-load, like `wrk -t1 -c8`) for --tp-seconds, --tp-rounds times per target, rotating;
  ours also with the in-memory limits on, set far above the load.
- RSS: VmHWM (peak), VmRSS and its file-backed and anonymous parts (RssFile, RssAnon) from
  /proc/PID/status after all of the above; of ours, the code mapped from `.text.hot` and from the
  rest of `.text` (/proc/PID/pagemap).

Writes target/bench/results.json and prints the table with ratios and the goal verdicts.
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
    INITIALIZE,
    Endpoint,
    check_http_ok,
    check_ok,
    check_tool_ok,
    code_kib,
    free_port,
    mcp_call,
    mcp_result,
    proc_cpu_ms,
    proc_memory_kib,
    raw_mcp_request,
    summary,
)

ROOT = Path(__file__).resolve().parents[2]
MIB = 1024.0  # /proc reports KiB

SCRUBBED_ENV = ("MCP_", "AWS_", "DEMO_", "PAPIERKRAM_", "SEVDESK_", "CALCOM_", "TOKIO_",
                "RUST_LOG", "SSL_CERT_", "PYTHON")
# The shipped catalogs' secrets, as placeholders: a cold start to `initialize` never calls the
# upstreams, and with credentials present no sandbox starts in its place.
SHIPPED_CREDENTIALS = {"PAPIERKRAM_SUBDOMAIN": "bench", "PAPIERKRAM_TOKEN": "bench",
                       "SEVDESK_API_KEY": "0123456789abcdef0123456789abcdef",
                       "CALCOM_API_KEY": "cal_live_bench"}

# Goals against the bare server (issue 24), and the peer's.
GOAL_COLD_X_BARE = 1.5
GOAL_PING_X_BARE = 1.3
GOAL_INFO_X = 2.0  # demo_info_get ≤ 2 × bare ping + the sandbox's own answer time
GOAL_RSS_MIB = 10.0
GOAL_THROUGHPUT_OF_BARE = 0.60
GOAL_COLD_PEER_X = 100.0
CONNECTIONS = 8
# The in-memory limits far above anything the load generator can send.
LIMITS_ABOVE_LOAD = {"MCP_LIMITS": "on", "MCP_LIMIT_PER_IP_PER_MINUTE": "1000000000",
                     "MCP_LIMIT_PER_CALLER_PER_MINUTE": "1000000000",
                     "MCP_LIMIT_DAILY_CALLS": "1000000000"}


@dataclass
class Spec:
    """How to start one server: argv with {port}, extra env, and the bearer token it wants."""
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


@dataclass
class Running:
    spec: Spec
    proc: subprocess.Popen
    port: int


QUIET = {"RUST_LOG": "warn", "MCP_LOG_FORMAT": "text"}


@dataclass
class Setup:
    """One run's secrets and the servers started over them, as bench.py, profile.py and
    hot_text.py all start them: ours on the demo catalog with the sandbox behind it, ours on the
    shipped catalogs (cold start only: their upstreams are never called), and the sandbox."""
    api_key: str = field(default_factory=lambda: secrets.token_hex(16))
    upstream_token: str = field(default_factory=lambda: "bench-" + secrets.token_hex(8))
    sandbox_port: int = field(default_factory=free_port)

    def demo(self, name: str, binary: str, limits: dict[str, str]) -> Spec:
        return Spec(name, [binary, "serve", "--addr", "127.0.0.1:{port}",
                           "--catalog", str(ROOT / "tests/catalogs")],
                    env={**QUIET, **limits, "MCP_API_KEYS": f"bench:{self.api_key}",
                         "DEMO_HOST": f"127.0.0.1:{self.sandbox_port}",
                         "DEMO_TOKEN": self.upstream_token},
                    token=self.api_key)

    def shipped(self, name: str, binary: str) -> Spec:
        """The embedded default catalogs (no --catalog), as a deployment starts."""
        return Spec(name, [binary, "serve", "--addr", "127.0.0.1:{port}"],
                    env={**QUIET, "MCP_LIMITS": "off", "MCP_API_KEYS": f"bench:{self.api_key}",
                         **SHIPPED_CREDENTIALS},
                    token=self.api_key)

    def sandbox(self, binary: str) -> Spec:
        return Spec("sandbox", [binary, "--addr", f"127.0.0.1:{self.sandbox_port}",
                                "--token", self.upstream_token,
                                # every request spends quota; a long run must not hit the 429s
                                "--monthly-limit", "1000000000"], env=QUIET)

    def direct(self) -> Endpoint:
        """The sandbox's own `GET /api/v1/info`: ready check and the upstream hop's yardstick."""
        return Endpoint(self.sandbox_port, "GET", "/api/v1/info",
                        {"Authorization": f"Bearer {self.upstream_token}",
                         "Accept": "application/json"}, None)


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


def start_until_initialized(spec: Spec, log: Path, poll_s: float, timeout_s: float):
    """Spawn the server and poll `initialize`; (ms from exec to the first answer, Running)."""
    port = free_port()
    t0 = time.perf_counter()
    proc = spec.popen(port, log)
    deadline = t0 + timeout_s
    last_error = None
    try:
        while True:
            probe = mcp_call(port, "initialize", INITIALIZE, spec.token)
            probe.timeout = 5.0
            try:
                status, body = probe.send()
                if mcp_result(status, body).get("protocolVersion"):
                    return (time.perf_counter() - t0) * 1000.0, Running(spec, proc, port)
                last_error = "initialize without protocolVersion"
            except Exception as e:  # not listening yet, or not ready to answer
                last_error = e
            finally:
                probe.close()
            if proc.poll() is not None:
                raise RuntimeError(f"{spec.name} exited with {proc.returncode}; see {log}")
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{spec.name}: no initialize within {timeout_s}s ({last_error})")
            time.sleep(poll_s)
    except BaseException:
        stop(proc)
        raise


def cold_starts(specs: list[Spec], args, logdir: Path) -> dict:
    """--cold-warmup untimed starts each (page cache, .pyc), then --runs timed starts, alternating."""
    times: dict[str, list[float]] = {s.name: [] for s in specs}
    for i in range(args.cold_warmup + args.runs):
        for spec in specs if i % 2 == 0 else reversed(specs):
            ms, run = start_until_initialized(
                spec, logdir / f"{spec.name}.log", args.poll_ms / 1000.0, args.timeout)
            stop(run.proc)
            if i >= args.cold_warmup:
                times[spec.name].append(ms)
            time.sleep(0.1)
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
    block_medians: dict[str, list[float]] = {n: [] for n in names}
    cpu_ms: dict[str, dict[str, float]] = {n: dict.fromkeys(targets[n][2], 0.0) for n in names}
    per_round = max(1, args.requests // args.rounds)
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            ep, check, pids = targets[name]
            check(*ep.prime())
            before = {who: proc_cpu_ms(pid) for who, pid in pids.items()}
            block = ep.timed(per_round, check)
            samples[name] += block
            block_medians[name].append(summary(block)["median"])
            for who, pid in pids.items():
                cpu_ms[name][who] += proc_cpu_ms(pid) - before[who]
    out = {}
    for name in names:
        ep = targets[name][0]
        n = len(samples[name])
        out[name] = {
            **summary(samples[name]),
            "round_medians": block_medians[name],
            "reconnects": ep.reconnects,
            "cpu_us_per_request": {who: ms * 1000.0 / n for who, ms in cpu_ms[name].items()},
        }
        ep.close()
    return out


def throughput(targets: dict[str, Running], args) -> dict:
    """`ping` over CONNECTIONS connections for --tp-seconds per target and round, rotating."""
    names = list(targets)
    runs: dict[str, list[dict]] = {n: [] for n in names}
    for r in range(args.tp_rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            run = targets[name]
            request = raw_mcp_request(run.port, "ping", {}, run.spec.token)
            done = subprocess.run(
                [args.load, str(run.port), str(CONNECTIONS), str(args.tp_warmup),
                 str(args.tp_seconds)],
                input=request, capture_output=True, check=True)
            res = json.loads(done.stdout)
            if res["errors"]:
                raise RuntimeError(f"throughput {name}: {res['errors']} errors, first: "
                                   f"{res['first_error']}")
            runs[name].append(res)
    out = {}
    for name in names:
        rps = [r["per_second"] for r in runs[name]]
        out[name] = {"per_second_runs": rps, **summary(rps)}
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
                        "print(m.version('fastmcp'), m.version('mcp'))").split() if args.peer else []

    def binary(path):
        if not path:
            return None
        st = Path(path).stat()
        # with --no-build the binary may predate the commit below
        return {"path": str(path), "bytes": st.st_size,
                "built_utc": datetime.datetime.fromtimestamp(
                    st.st_mtime, datetime.timezone.utc).isoformat(timespec="seconds")}

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
        "binaries": {"ours": binary(args.ours), "before": binary(args.before),
                     "bare": binary(args.bare)},
        "params": {k: getattr(args, k) for k in
                   ("runs", "cold_warmup", "requests", "rounds", "warmup", "poll_ms",
                    "tp_rounds", "tp_seconds", "tp_warmup")},
    }


def loadavg() -> float:
    """1-minute load average: other work on the machine skews the figures, ours more (see README)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def spread(s: dict, prec: int) -> str:
    return f"{s['min']:.{prec}f}/{s['median']:.{prec}f}/{s['max']:.{prec}f}"


def goals(res: dict, ours: str) -> list[tuple[str, float, str, bool]]:
    """(label, ratio or value, goal text, met) for one of our binaries against bare."""
    cs, wl, tp, mem = res["cold_start"], res["warm"], res["throughput"], res["rss_kib"]
    bare_ping, direct = wl["bare ping"]["median"], wl["direct"]["median"]
    info_budget = GOAL_INFO_X * bare_ping + direct
    cold = cs[ours]["median"] / cs["bare"]["median"]
    shipped = cs[f"{ours}+shipped"]["median"] / cs["bare"]["median"]
    ping = wl[f"{ours} ping"]["median"] / bare_ping
    info = wl[f"{ours} demo_info_get"]["median"] / info_budget
    tp_off = tp[ours]["median"] / tp["bare"]["median"]
    tp_lim = tp[f"{ours}+limits"]["median"] / tp["bare"]["median"]
    rss = mem[ours]["VmHWM"] / MIB
    return [
        ("cold start / bare", cold, f"≤ {GOAL_COLD_X_BARE}×", cold <= GOAL_COLD_X_BARE),
        ("  shipped catalogs / bare", shipped, f"≤ {GOAL_COLD_X_BARE}×",
         shipped <= GOAL_COLD_X_BARE),
        ("ping / bare ping", ping, f"≤ {GOAL_PING_X_BARE}×", ping <= GOAL_PING_X_BARE),
        ("demo_info_get / (2×bare ping + direct)", info, "≤ 1.0×", info <= 1.0),
        ("throughput, limits off / bare", tp_off, f"≥ {GOAL_THROUGHPUT_OF_BARE:.2f}×",
         tp_off >= GOAL_THROUGHPUT_OF_BARE),
        ("throughput, limits on / bare", tp_lim, f"≥ {GOAL_THROUGHPUT_OF_BARE:.2f}×",
         tp_lim >= GOAL_THROUGHPUT_OF_BARE),
        ("peak RSS (MiB)", rss, f"≤ {GOAL_RSS_MIB:.0f} MiB", rss <= GOAL_RSS_MIB),
    ]


def report(res: dict) -> str:
    cs, wl, tp, mem = res["cold_start"], res["warm"], res["throughput"], res["rss_kib"]
    m = res["meta"]
    ours_cols = [c for c in ("before", "ours") if c in cs]
    cols = ["bare", *ours_cols]
    # With --before, ours is the "after" column.
    label = {"ours": "ours (after)" if "before" in cols else "ours"}
    header = f"  {'':38}" + "".join(f" {label.get(c, c):>21}" for c in cols)
    lines = [
        f"hosted-mcp vs a bare rmcp server{' and FastMCP ' + str(m['peer']['fastmcp']) if m['peer']['fastmcp'] else ''}, "
        f"same run, {m['cpus']} CPUs, {m['date_utc']}, commit {m['git_commit']}"
        f"{' (dirty)' if m['git_dirty'] else ''}",
        f"  machine load (1-min avg) before the run {m['load_start']:.2f}, after {m['load_end']:.2f} "
        "(includes this benchmark)"
        + ("\n  WARNING: other work was running before the run; rerun on a quiet machine"
           if m["load_start"] > 1.0 else ""),
        f"  cold start: {m['params']['runs']} runs each; latency: {wl['bare ping']['n']} sequential "
        f"keep-alive requests per target in {m['params']['rounds']} interleaved rounds; "
        f"throughput: {m['params']['tp_rounds']} × {m['params']['tp_seconds']} s per target, "
        f"{CONNECTIONS} connections",
        "  figures are min/median/max (over runs, or for latency over the rounds' medians)",
        "",
        header,
    ]

    def row(label, per_col):
        lines.append(f"  {label:38}" + "".join(f" {per_col(c):>21}" for c in cols))

    def rounds(name, prec=3):
        r = wl[name]["round_medians"]
        return f"{min(r):.{prec}f}/{wl[name]['median']:.{prec}f}/{max(r):.{prec}f}"

    row("cold start → initialize (ms)", lambda c: spread(cs[c], 1))
    row("  with the shipped catalogs (ms)", lambda c: "—" if c == "bare"
        else spread(cs[f"{c}+shipped"], 1))
    row("ping, sequential (ms)", lambda c: rounds(f"{c} ping"))
    row("demo_info_get, sequential (ms)", lambda c: "—" if c == "bare" else rounds(f"{c} demo_info_get"))
    row(f"ping/s, {CONNECTIONS} conns, limits off", lambda c: spread(tp[c], 0))
    row(f"ping/s, {CONNECTIONS} conns, limits on", lambda c: "—" if c == "bare"
        else spread(tp[f"{c}+limits"], 0))
    row("server CPU per ping (µs)", lambda c: f"{wl[f'{c} ping']['cpu_us_per_request'][c]:.0f}")
    row("server CPU per demo_info_get (µs)", lambda c: "—" if c == "bare"
        else f"{wl[f'{c} demo_info_get']['cpu_us_per_request'][c]:.0f}")
    row("RSS peak after the run, VmHWM (MiB)", lambda c: f"{mem[c]['VmHWM'] / MIB:.1f}")
    if any(f"{c}+limits" in mem for c in ours_cols):
        row("  with limits on (MiB)", lambda c: "—" if c == "bare"
            else f"{mem[f'{c}+limits']['VmHWM'] / MIB:.1f}")
    row("RSS now, file-backed / anonymous (MiB)",
        lambda c: f"{mem[c]['RssFile'] / MIB:.1f} / {mem[c]['RssAnon'] / MIB:.1f}")
    code = res.get("code_kib", {})
    if code:
        row("code mapped, .text.hot / .text (KiB)", lambda c: "—" if not code.get(c)
            else f"{code[c]['.text.hot']} / {code[c]['.text']}")
    d = wl["direct"]
    lines += [
        "",
        f"  sandbox alone, GET /api/v1/info: {rounds('direct')} ms "
        f"(CPU {d['cpu_us_per_request']['sandbox']:.0f} µs); demo_info_get budget = 2 × bare ping + "
        f"that = {GOAL_INFO_X * wl['bare ping']['median'] + d['median']:.3f} ms",
        "",
        "  goals against bare (issue 24):",
        f"    {'':38}" + "".join(f" {label.get(c, c):>14}" for c in ours_cols) + f" {'goal':>10}",
    ]
    per_col = {c: goals(res, c) for c in ours_cols}
    for i, (label, _, goal, _) in enumerate(per_col[ours_cols[-1]]):
        cells = []
        for c in ours_cols:
            _, value, _, ok = per_col[c][i]
            unit = "" if "MiB" in label else "×"
            cells.append(f"{value:.2f}{unit} {verdict(ok)}")
        lines.append(f"    {label:38}" + "".join(f" {x:>14}" for x in cells) + f" {goal:>10}")
    if "peer" in cs:
        peer_ping, ours_ping = wl["peer ping"]["median"], wl["ours ping"]["median"]
        cold_x = cs["peer"]["median"] / cs["ours"]["median"]
        lines += [
            "",
            "  against the FastMCP peer (peer / ours):",
            f"    cold start {cs['peer']['median']:.0f} ms / {cs['ours']['median']:.1f} ms = "
            f"{cold_x:.0f}× (goal ≥ {GOAL_COLD_PEER_X:.0f}×: {verdict(cold_x >= GOAL_COLD_PEER_X)})",
            f"    ping {peer_ping:.3f} / {ours_ping:.3f} ms = {peer_ping / ours_ping:.1f}×; "
            f"tools/call echo {wl['peer echo']['median']:.3f} ms vs our demo_info_get "
            f"{wl['ours demo_info_get']['median']:.3f} ms = "
            f"{wl['peer echo']['median'] / wl['ours demo_info_get']['median']:.1f}×",
            f"    throughput {tp['peer']['median']:.0f} vs {tp['ours']['median']:.0f} ping/s = "
            f"{tp['ours']['median'] / tp['peer']['median']:.1f}× ours; RSS peak "
            f"{mem['peer']['VmHWM'] / MIB:.1f} vs {mem['ours']['VmHWM'] / MIB:.1f} MiB",
        ]
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
    ap.add_argument("--tp-rounds", type=int, default=3, help="throughput runs per target (3)")
    ap.add_argument("--tp-seconds", type=float, default=3.0, help="seconds per throughput run (3)")
    ap.add_argument("--tp-warmup", type=float, default=0.5,
                    help="uncounted seconds before each throughput run (0.5)")
    ap.add_argument("--ours", default=str(ROOT / "target/release/mcp-server"))
    ap.add_argument("--before", default=None,
                    help="another mcp-server binary to measure beside ours (e.g. before a change)")
    ap.add_argument("--bare", default=str(ROOT / "target/release/bench-bare"))
    ap.add_argument("--load", default=str(ROOT / "target/release/bench-load"))
    ap.add_argument("--sandbox", default=str(ROOT / "target/release/papierkram-sandbox"))
    ap.add_argument("--peer-python", default=str(ROOT / ".tools/bench-venv/bin/python"))
    ap.add_argument("--no-peer", dest="peer", action="store_false", help="leave the peer out")
    ap.add_argument("--out", default=str(ROOT / "target/bench/results.json"))
    args = ap.parse_args()

    out = Path(args.out)
    logdir = out.parent / "logs"
    logdir.mkdir(parents=True, exist_ok=True)
    for f in logdir.glob("*.log"):
        f.unlink()

    setup = Setup()
    # Limits off for everything but the throughput run that turns them on.
    ours_names = {"ours": args.ours, **({"before": args.before} if args.before else {})}
    ours = {n: setup.demo(n, b, {"MCP_LIMITS": "off"}) for n, b in ours_names.items()}
    limited = {f"{n}+limits": setup.demo(f"{n}+limits", b, LIMITS_ABOVE_LOAD)
               for n, b in ours_names.items()}
    # Cold start only.
    shipped = {f"{n}+shipped": setup.shipped(f"{n}+shipped", b) for n, b in ours_names.items()}
    bare = Spec("bare", [args.bare, "--addr", "127.0.0.1:{port}"])
    peer = Spec("peer", [args.peer_python, str(ROOT / "tests/bench/peer/echo_server.py"),
                         "--port", "{port}"])
    sandbox = setup.sandbox(args.sandbox)
    servers = [bare, *ours.values(), *([peer] if args.peer else [])]

    load_start = loadavg()
    running: list[subprocess.Popen] = []
    try:
        running.append(sandbox.popen(0, logdir / "sandbox.log"))
        direct = setup.direct()
        wait_http_ok(direct, args.timeout)

        print(f"cold start: {args.cold_warmup} untimed + {args.runs} timed runs per server ...",
              file=sys.stderr)
        cold = cold_starts([*servers, *shipped.values()], args, logdir)

        print(f"warm: {args.requests} sequential requests per target ...", file=sys.stderr)
        up: dict[str, Running] = {}
        for spec in [*servers, *limited.values()]:
            _, run = start_until_initialized(
                spec, logdir / f"{spec.name}.log", args.poll_ms / 1000.0, args.timeout)
            running.append(run.proc)
            up[spec.name] = run
        upstream = {"sandbox": running[0].pid}
        targets = {"direct": (direct, check_http_ok, upstream)}
        for name, run in up.items():
            if name.endswith("+limits"):
                continue
            pid = {name: run.proc.pid}
            targets[f"{name} ping"] = (mcp_call(run.port, "ping", {}, run.spec.token), check_ok, pid)
            if name in ours:
                targets[f"{name} demo_info_get"] = (
                    mcp_call(run.port, "tools/call", {"name": "demo_info_get", "arguments": {}},
                             run.spec.token), check_tool_ok, {**pid, **upstream})
            if name == "peer":
                targets["peer echo"] = (
                    mcp_call(run.port, "tools/call",
                             {"name": "echo", "arguments": {"text": "hello"}}), check_tool_ok, pid)
        warm = warm_latency(targets, args)

        print(f"throughput: {args.tp_rounds} × {args.tp_seconds} s per server ...", file=sys.stderr)
        tp = throughput(up, args)
        rss = {name: proc_memory_kib(run.proc.pid) for name, run in up.items()}
        code = {name: code_kib(run.proc.pid, run.spec.argv[0]) for name, run in up.items()
                if name in ours}
    finally:
        for proc in running:
            stop(proc)

    res = {
        "meta": {**meta(args), "load_start": load_start, "load_end": loadavg()},
        "cold_start": cold,
        "warm": warm,
        "throughput": tp,
        "rss_kib": rss,
        "code_kib": code,
    }
    res["goals"] = {c: [{"goal": label, "value": v, "target": g, "met": ok}
                        for label, v, g, ok in goals(res, c)] for c in ours}
    out.write_text(json.dumps(res, indent=2) + "\n")
    print(report(res))
    print(f"\n  wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
