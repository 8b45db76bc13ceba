#!/usr/bin/env python3
"""What UCUDNN_BENCHMARK_LIMIT would have changed, replayed on a database's stored measurements.

  bench/benchmark_limit_replay.py DATABASE [--batch 64] [--type BFLOAT16] [--limits 1GiB,64MiB,8MiB]
                                           [--first 0,5,10]

For each workspace limit and each N of --first (0: every configuration), the WR plans of every
kernel of the given full batch (powerOfTwo micro-batches, each within the limit) made among the
candidates the shim would measure: of the configurations measured at the full batch, the first N
whose workspace fits the limit, in the order they were measured (the heuristics' order, where
they were measured with every configuration listed: UCUDNN_BENCHMARK_LIMIT=0 or the `ucudnn`
tool), and every one over it. Prints the planned time per iteration (each kernel once) against
every configuration's, how many candidates are within the limit at the full batch (each run
there) and how many over it (finalized only), and the GPU time of their runs at the full batch
under today's rule (core/early_stop.h): one hopeless beside the fastest takes its warm-up run
alone, the others a warm-up run and the timed runs they were measured with. A database measured under a limit of
N says nothing about more than N.
"""
import argparse
import collections
import re
import sqlite3
import sys

UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def byte_size(text):
    match = re.fullmatch(r"(\d+)(KiB|MiB|GiB)?", text)
    if not match:
        sys.exit(f"benchmark_limit_replay: '{text}' is not a size such as 64MiB")
    return int(match.group(1)) * UNITS.get(match.group(2), 1)


def full_kernel(key, micro_batch, batch):
    """The full batch's kernel of a micro-batch's key (its x and y with N = micro_batch)."""
    return key.replace(f"x=[{micro_batch},", f"x=[{batch},").replace(
        f"y=[{micro_batch},", f"y=[{batch},"
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--type", default="", help="a data type the kernels name, e.g. BFLOAT16")
    parser.add_argument("--limits", default="1GiB,64MiB,8MiB")
    parser.add_argument("--first", default="0,5,10")
    args = parser.parse_args()
    limits = [byte_size(t) for t in args.limits.split(",")]
    firsts = [int(t) for t in args.first.split(",")]

    rows = sqlite3.connect(f"file:{args.database}?mode=ro", uri=True).execute(
        "SELECT kernel_key, micro_batch, algorithm, time_ms, workspace_bytes, repeats FROM measurements "
        "WHERE status = 'supported' AND kernel_key LIKE ? ORDER BY id",
        (f"%type={args.type}%",),
    )
    measured = {}  # (kernel, micro-batch, configuration) -> (ms, bytes)
    runs = {}  # (kernel, configuration) -> runs taken at the full batch
    order = collections.defaultdict(list)  # kernel -> configurations measured at the full batch
    for key, micro_batch, name, ms, workspace, repeats in rows:
        kernel = full_kernel(key, micro_batch, args.batch)
        if f"x=[{args.batch}," not in kernel:
            continue
        measured[(kernel, micro_batch, name)] = (ms, workspace)
        if micro_batch == args.batch:
            order[kernel].append(name)
            runs[(kernel, name)] = 1 + (repeats or 1)
    if not order:
        sys.exit(f"benchmark_limit_replay: no kernel of batch {args.batch} measured there")
    sizes = [s for s in (2**i for i in range(32)) if s <= args.batch]

    def candidates(kernel, limit, first):
        if first == 0:
            return set(order[kernel])
        fitting = [c for c in order[kernel] if measured[(kernel, args.batch, c)][1] <= limit]
        over = [c for c in order[kernel] if measured[(kernel, args.batch, c)][1] > limit]
        return set(fitting[:first]) | set(over)

    def planned_ms(kernel, limit, chosen):
        best = {}
        for size in sizes:
            times = [
                measured[(kernel, size, c)][0]
                for c in chosen
                if (kernel, size, c) in measured and measured[(kernel, size, c)][1] <= limit
            ]
            best[size] = min(times, default=float("inf"))
        plan = [0.0] + [float("inf")] * args.batch
        for n in range(1, args.batch + 1):
            plan[n] = min(best[s] + plan[n - s] for s in sizes if s <= n)
        return plan[args.batch]

    print(f"{len(order)} kernels of batch {args.batch} in {args.database}")
    for limit in limits:
        every = sum(planned_ms(k, limit, candidates(k, limit, 0)) for k in order)
        for first in firsts:
            chosen = {k: candidates(k, limit, first) for k in order}
            total = sum(planned_ms(k, limit, chosen[k]) for k in order)
            within = [(k, c) for k in order for c in chosen[k]
                      if measured[(k, args.batch, c)][1] <= limit]
            over = sum(len(c) for c in chosen.values()) - len(within)
            fastest = {}
            for k, c in within:
                fastest[k] = min(fastest.get(k, float("inf")), measured[(k, args.batch, c)][0])

            def run_ms(k, c):
                ms = measured[(k, args.batch, c)][0]
                hopeless = ms > max(10 * fastest[k], fastest[k] + 20)
                return ms * (1 if hopeless else runs[(k, c)])

            run_s = sum(run_ms(k, c) for k, c in within) / 1000
            print(
                f"limit {limit / 2**20:g} MiB, first {first or 'every one'}: planned {total:.3f} ms "
                f"({total / every:.4f}x every configuration's); at the full batch {len(within)} "
                f"candidates within the limit ({run_s:.2f} s of runs), {over} over it"
            )


if __name__ == "__main__":
    main()
