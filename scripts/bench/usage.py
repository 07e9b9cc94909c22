#!/usr/bin/python3 -S
"""Runs a command as a child process and, when it exits, appends one line to LOG:
`LABEL USER_SECONDS SYS_SECONDS PEAK_RSS_KIB WAKEUPS PREEMPTIONS` of that process alone,
without its children (the last two: its voluntary and involuntary context switches over all
its threads, each thread's as last seen, -1 where unreadable).

    bench/usage.py LOG LABEL COMMAND [ARG...]

scripts/bench/e2e.sh runs every plugin process under it. GNU time cannot do this: the rusage
of a reaped process includes the children it reaped, and a plugin reaps its Terraform
provider, so the provider's CPU would count as the plugin's (for one implementation and not
the other, depending on how each stops its provider). Here the CPU is read from
/proc/PID/stat while the exited child is still a zombie (waitid with WNOWAIT), and the peak
RSS is VmHWM, sampled every 50 ms while it runs (VmHWM only grows, so the last sample misses
at most a peak reached in the last 50 ms). SIGINT, SIGTERM and SIGHUP are passed on, so the
Pulumi CLI can stop the plugin as usual. Started with `python3 -S` (no site packages) it adds
about 30 ms to each launch.

With BENCH_USAGE_SERIES=PREFIX in the environment it also writes PREFIX-PID.rss (seconds since
the launch and VmRSS in KiB, every sample) and PREFIX-PID.smaps (the last /proc/PID/smaps read before
the process exited, taken every 2 s: where the resident set is, mapping by mapping).
"""

import os
import signal
import sys
import time


def peak_rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def thread_switches(pid):
    """Each thread's voluntary and involuntary context switches so far, by thread id. A
    voluntary one is a wake-up (the thread blocked and something woke it), an involuntary one
    a preemption; each costs CPU of its own (benches/wakeup.rs). /proc/PID/status counts the
    main thread alone, which is all of ours (one runtime thread) but little of a Go process."""
    found = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        counts = {}
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as status:
                for line in status:
                    key, _, value = line.partition(":")
                    if key in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
                        counts[key] = int(value)
        except OSError:
            continue
        if len(counts) == 2:
            found[tid] = (counts["voluntary_ctxt_switches"], counts["nonvoluntary_ctxt_switches"])
    return found


def main():
    log, label, *command = sys.argv[1:]
    pid = os.fork()
    if pid == 0:
        os.execv(command[0], command)

    def forward(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)

    series = os.environ.get("BENCH_USAGE_SERIES")
    series = f"{series}-{pid}" if series else None
    samples, smaps, last_smaps, started = [], None, 0.0, time.monotonic()
    peak = 0
    threads = {}
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is None:
        peak = max(peak, peak_rss_kib(pid))
        threads.update(thread_switches(pid))
        if series:
            now = time.monotonic() - started
            samples.append((now, rss_kib(pid)))
            if now - last_smaps >= 2:
                last_smaps = now
                try:
                    with open(f"/proc/{pid}/smaps") as f:
                        smaps = f.read() or smaps
                except OSError:
                    pass
        time.sleep(0.05)
    if series:
        with open(series + ".rss", "w") as out:
            out.writelines(f"{t:.2f} {rss}\n" for t, rss in samples)
        if smaps:
            with open(series + ".smaps", "w") as out:
                out.write(smaps)
    # A zombie now: its own CPU times are still readable. Fields 14 and 15 of stat (utime,
    # stime) follow the parenthesized command name, which may itself contain spaces.
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    user, system = int(fields[11]) / ticks, int(fields[12]) / ticks
    threads.update(thread_switches(pid))
    wakeups = sum(v for v, _ in threads.values()) if threads else -1
    preemptions = sum(n for _, n in threads.values()) if threads else -1
    _, status = os.waitpid(pid, 0)
    with open(log, "a") as out:
        out.write(f"{label} {user:.2f} {system:.2f} {peak} {wakeups} {preemptions}\n")
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


if __name__ == "__main__":
    main()
