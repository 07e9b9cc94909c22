#!/usr/bin/env python3
"""Runs the peer tier's tests, each in a process of its own, longest first, a few at a time.

    peer-schedule.py --binary PATH --cwd DIR --slots N --times FILE [--seed FILE]
                     --tier 'NAME=LOG[,ENV=VALUE...][|FILTER...]' ...

libtest runs one binary's tests in name order, and a second environment (the newest CLI)
takes a second run of the binary, after the first. Here every test is a job: the jobs of all
tiers (the peer tier, and the newest CLI's re-run of some of its tests, in another
environment) share one queue, ordered by how long each took last time, longest first, and N
run at once (the longest-processing-time rule, which keeps the tail short). Each job's log
line gives its CPU time, the test's and its descendants': the tier is CPU-bound, so that is
where time can be won.

- `--binary`, `--cwd`: the peer test binary and the directory Cargo runs it in (the package).
- `--tier NAME=LOG[,ENV=VALUE...][|FILTER...]`: a set of jobs, written to LOG in the order
  they finish. Without filters, every test of the binary; with them, the tests whose names
  contain one of them (libtest's substring rule). ENV=VALUE pairs are added to that tier's
  environment.
- `--times FILE`: last run's times (TSV: tier, test, seconds, and the CPU seconds of the
  test and everything it started), read if present and rewritten at the end; `--seed FILE`: the same format, checked in, for a machine with no history.
  A test known to neither is expected to take `DEFAULT_SECONDS`.

Each job runs `BINARY --exact NAME --test-threads=1` under scripts/test-runner.sh (so its
result line carries its time), and its whole output is printed at once when it ends, so the
log reads as libtest's own: one `test NAME ... ok <T s>` line and one `test result:` line per
job, which scripts/test.sh counts. Exits 1 if any job failed (their names are listed last).
SIGINT and SIGTERM stop the queue and every running job's process group (SIGTERM, then SIGKILL
after STOP_GRACE_SECONDS).
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEFAULT_SECONDS = 20.0
# How long a job has to end after SIGTERM, on a stop, before SIGKILL.
STOP_GRACE_SECONDS = 10.0


def parse_tier(text):
    name, _, rest = text.partition("=")
    log_and_env, _, filters = rest.partition("|")
    log, *env = log_and_env.split(",")
    pairs = dict(item.split("=", 1) for item in env)
    return {"name": name, "log": log, "env": pairs, "filters": [f for f in filters.split("|") if f]}


def read_times(path):
    times = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 3:
                    try:
                        times[(parts[0], parts[1])] = float(parts[2])
                    except ValueError:
                        pass
    except OSError:
        pass
    return times


def list_tests(binary, cwd):
    out = subprocess.run([binary, "--list", "--format", "terse"], cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"peer-schedule: {binary} --list failed:\n{out.stderr}")
    return [line[: -len(": test")] for line in out.stdout.splitlines() if line.endswith(": test")]


def order(jobs, times):
    """Longest expected first; ties by tier and name, so the order is reproducible."""
    return sorted(jobs, key=lambda job: (-times.get((job[0]["name"], job[1]), DEFAULT_SECONDS), job[0]["name"], job[1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--cwd", required=True)
    parser.add_argument("--slots", type=int, default=3)
    parser.add_argument("--times", required=True)
    parser.add_argument("--seed")
    parser.add_argument("--runner", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "test-runner.sh"))
    parser.add_argument("--tier", action="append", required=True, type=parse_tier)
    args = parser.parse_args()

    tests = list_tests(args.binary, args.cwd)
    jobs = []
    for tier in args.tier:
        chosen = [t for t in tests if not tier["filters"] or any(f in t for f in tier["filters"])]
        if not chosen:
            print(f"peer-schedule: tier {tier['name']} selects no test of {args.binary}", file=sys.stderr)
        jobs += [(tier, t) for t in chosen]
    times = read_times(args.seed) if args.seed else {}
    times.update(read_times(args.times))
    queue = order(jobs, times)
    print(f"peer-schedule: {len(queue)} jobs, {args.slots} at a time, longest first", flush=True)

    logs = {tier["name"]: open(tier["log"], "a") for tier in args.tier}
    lock = threading.Lock()
    running = {}
    failed, took, spent = [], {}, {}
    stopping = threading.Event()

    def stop(signum, _frame):
        # SIGTERM whatever was received: a job started from a background shell inherits
        # SIGINT ignored, and would run on. SIGKILL follows for a job that outlives the grace.
        stopping.set()
        with lock:
            groups = [proc.pid for proc in running.values()]
        for group in groups:
            try:
                os.killpg(group, signal.SIGTERM)
            except ProcessLookupError:
                pass

        def kill_late():
            time.sleep(STOP_GRACE_SECONDS)
            for group in groups:
                try:
                    os.killpg(group, signal.SIGKILL)
                except ProcessLookupError:
                    pass

        threading.Thread(target=kill_late, daemon=True).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

    def worker():
        while not stopping.is_set():
            with lock:
                if not queue:
                    return
                tier, test = queue.pop(0)
            # What Cargo sets for a test it runs, and the tests read at run time (expect-test's
            # files are relative to the package).
            env = dict(
                os.environ,
                CARGO_MANIFEST_DIR=args.cwd,
                CARGO_MANIFEST_PATH=os.path.join(args.cwd, "Cargo.toml"),
                **tier["env"],
            )
            started = time.monotonic()
            with tempfile.TemporaryFile() as out:
                proc = subprocess.Popen(
                    ["sh", args.runner, args.binary, "--exact", test, "--test-threads=1"],
                    cwd=args.cwd,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                with lock:
                    running[proc.pid] = proc
                # wait4, not wait: the job's CPU, its descendants' included (the CLI, the
                # language hosts, the plugins and the providers, each reaped by its parent).
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
                out.seek(0)
                text = out.read().decode(errors="replace")
            seconds = time.monotonic() - started
            cpu = usage.ru_utime + usage.ru_stime
            with lock:
                del running[proc.pid]
                took[(tier["name"], test)] = seconds
                spent[(tier["name"], test)] = cpu
                if proc.returncode != 0:
                    failed.append(f"{tier['name']}: {test}")
                logs[tier["name"]].write(text)
                logs[tier["name"]].flush()
                sys.stdout.write(
                    f"== [{tier['name']}] {test}: {seconds:.1f} s, {cpu:.1f} s of CPU, exit {proc.returncode}\n{text}"
                )
                sys.stdout.flush()

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.slots))]
    for thread in threads:
        thread.start()
    for thread in threads:
        # With a timeout, so the main thread keeps running the signal handler promptly.
        while thread.is_alive():
            thread.join(timeout=0.5)

    times.update(took)
    try:
        with open(args.times + ".tmp", "w") as f:
            for (tier, test), seconds in sorted(times.items()):
                cpu = spent.get((tier, test))
                f.write(f"{tier}\t{test}\t{seconds:.1f}" + (f"\t{cpu:.1f}" if cpu is not None else "") + "\n")
        if spent:
            print(f"peer-schedule: {sum(took.values()):.0f} s of jobs, {sum(spent.values()):.0f} s of CPU", flush=True)
        os.replace(args.times + ".tmp", args.times)
    except OSError as error:
        print(f"peer-schedule: cannot keep the times: {error}", file=sys.stderr)
    if stopping.is_set():
        print("peer-schedule: stopped by a signal", file=sys.stderr)
        return 1
    if failed:
        print("peer-schedule: failed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
