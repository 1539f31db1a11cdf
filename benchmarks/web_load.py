"""The web page under many people at once: is the job queue fair, and does anything break?

A ``pybnc serve`` process (2 job slots, the default queue) on 127.0.0.1 and simulated
people (``_web_users.py``), each running the page's whole loop again and again: upload
car (1,728 rows) and start a TAN job, poll it as the page does, open the result, set
random evidence, predict a second file (300 rows). First one person alone (the
reference loop), then ``--users`` people at once for ``--seconds`` (loops started
before the end are finished), then one person alone again. Everything stops by itself: the server is stopped at
the end, and every request has a timeout.

Printed: loops, the loop's median, p95 and maximum, p95 over the single person's
median loop (fair sharing of 2 slots by 16 people gives about 8; the bar is 12),
answers by HTTP status (no 5xx; 429 only for a full queue), the jobs' ends (nothing
lost), the largest place in the queue seen, every posterior's sum, and the server's
resident memory (with its forkserver) before and after.

With ``--hostile``, first the hostile files of ``_hostile.py`` at the issue's sizes (a
gzip bomb, a workbook of 2 GiB of spaces, one of 5 million rows, malformed, XXE and
billion-laughs sheets, a 140,000-character header) are uploaded to the column report
and to ``/result``: printed, each answer's status, time and reason, and the server's
peak resident memory over its idle one.

Run: ``python benchmarks/web_load.py`` (about two minutes; ``--users 16 --seconds 90``);
``--users 8 --seconds 40 --hostile`` for the bars of a safe server.
"""

from __future__ import annotations

import argparse
import collections
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np

from _web_users import User, _multipart

ROOT = Path(__file__).resolve().parents[1]


def tables() -> tuple:
    from pybnc.datasets import load_dataset

    X, y = load_dataset("car")
    table = X.assign(verdict=y)
    return table.to_csv(index=False).encode(), table.sample(300, random_state=1).to_csv(index=False).encode()


def machine_busy() -> tuple:
    """``(busy, total)`` CPU ticks of the whole machine so far (``/proc/stat``)."""
    with open("/proc/stat") as stat:
        ticks = [int(t) for t in stat.readline().split()[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and waiting for I/O
    return sum(ticks) - idle, sum(ticks)


def busy_share(before: tuple, after: tuple) -> float:
    return (after[0] - before[0]) / max(after[1] - before[1], 1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def resident_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its children that are not jobs (the forkserver)."""
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            with open(f"/proc/{p}/status") as status:
                total += next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
        except (OSError, StopIteration):
            pass
    return total


def cpu_seconds(pid: int) -> tuple:
    """``(server, jobs)`` CPU seconds so far: the server's threads, and its forkserver
    with the workers it has forked (those alive and those reaped)."""
    tick = os.sysconf("SC_CLK_TCK")

    def stat(p):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])
        except (OSError, IndexError, ValueError):
            return 0, 0
    own = stat(pid)[0]
    jobs = 0
    for forkserver in _children(pid):
        jobs += sum(stat(forkserver)) + sum(stat(worker)[0] for worker in _kids(forkserver))
    return own / tick, jobs / tick


def _kids(pid: int) -> list:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            return [int(c) for c in children.read().split()]
    except OSError:
        return []


def _children(pid: int) -> list:
    """The server's forkserver (its own children, the workers, are not in its memory)."""
    return [k for k in _kids(pid) if "forkserver" in _cmdline(k)]


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmd:
            return cmd.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def start_server(port: int, max_jobs: int, max_queue: int) -> subprocess.Popen:
    code = (f"from pybnc.cli import cli; cli(['serve', '--port', '{port}', '--max-jobs', '{max_jobs}', "
            f"'--max-queue', '{max_queue}'])")
    env = dict(os.environ, PYBNC_PROGRESS="0", PYTHONPATH=str(ROOT))
    server = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("the server did not answer within 60 s")


def own_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident memory of ``pid`` alone, in MiB: now (``VmRSS``) or its peak (``VmHWM``)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field)) / 1024


def hostile_uploads(base: str, pid: int) -> None:
    """Each hostile file to ``/api/columns`` and ``/result``: status, seconds, reason, and
    the server's peak memory over its idle memory."""
    import json
    import re

    from _hostile import FULL
    from _web_users import Loop

    user = User(base, b"", b"", "", seed=0, timeout=120)
    user.request(Loop(), "GET", "/")  # a session, as a browser has
    body, kind = _multipart({}, {"file": ("small.csv", b"a,b\n1,x\n2,y\n")})
    start = time.perf_counter()
    user.request(Loop(), "POST", "/api/columns", body, kind)  # the reader processes are up
    print(f"a first column report (a small table): {time.perf_counter() - start:.2f} s")
    idle = own_mb(pid)
    print(f"{'hostile upload':<22}{'MB':>6}{'columns':>9}{'s':>7}{'result':>8}{'s':>7}  reason (the column report's)")
    for what, make in FULL.items():
        name, data = make()
        answers = []
        for path in ("/api/columns", "/result"):
            body, kind = _multipart({"models": "tan"}, {"file": (name, data)})
            start = time.perf_counter()
            status, _, reply = user.request(Loop(), "POST", path, body, kind)
            answers.append((status, time.perf_counter() - start, reply))
        html = json.loads(answers[0][2]).get("html", "") if answers[0][2][:1] == b"{" else ""
        reason = re.sub(r"<[^>]+>|\s+", " ", html).strip()[:110]
        print(f"{what:<22}{len(data) / 1e6:>6.2f}{answers[0][0]:>9}{answers[0][1]:>7.2f}{answers[1][0]:>8}"
              f"{answers[1][1]:>7.2f}  {reason}")
    print(f"server process memory: idle {idle:.0f} MiB, peak {own_mb(pid, 'VmHWM'):.0f} MiB since it started, "
          f"now {own_mb(pid):.0f} MiB (bar: peak within 500 MiB of idle)")
    print()


def run_users(base, table, new_rows, users: int, seconds: float, seed: int) -> list:
    """``users`` people, each looping until ``seconds`` have passed; every finished loop."""
    deadline = time.monotonic() + seconds
    loops, lock = [], threading.Lock()

    def person(i):
        user = User(base, table, new_rows, "verdict", seed=seed + i)
        while time.monotonic() < deadline:
            loop = user.loop(deadline)
            with lock:
                loops.append(loop)

    threads = [threading.Thread(target=person, args=(i,), daemon=True) for i in range(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 600)
    return loops


def summary(name: str, loops: list, reference: float | None) -> str:
    seconds = np.array([loop.seconds for loop in loops if not loop.error])
    p50, p95 = np.percentile(seconds, 50), np.percentile(seconds, 95)
    ratio = f"{p95 / reference:8.1f}" if reference else f"{'':>8}"
    return f"{name:<12}{len(loops):>7}{p50:>9.2f}{p95:>9.2f}{seconds.max():>9.2f}{ratio}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--single-seconds", type=float, default=20.0)
    parser.add_argument("--max-jobs", type=int, default=2)
    parser.add_argument("--max-queue", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hostile", action="store_true", help="first upload the hostile files (_hostile.py)")
    args = parser.parse_args()
    table, new_rows = tables()
    port = free_port()
    server = start_server(port, args.max_jobs, args.max_queue)
    base = f"http://127.0.0.1:{port}"
    try:
        if args.hostile:
            hostile_uploads(base, server.pid)
        run_users(base, table, new_rows, 1, 0.1, args.seed)  # warm up: the forkserver, the imports
        busy = [machine_busy()]
        single = run_users(base, table, new_rows, 1, args.single_seconds, args.seed)
        busy.append(machine_busy())
        memory_before = resident_mb(server.pid)
        cpu_before, people_before = cpu_seconds(server.pid), time.process_time()
        wall_before = time.monotonic()
        print(f"load average before: {os.getloadavg()[0]:.2f}; server pid {server.pid}, "
              f"{args.max_jobs} job slots, queue of {args.max_queue}")
        busy.append(machine_busy())
        many = run_users(base, table, new_rows, args.users, args.seconds, args.seed + 1000)
        busy.append(machine_busy())
        memory_after = resident_mb(server.pid)
        cpu_after, people_after = cpu_seconds(server.pid), time.process_time()
        wall = time.monotonic() - wall_before
        # Alone again: the machine's other load may have changed meanwhile.
        single_after = run_users(base, table, new_rows, 1, args.single_seconds, args.seed + 2000)
        busy.append(machine_busy())
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    reference = float(np.median([loop.seconds for loop in single + single_after]))
    print(f"load average after:  {os.getloadavg()[0]:.2f}")
    print()
    print(f"{'people':<12}{'loops':>7}{'median':>9}{'p95':>9}{'max':>9}{'p95/ref':>8}   (seconds per loop)")
    print(summary("1 before", single, None))
    print(summary(f"{args.users}", many, reference))
    print(summary("1 after", single_after, None))
    print(f"reference: the median single loop, before and after: {reference:.2f} s")
    print(f"the machine's CPUs busy (all processes): alone before {busy_share(busy[0], busy[1]):.0%}, "
          f"{args.users} people {busy_share(busy[2], busy[3]):.0%}, alone after {busy_share(busy[3], busy[4]):.0%} "
          f"({os.cpu_count()} CPUs)")
    everything = single + many + single_after
    statuses = collections.Counter(s for loop in everything for s in loop.statuses)
    ends = collections.Counter(loop.state or "never ended" for loop in everything)
    errors = [loop.error for loop in everything if loop.error]
    sums = np.array([loop.posterior_sum for loop in everything if not loop.error])
    print()
    print(f"HTTP answers: {dict(sorted(statuses.items()))}; 5xx: {sum(n for s, n in statuses.items() if s >= 500)}; "
          f"429 (queue full, retried): {sum(loop.refused for loop in everything)}")
    print(f"jobs: {dict(ends)}; loops with an error: {len(errors)}{' (' + errors[0] + ')' if errors else ''}")
    print(f"largest place in the queue seen: {max(loop.queued_at for loop in many)}; "
          f"posteriors summing to 1 (1e-9): {int(np.sum(np.abs(sums - 1) < 1e-9))} of {sums.size}")
    print(f"server memory (with its forkserver): {memory_before:.0f} MiB before, {memory_after:.0f} MiB after, "
          f"growth {memory_after - memory_before:+.0f} MiB")
    print(f"CPU seconds over the {wall:.0f} s of {args.users} people: server {cpu_after[0] - cpu_before[0]:.1f}, "
          f"jobs {cpu_after[1] - cpu_before[1]:.1f}, the people (this process) {people_after - people_before:.1f}")
    p95 = np.percentile([loop.seconds for loop in many if not loop.error], 95)
    print(f"p95 of {args.users} people / median single loop = {p95 / reference:.1f} (bar: 12); "
          f"fair sharing of {args.max_jobs} slots: about {args.users / args.max_jobs:.0f}")


if __name__ == "__main__":
    main()
