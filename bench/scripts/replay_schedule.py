#!/usr/bin/env python3
"""Replays the job times of a `gpucosim regress --jobs 1 --results FILE` on
J workers, in canonical order and in the order `regress` uses with several
workers (each group's first job, then the group whose done jobs took
longest on average; `Dispatch` in cosim/src/regress.rs), and prints each
order's share of linear speed-up (the jobs' total time over J times the
makespan). A job's time is its cycle loop (`seconds`) plus OVERHEAD.
The last column, "times known", replays the order of a regression that
has the job times of an earlier one (`--job-times`, docs/regress.md): the
longest group first from the start, by the estimates of the job-times
file given with `--times FILE` (say that of another run), or else by each
group's own mean time in the results file (times known exactly).

With `--pipelined UNIT=F,...` (a job's speed on two CPUs over its speed on
one, e.g. BENCHMARKS.md's 5 ÷ 4 per unit) it also replays the longest-first
order with the CPUs of workers that have no job lent to running jobs: at
a job's start, as `regress` does (the job runs pipelined when it on two
CPUs, the running jobs with theirs and one CPU for each job not yet
handed out fit in the J CPUs), and, as `regress` does not, also in the
middle of a job (a worker that finds no job gives its CPU to the running
job on one CPU that would end last, which runs F times faster from then
on; the worker is busy until that job ends).

    python3 bench/scripts/replay_schedule.py RESULTS.json [J ...] [--pipelined ta=1.3,lds=1.15,waitcnt=1.1] [--times job-times.json]
"""
import heapq
import json
import math
import sys

OVERHEAD = 0.0012  # seconds a job costs besides its cycle loop


def canonical(jobs, workers):
    free = [0.0] * workers
    for j in jobs:
        t = heapq.heappop(free)
        heapq.heappush(free, t + j["t"])
    return max(free)


class Order:
    """The longest-first order of `Dispatch`: `take()` gives the next job.
    With `known`, each job's "est" (the estimate that earlier regressions'
    job times give, `job_times.rs`; None for a group without) stands for its
    group's length until a job of it is done."""

    def __init__(self, jobs, known=False):
        # [next, jobs, started, done, seconds, estimate, passed, their seconds]
        self.groups = []
        for j in jobs:
            if not self.groups or self.groups[-1][1][0]["key"] != j["key"]:
                self.groups.append([0, [], 0, 0, 0.0, None, 0, 0.0])
            self.groups[-1][1].append(j)
        if known:
            for g in self.groups:
                g[5] = g[1][0]["est"]

    def left(self):
        return sum(len(g[1]) - g[0] for g in self.groups)

    def take(self):
        open_ = [g for g in self.groups if g[0] < len(g[1])]
        if not open_:
            return None
        fresh = [g for g in open_ if g[2] == 0 and g[5] is None]
        if fresh:
            g = fresh[0]
        else:
            measured = sum(g[7] for g in self.groups if g[5] is not None)
            estimated = sum(g[5] * g[6] for g in self.groups if g[5] is not None)
            scale = measured / estimated if measured > 0 and estimated > 0 else 1.0

            def mean(g):
                if g[3] > 0:
                    return g[4] / g[3]
                return float("inf") if g[5] is None else g[5] * scale
            g = open_[0]
            for h in open_:
                if mean(h) > mean(g):
                    g = h
        job = g[1][g[0]]
        g[0] += 1
        g[2] += 1
        return g, job

    @staticmethod
    def done(g, job):
        g[3] += 1
        g[4] += job["t"]
        if job["passed"]:
            g[6] += 1
            g[7] += job["t"]


def longest_first(jobs, workers, known=False):
    order = Order(jobs, known)
    # (finish time, worker, group, duration)
    events, now, end = [], 0.0, 0.0
    for w in range(workers):
        t = order.take()
        if t:
            heapq.heappush(events, (t[1]["t"], w, id(t[0]), t))
    while events:
        now, w, _, (g, job) = heapq.heappop(events)
        Order.done(g, job)
        end = max(end, now)
        t = order.take()
        if t:
            heapq.heappush(events, (now + t[1]["t"], w, id(t[0]), t))
    return end


def lending(jobs, workers, midrun):
    """The makespan of the longest-first order with idle workers' CPUs lent
    at a job's start, and with `midrun` also to running jobs."""
    order = Order(jobs)
    # Running jobs: [end, remaining one-CPU seconds at `since`, since,
    # speed, group, job, CPUs lent to it].
    running, now, end, lent = [], 0.0, 0.0, 0

    def free():
        return workers - len(running) - lent

    while True:
        # Free CPUs take jobs; a job runs pipelined when it on two CPUs,
        # the running jobs with theirs and one CPU for each job still to
        # start fit in the CPUs.
        while free() >= 1:
            t = order.take()
            if not t:
                break
            g, job = t
            pipelined = order.left() + len(running) + 1 + lent + 1 <= workers
            speed = job["f"] if pipelined else 1.0
            lent += pipelined
            running.append([now + job["t"] / speed, job["t"], now, speed, g, job, int(pipelined)])
        # With no job left to start, free CPUs go to the running job on one
        # CPU that would end last.
        while midrun and free() >= 1:
            solo = [r for r in running if r[6] == 0 and r[5]["f"] > 1.0]
            if not solo:
                break
            r = max(solo, key=lambda r: r[0])
            r[1] -= (now - r[2]) * r[3]
            r[2], r[3] = now, r[5]["f"]
            r[0] = now + r[1] / r[3]
            r[6] = 1
            lent += 1
        if not running:
            return end
        running.sort(key=lambda r: r[0])
        r = running.pop(0)
        now = end = r[0]
        Order.done(r[4], r[5])
        lent -= r[6]


def times_key(plan, job):
    """The group's key in a job-times file (`job_times::key`)."""
    kernel = job.get("kernel")
    if kernel:
        k = f"{kernel['unit']}.{kernel['profile']}.kernel.{kernel['name']}"
    else:
        k = f"{job['unit']}.{job['profile']}"
    return k + (".code-coverage" if plan.get("code_coverage") else "")


def estimate(times, plan, job):
    """A job's estimated seconds from a job-times file (`JobTimes::estimate`),
    None for a group without times."""
    g = times.get(job["times_key"])
    if not g or g["cycles"] <= 0 or g["jobs"] <= 0 or g["seconds"] < 0:
        return None
    cycles = plan["cycles"]
    if job["kernel"]:
        cycles = min(g["cycles"] // g["jobs"], cycles)
    return g["seconds"] / g["cycles"] * cycles


def fail(msg):
    print(f"replay_schedule: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) < 2:
        fail("usage: replay_schedule.py RESULTS.json [J ...]")
    try:
        with open(sys.argv[1]) as f:
            res = json.load(f)
        res["plan"]["units"], res["plan"]["profiles"], res["jobs"]
    except OSError as e:
        fail(f"cannot read {sys.argv[1]}: {e.strerror}")
    except (ValueError, KeyError, TypeError) as e:
        fail(f"{sys.argv[1]} is not a gpucosim regress results file ({e})")
    plan = res["plan"]
    units, profiles = plan["units"], plan["profiles"]
    jobs = []
    for r in res["jobs"]:
        j = r["job"]
        kernel = j.get("kernel")
        kernel_key = (kernel["name"], kernel["unit"]) if kernel else None
        jobs.append({
            "key": (j["unit"], j["profile"], kernel_key),
            "order": (kernel is not None, units.index(j["unit"]) if j["unit"] in units else 0,
                      profiles.index(j["profile"]), j["seed"]),
            "t": r["seconds"] + OVERHEAD,
            "passed": r.get("status", "passed") == "passed",
            "times_key": times_key(plan, j),
            "kernel": kernel is not None,
        })
    jobs.sort(key=lambda j: j["order"])
    total = sum(j["t"] for j in jobs)
    counts, factors, times, args = [], None, None, sys.argv[2:]
    while args:
        a = args.pop(0)
        if a == "--times":
            if not args:
                fail("--times needs a job-times file (`regress --job-times`)")
            path = args.pop(0)
            try:
                with open(path) as f:
                    doc = json.load(f)
                if doc["format"] != 1:
                    raise ValueError(f"format {doc['format']}, not 1")
                times = {}
                for k, g in doc["groups"].items():
                    seconds, cycles, n = g["seconds"], g["cycles"], g["jobs"]
                    if not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                               for x in (seconds, cycles, n)):
                        raise ValueError(f"group {k}: numbers expected")
                    if not math.isfinite(seconds):
                        raise ValueError(f"group {k}: seconds {seconds}")
                    times[k] = {"seconds": float(seconds), "cycles": int(cycles), "jobs": int(n)}
            except OSError as e:
                fail(f"cannot read {path}: {e.strerror}")
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                fail(f"{path} is not a gpucosim job-times file ({e})")
            continue
        if a == "--pipelined":
            if not args:
                fail("--pipelined needs UNIT=F,... (a job's speed-up on two CPUs)")
            factors = {}
            for kv in args.pop(0).split(","):
                unit, _, f = kv.partition("=")
                try:
                    factors[unit] = float(f)
                except ValueError:
                    fail(f"--pipelined: `{kv}` is not UNIT=F with F a number")
                if factors[unit] < 1.0:
                    fail(f"--pipelined: {unit}'s speed-up {f} is below 1")
            continue
        if not a.isdigit() or int(a) < 1:
            fail(f"{a}: not a number of workers (a whole number, at least 1)")
        counts.append(int(a))
    counts = counts or [2, 4, 8, 16, 32]
    units_run = {j["key"][0] for j in jobs}
    for unit in factors or {}:
        if unit not in units_run:
            fail(f"--pipelined: no job of unit `{unit}` in {sys.argv[1]} "
                 f"(its units: {', '.join(sorted(units_run))})")
    if times is not None and not isinstance(plan.get("cycles"), int):
        fail(f"--times: {sys.argv[1]}'s plan has no cycles to estimate its jobs from")
    for j in jobs:
        j["f"] = (factors or {}).get(j["key"][0], 1.0)
        j["est"] = estimate(times, plan, j) if times is not None else None
    if times is None:
        # Each group's own mean time in the file stands for its estimate.
        means = {}
        for j in jobs:
            means.setdefault(j["key"], []).append(j["t"])
        for j in jobs:
            j["est"] = sum(means[j["key"]]) / len(means[j["key"]])
    print(f"{len(jobs)} jobs, {total:.2f} s in all")
    head = "workers  canonical  longest first"
    if factors is not None:
        head += "  lent at start  lent also mid-job"
    head += "  times known"
    print(head)
    for n in counts:
        c, l = canonical(jobs, n), longest_first(jobs, n)
        line = f"{n:7}  {total / (n * c):9.3f}  {total / (n * l):13.3f}"
        if factors is not None:
            a, b = lending(jobs, n, False), lending(jobs, n, True)
            line += f"  {total / (n * a):13.3f}  {total / (n * b):17.3f}"
        k = longest_first(jobs, n, known=True)
        line += f"  {total / (n * k):11.3f}"
        print(line)


if __name__ == "__main__":
    main()
