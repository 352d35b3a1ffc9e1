"""``mrsim synth``: write a synthetic Facebook-like Rumen trace (SimMR section V-C; defaults in mrsim.synth)."""

from __future__ import annotations

import argparse

from mrsim.errors import InputError
from mrsim.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job

NAME = "synth"
HELP = "generate a synthetic Facebook-like workload as a Rumen trace"


def add_arguments(p: argparse.ArgumentParser) -> None:
    d = FacebookLikeSpec()
    p.add_argument("--jobs", type=int, default=d.jobs, help=f"number of jobs (default {d.jobs})")
    p.add_argument("--seed", type=int, default=d.seed, help="random seed (default 0)")
    p.add_argument("--mean-interarrival", type=float, default=d.mean_interarrival_s,
                   help=f"mean of the exponential inter-arrival time, s (default {d.mean_interarrival_s:g})")
    p.add_argument("--reduce-ratio", type=float, default=d.reduce_ratio,
                   help=f"reduces per map (default {d.reduce_ratio:g})")
    p.add_argument("--shuffle-fraction", type=float, default=d.shuffle_fraction,
                   help=f"share of each reduce duration spent in shuffle (default {d.shuffle_fraction:g})")
    p.add_argument("-o", "--output", required=True, metavar="FILE.json[.gz]", help="Rumen trace to write (atomically)")


def run(args: argparse.Namespace) -> int:
    from mrsim.profiler.rumen_writer import write_rumen_trace

    if not (args.output.endswith(".json") or args.output.endswith(".json.gz")):
        raise InputError(f"{args.output}: the output name must end in .json or .json.gz")
    spec = FacebookLikeSpec(jobs=args.jobs, seed=args.seed, mean_interarrival_s=args.mean_interarrival,
                            reduce_ratio=args.reduce_ratio, shuffle_fraction=args.shuffle_fraction)
    workload = facebook_like_workload(spec)
    write_rumen_trace((template_to_logged_job(t) for t in workload), args.output)
    print(f"wrote {args.output}: {len(workload)} jobs, {workload.n_maps:,} maps, {workload.n_reduces:,} reduces")
    return 0
