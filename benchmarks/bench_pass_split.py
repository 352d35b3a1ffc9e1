"""The one-pass ingest's two sides: CPU of this process and of the forked reader, the templates alone, the teardown.

``--no-cache`` replays spend most of their parse in :func:`mrsim.profiler.ingest._read`, which with the
forked reader (:mod:`mrsim.profiler.rumen_worker`) takes about the longer of two processes' busy times. This script
runs that pass on one trace (default: ``mrsim synth --jobs 1148 --seed 7``, written to a scratch directory) and prints,
per run, its wall time, this process's CPU (``time.process_time``) and the reader's (``RUSAGE_CHILDREN``), so that
the balance between the two can be read on a loaded machine, where wall times measure the neighbours:

* ``--mode fork`` (default) forces the forked reader whatever the load average, ``--mode in-process`` reads here;
* ``--share auto|all|none``: the forked reader's shared decoding as it runs, every piece decoded here, none;
* ``--no-calibration``: ``CalibrationCollector.add_plain`` replaced by a no-op, the lower bound of what a cheaper
  calibration collector leaves this process (the results then differ: a measurement aid only);
* ``--templates``: instead, :func:`mrsim.profiler.builder.template_from_logged_job` alone over the trace's jobs as the
  forked reader delivers them (after a pickling round trip), in process, min of 7;
* ``--teardown``: also the time from the pass's last step to ``_read``'s return (freeing the pass's locals);
* ``--collector-at-fork``: the cyclic garbage collector on while the reader forks (the pass turns it off, and a
  reader forked inside the pass inherits that; one forked at a command's start, before the pass, would not).

The reader's process is reported as its CPU (user and system) and its minor page faults (``RUSAGE_CHILDREN``).

Not a test and not a timing of the whole process (``bench_ingest.py`` is that). Usage:
``python3 benchmarks/bench_pass_split.py [--trace T] [--repeat 3] [--mode fork] [--share auto] [--no-calibration]
[--collector-at-fork]``;
an older tree with ``PYTHONPATH=DIR`` (run from outside the repository), without ``--share`` if it has none.
"""

from __future__ import annotations

import argparse
import functools
import gc
import inspect
import os
import pickle
import resource
import sys
import tempfile
import time
from pathlib import Path


def _children_usage() -> tuple[float, float, int]:
    """User CPU s, system CPU s and minor page faults of the children reaped so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime, r.ru_minflt


def _collector_on_at_fork(forked):
    """``iter_rumen_jobs_forked`` run with the cyclic collector on while it forks (the pass itself runs with it
    off, and the child inherits that): a reader forked before the pass, as at a command's start, finds it on."""
    def run(*args, **kwargs):
        jobs = forked(*args, **kwargs)
        gc.enable()
        try:
            first = next(jobs, None)  # the fork happens at the first step
        finally:
            gc.disable()
        if first is not None:
            yield first
            yield from jobs
    return run


def templates(trace: Path) -> None:
    from mrsim.profiler import builder
    from mrsim.profiler.plain import plain_job
    from mrsim.profiler.rumen import iter_rumen_jobs
    from mrsim.profiler.typed import TypedJob

    jobs = pickle.loads(pickle.dumps(list(iter_rumen_jobs(trace, typed=True)), protocol=pickle.HIGHEST_PROTOCOL))
    pairs = [(job, job.columns if type(job) is TypedJob else plain_job(job)) for job in jobs]
    gc.disable()
    runs = []
    for _ in range(7):
        warnings: list[str] = []
        started = time.process_time()
        for job, plain in pairs:
            builder.template_from_logged_job(job, source=str(trace), warnings=warnings, plain=plain)
        runs.append(time.process_time() - started)
    gc.enable()
    print(f"templates of {len(pairs)} jobs: CPU min {min(runs) * 1e3:.1f} ms, median {sorted(runs)[3] * 1e3:.1f} ms "
          f"(min of 7); load average {os.getloadavg()[0]:.2f}")


def passes(trace: Path, args: argparse.Namespace) -> None:
    import mrsim.profiler.ingest as ingest
    from mrsim.calibration.extract import CalibrationCollector
    from mrsim.profiler import rumen_worker

    rumen_worker.worker_wanted = (lambda path: True) if args.mode == "fork" else (lambda path: False)
    share = {"auto": None, "all": True, "none": False}[args.share]
    if "share" in inspect.signature(rumen_worker.iter_rumen_jobs_forked).parameters:
        rumen_worker.iter_rumen_jobs_forked = functools.partial(rumen_worker.iter_rumen_jobs_forked, share=share)
    elif args.share != "none":  # an older tree (PYTHONPATH=DIR), whose reader decodes every piece
        args.share = "none (this tree does not share)"
    if args.collector_at_fork:
        rumen_worker.iter_rumen_jobs_forked = _collector_on_at_fork(rumen_worker.iter_rumen_jobs_forked)
    if args.no_calibration:
        CalibrationCollector.add_plain = lambda self, job, plain: None  # type: ignore[method-assign]
    built = [0.0]
    lazy_input = ingest._lazy_input

    def timed_lazy_input(*a, **k):  # the pass's last step: what follows it until _read returns is the teardown
        made = lazy_input(*a, **k)
        built[0] = time.process_time()
        return made

    ingest._lazy_input = timed_lazy_input
    for _ in range(args.repeat):
        before, started, wall = _children_usage(), time.process_time(), time.perf_counter()
        result = ingest._read(trace, ingest._format(trace, None))
        ended, wall = time.process_time(), time.perf_counter() - wall
        user, system, faults = (a - b for a, b in zip(_children_usage(), before))
        teardown = f", teardown {ended - built[0]:.3f} s" if args.teardown else ""
        flags = (" no-calibration" if args.no_calibration else "") + \
            (" collector-at-fork" if args.collector_at_fork else "")
        print(f"{args.mode} share={args.share}{flags}: wall {wall:.3f} s, this process CPU {ended - started:.3f} s, "
              f"the reader's process CPU {user + system:.3f} s (user {user:.3f}, system {system:.3f}, "
              f"{faults} minor faults){teardown}; load average {os.getloadavg()[0]:.2f}")
        del result


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n")[0])
    ap.add_argument("--trace", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mode", choices=("fork", "in-process"), default="fork")
    ap.add_argument("--share", choices=("auto", "all", "none"), default="auto")
    ap.add_argument("--no-calibration", action="store_true")
    ap.add_argument("--collector-at-fork", action="store_true")
    ap.add_argument("--templates", action="store_true")
    ap.add_argument("--teardown", action="store_true")
    args = ap.parse_args()
    if "mrsim" not in sys.modules and not os.environ.get("PYTHONPATH"):
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    with tempfile.TemporaryDirectory() as tmp:
        trace = args.trace
        if trace is None:
            from mrsim.cli import main as cli

            trace = Path(tmp) / "b.json.gz"
            cli(["synth", "--jobs", "1148", "--seed", "7", "-o", str(trace), "--quiet"])
        if args.templates:
            templates(trace)
        else:
            passes(trace, args)


if __name__ == "__main__":
    main()
