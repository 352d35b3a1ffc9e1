"""``mrsim synth``: write a synthetic Facebook-like Rumen trace (SimMR section V-C; defaults in mrsim.profiler.synth)."""

from __future__ import annotations

from mrsim.cli.flags import add_renamed

import argparse

from mrsim.errors import InputError
from mrsim.profiler.synth import FacebookLikeSpec, facebook_like_workload, template_to_logged_job

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
    g = p.add_argument_group("LoTES Google-like workload (Tran & Beck Table 3; docs/resources.md)")
    g.add_argument("--lotes-google", action="store_true",
                   help="write the LoTES Table 3 workload instead: Poisson arrivals at --load x lambda* of --cluster, "
                        "per-job vcores/memory_mb requests recorded as Hadoop does")
    g.add_argument("--cluster", metavar="FILE", help="resource-vector cluster file whose lambda* sets the arrival rate "
                   "(e.g. examples/clusters/lotes_table1_10.toml); needed with --lotes-google")
    g.add_argument("--load", type=float, default=0.8, help="arrival rate as a fraction of lambda* (default 0.8)")
    g.add_argument("--hours", type=float, default=10.0, help="arrivals over this many hours (default 10)")
    g.add_argument("--mapreduce", action="store_true", help="each job has 200 maps and 100 reduces (section 7)")
    add_renamed(p, ("-o", "--out"), ("--output",), "output", required=True, metavar="FILE.json[.gz]",
                help="Rumen trace to write (atomically)")


def run(args: argparse.Namespace) -> int:
    from mrsim.profiler.rumen_writer import write_rumen_trace

    if not (args.output.endswith(".json") or args.output.endswith(".json.gz")):
        raise InputError(f"{args.output}: the output name must end in .json or .json.gz")
    if args.lotes_google:
        return _lotes_google(args)
    if args.cluster or args.mapreduce:
        raise InputError("--cluster and --mapreduce only apply with --lotes-google")
    spec = FacebookLikeSpec(jobs=args.jobs, seed=args.seed, mean_interarrival_s=args.mean_interarrival,
                            reduce_ratio=args.reduce_ratio, shuffle_fraction=args.shuffle_fraction)
    workload = facebook_like_workload(spec)
    write_rumen_trace((template_to_logged_job(t) for t in workload), args.output)
    print(f"wrote {args.output}: {len(workload)} jobs, {workload.n_maps:,} maps, {workload.n_reduces:,} reduces")
    return 0


def _lotes_google(args: argparse.Namespace) -> int:
    """``--lotes-google``: the Table 3 workload at a fraction of the cluster's lambda* (mrsim.studies.lotes.bridge)."""
    from mrsim.profiler.rumen_writer import write_rumen_trace
    from mrsim.model.cluster import load_cluster_file
    from mrsim.studies.lotes.bridge import GoogleTraceSpec, google_workload, to_logged_job

    if not args.cluster:
        raise InputError("--lotes-google needs --cluster FILE (a resource-vector cluster, e.g. "
                         "examples/clusters/lotes_table1_10.toml): its lambda* sets the arrival rate")
    cluster = load_cluster_file(args.cluster)
    spec = GoogleTraceSpec(load=args.load, hours=args.hours, mapreduce=args.mapreduce, seed=args.seed)
    workload, info = google_workload(cluster, spec)
    write_rumen_trace((to_logged_job(t) for t in workload), args.output)
    print(f"wrote {args.output}: {len(workload)} jobs, {workload.n_maps:,} maps, {workload.n_reduces:,} reduces; "
          f"lambda* = {info['lambda_star_per_h']:.4g} jobs/h on {info['nodes']} nodes, "
          f"rate = {info['rate_per_h']:.4g} jobs/h (load {args.load:g}) over {args.hours:g} h")
    return 0
