"""Talks with durable commits on a near and on a distant database (issue 29 item 2), served as production
serves them (gunicorn with N uvicorn workers behind nginx with TLS, bench/sites.py), on a private
PostgreSQL with its default durability (fsync and synchronous_commit on):

- near: the workers reach PostgreSQL on the loopback;
- far: through bench/delay_proxy.py, which adds `--delay-ms` (2) to every round trip, as a database on
  another host would;

each with the chat turns fixed at CHAT_CONCURRENCY (2: the gate before turns were sized) and sized from
measurements (bots/servlet/turns.py, up to CHAT_CONCURRENCY_MAX 8). Four sites on one database, their
maximum throughput measured in alternating rounds (wrk, closed loop, `--connections`), so that the
machine's other load weighs on all alike. Printed: requests/s, p50/p95/p99, the workers' CPU per talk
and cores used; far / near with sized turns (target >= 80 %); then p99 at a fixed 50 talks/s on the far
database (target <= 150 ms); then a burst on the far site, PostgreSQL killed with SIGKILL as the burst
ends and restarted (crash recovery): every talk answered 200, over the whole run, must be in the database.

    python bench/distant_database.py [--workers 2] [--connections 50] [--seconds 24] [--rounds 3]
                                     [--delay-ms 2] [--rate 50] [--embeddings on|off]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.sites import GunicornSite  # noqa: E402
from bench.talk_speed import TALK, check_stored, combined, fixed_rate, heading, show, wrk  # noqa: E402
from deploy.scratch import free_port  # noqa: E402
from tests.servers import Platform, PrivatePostgres, wait_for_port  # noqa: E402


class DelayProxy:
    def __init__(self, to_port: int, delay_ms: float):
        self.port = free_port()
        proxy = [sys.executable, str(REPO / "bench" / "delay_proxy.py"), "--listen", str(self.port)]
        self.process = subprocess.Popen([*proxy, "--to", f"127.0.0.1:{to_port}", "--delay-ms", str(delay_ms)])
        wait_for_port(self.port, timeout=30, process=self.process)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def postmaster_kill(postgres: PrivatePostgres) -> None:
    """SIGKILL to PostgreSQL's postmaster and every backend: a crash, nothing flushed on the way out."""
    pid = int((postgres.data / "postmaster.pid").read_text().split()[0])
    backends = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    for victim in [pid, *map(int, backends)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
    for _ in range(100):
        if not Path(f"/proc/{pid}").exists():
            break
        time.sleep(0.05)
    postgres.running = False


def cores(run) -> str:
    return f"{run.server_cpu / run.seconds:.2f}" if run.seconds else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=24, help="per side, over all rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--delay-ms", type=float, default=2.0)
    parser.add_argument("--rate", type=float, default=50.0, help="the fixed rate of the p99 run, talks/s")
    parser.add_argument("--embeddings", choices=["on", "off"], default="on")
    args = parser.parse_args()
    print(
        f"{platform.node()}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; PostgreSQL durable "
        f"(fsync, synchronous_commit on); {args.workers} workers; embeddings {args.embeddings}; "
        f"far = {args.delay_ms:g} ms added per round trip",
        flush=True,
    )
    folder = Path(tempfile.mkdtemp(prefix="distant-database-"))
    postgres = PrivatePostgres(durable=True).start()
    proxy = DelayProxy(postgres.port, args.delay_ms)
    sites: dict[str, GunicornSite] = {}
    runs = []
    try:
        near_url = postgres.create_database("talks")
        far_url = near_url.replace(f":{postgres.port}/", f":{proxy.port}/")
        environment = {"MATCHING_EMBEDDINGS": args.embeddings, "LOG_LEVEL": "WARNING"}
        installed = Platform(folder / "platform", processes=0, database_url=near_url, extra_env=environment)
        installed.__enter__()
        for name, url, ceiling in (
            ("near, 2 turns", near_url, 2),
            ("near, sized turns", near_url, 8),
            ("far, 2 turns", far_url, 2),
            ("far, sized turns", far_url, 8),
        ):
            env = {**installed.env, "DATABASE_URL": url, "CHAT_CONCURRENCY": "2", "CHAT_CONCURRENCY_MAX": str(ceiling)}
            sites[name] = GunicornSite("config.asgi:application", args.workers, env)

        heading(f"Warm-up (every worker loads its models and builds its index), {args.connections} connections")
        for name, site in sites.items():
            runs.append(show(wrk(f"warm-up, {name}", (site.https_port, True), TALK, 8, 4, site.worker_pids)))

        heading(f"Maximum throughput, {args.rounds} alternating rounds, {args.connections} connections")
        seconds = max(1, round(args.seconds / args.rounds))
        rounds: dict[str, list] = {name: [] for name in sites}
        for _ in range(args.rounds):
            for name, site in sites.items():
                rounds[name].append(
                    wrk(name, (site.https_port, True), TALK, args.connections, seconds, site.worker_pids)
                )
        best = {name: show(combined(f"{name} (max)", rounds[name])) for name in sites}
        for name in sites:
            runs += rounds[name]
        print()
        for name, run in best.items():
            print(f"  {name:<22} workers busy {cores(run)} cores of {os.cpu_count()}")
        ratio_fixed = best["far, 2 turns"].rps / best["near, 2 turns"].rps
        ratio = best["far, sized turns"].rps / best["near, sized turns"].rps
        print(f"  far / near, 2 turns:     {100 * ratio_fixed:.0f} %")
        print(f"  far / near, sized turns: {100 * ratio:.0f} % (target >= 80 %)")
        print(f"  sized / 2 turns, far:    {100 * best['far, sized turns'].rps / best['far, 2 turns'].rps:.0f} %")

        heading(f"Fixed rate {args.rate:g} talks/s on the far database, open loop, 20 s")
        for name in ("far, 2 turns", "far, sized turns"):
            site = sites[name]
            steady = show(
                fixed_rate(f"{name}, {args.rate:g}/s", (site.https_port, True), TALK, args.rate, 20, site.worker_pids)
            )
            runs.append(steady)
        print(f"  p99 with sized turns: {steady.p99:.0f} ms (target <= 150 ms)")

        heading("A burst on the far site, then PostgreSQL killed with SIGKILL and restarted")
        site = sites["far, sized turns"]
        runs.append(show(wrk("burst", (site.https_port, True), TALK, args.connections, 5, site.worker_pids)))
        postmaster_kill(postgres)
        postgres.start()
        check = check_stored(near_url, runs)
        print(
            f"  after the crash: {check['answered']} talks answered 200 over the run, {check['stored']} interactions "
            f"in the database, {check['missing']} answered 200 and not stored",
            flush=True,
        )
    finally:
        for site in sites.values():
            site.stop()
        proxy.stop()
        postgres.stop("immediate")


if __name__ == "__main__":
    main()
