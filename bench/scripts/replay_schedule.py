#!/usr/bin/env python3
"""Replays the job times of a `gpucosim regress --jobs 1 --results FILE` on
J workers, in canonical order and in the order `regress` uses with several
workers (each group's first job, then the group whose done jobs took
longest on average; `Dispatch` in cosim/src/regress.rs), and prints each
order's share of linear speed-up (the jobs' total time over J times the
makespan). A job's time is its cycle loop (`seconds`) plus OVERHEAD.

    python3 bench/scripts/replay_schedule.py RESULTS.json [J ...]
"""
import heapq
import json
import sys

OVERHEAD = 0.0012  # seconds a job costs besides its cycle loop


def canonical(jobs, workers):
    free = [0.0] * workers
    for j in jobs:
        t = heapq.heappop(free)
        heapq.heappush(free, t + j["t"])
    return max(free)


def longest_first(jobs, workers):
    groups = []  # [next, jobs, started, done, seconds]
    for j in jobs:
        if not groups or groups[-1][1][0]["key"] != j["key"]:
            groups.append([0, [], 0, 0, 0.0])
        groups[-1][1].append(j)

    def take():
        open_ = [g for g in groups if g[0] < len(g[1])]
        if not open_:
            return None
        fresh = [g for g in open_ if g[2] == 0]
        if fresh:
            g = fresh[0]
        else:
            def mean(g):
                return float("inf") if g[3] == 0 else g[4] / g[3]
            g = open_[0]
            for h in open_:
                if mean(h) > mean(g):
                    g = h
        job = g[1][g[0]]
        g[0] += 1
        g[2] += 1
        return g, job

    # (finish time, worker, group, duration)
    events, now, end = [], 0.0, 0.0
    for w in range(workers):
        t = take()
        if t:
            heapq.heappush(events, (t[1]["t"], w, id(t[0]), t))
    while events:
        now, w, _, (g, job) = heapq.heappop(events)
        g[3] += 1
        g[4] += job["t"]
        end = max(end, now)
        t = take()
        if t:
            heapq.heappush(events, (now + t[1]["t"], w, id(t[0]), t))
    return end


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
        })
    jobs.sort(key=lambda j: j["order"])
    total = sum(j["t"] for j in jobs)
    counts = []
    for a in sys.argv[2:]:
        if not a.isdigit() or int(a) < 1:
            fail(f"{a}: not a number of workers (a whole number, at least 1)")
        counts.append(int(a))
    counts = counts or [2, 4, 8, 16, 32]
    print(f"{len(jobs)} jobs, {total:.2f} s in all")
    print("workers  canonical  longest first")
    for n in counts:
        c, l = canonical(jobs, n), longest_first(jobs, n)
        print(f"{n:7}  {total / (n * c):9.3f}  {total / (n * l):13.3f}")


if __name__ == "__main__":
    main()
