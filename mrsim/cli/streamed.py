"""``mrsim replay --stream``: a replay whose jobs are read while it runs (``docs/performance.md``, "Streaming").

Inputs that can be streamed: SWIM ``.tsv`` files (read line by line, :mod:`mrsim.profiler.swim_stream`) and
``synth:JOBS[:SEED[:MEAN_INTERARRIVAL_S]]``, ``mrsim synth``'s Facebook-like model drawn job by job
(:func:`mrsim.profiler.synth.iter_facebook_like`). The ``--json`` object is the one the same replay gives without
``--stream`` (same spec, summary and job rows; ``tests/tracker/test_streaming.py``), but memory grows with the jobs
in flight. What needs the whole workload or per-task results is refused with one line (``--out``, ``--report``,
``--deadline-factor``, YARN mode, placement on federations, and the engine features listed in
:mod:`mrsim.tracker.features.streaming`); so are the whole-workload sanity warnings (long submission gaps), which a
stream cannot compute before the run: they are not given.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mrsim.errors import InputError
from mrsim.model.streamed import StreamedWorkload

SYNTH_PREFIX = "synth:"


def streamed_workload(trace: str, fmt: str | None) -> tuple[StreamedWorkload, str]:
    """The streamed workload of ``trace`` and the format it was read as (``swim`` or ``synth``)."""
    if trace.startswith(SYNTH_PREFIX):
        return _synth(trace), "synth"
    from mrsim.profiler.detect import detect_format
    from mrsim.io.safe_open import check_input_file

    check_input_file(trace, allow_dir=True)
    path = Path(trace)
    if not path.exists():
        raise InputError(f"{trace}: no such file or directory")
    kind = (fmt or "").strip().lower() or detect_format(path).name.lower()
    if kind != "swim":
        raise InputError(f"{trace}: --stream reads SWIM .tsv files and {SYNTH_PREFIX}JOBS[:SEED[:MEAN_INTERARRIVAL_S]]; "
                         f"this input is {kind}: replay it without --stream")
    from mrsim.profiler.swim_stream import swim_stream

    return swim_stream(trace), "swim"


def _synth(trace: str) -> StreamedWorkload:
    from mrsim.profiler.synth import FacebookLikeSpec, streamed_facebook_like

    parts = trace[len(SYNTH_PREFIX):].split(":")
    try:
        if not 1 <= len(parts) <= 3:
            raise ValueError
        jobs = int(parts[0])
        seed = int(parts[1]) if len(parts) > 1 else 0
        gap = float(parts[2]) if len(parts) > 2 else FacebookLikeSpec().mean_interarrival_s
    except ValueError:
        raise InputError(f"{trace!r}: expected {SYNTH_PREFIX}JOBS[:SEED[:MEAN_INTERARRIVAL_S]], e.g. "
                         f"{SYNTH_PREFIX}1000000:3:30") from None
    return streamed_facebook_like(FacebookLikeSpec(jobs=jobs, seed=seed, mean_interarrival_s=gap))


def refuse_unstreamable_flags(args: argparse.Namespace) -> None:
    """One line for a flag a streamed replay cannot honour."""
    from mrsim.cli.load_options import given_load_flags

    for flag, given in (("--out", getattr(args, "out", None)), ("--report", getattr(args, "report", None)),
                        ("--deadline-factor", getattr(args, "deadline_factor", None) is not None),
                        ("--demands", getattr(args, "demands", None)),
                        ("--engine yarn", getattr(args, "engine", None) == "yarn"),
                        ("--model fluid", getattr(args, "model", "slots") != "slots"),
                        *((flag, True) for flag in given_load_flags(args))):
        if given:
            raise InputError(f"--stream keeps no per-task results and reads each job once: {flag} is not supported "
                             f"with it (replay without --stream)")


def execute_streamed_replay(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """Everything ``mrsim replay --stream`` does short of printing; a :class:`mrsim.run.results.Run`."""
    from mrsim.run.calibration import calibrate_run
    from mrsim.run.describe import cluster_line
    from mrsim.run.execute import _scheduler_warnings
    from mrsim.run.options import apply_placement, build_conf, build_options, scheduler_config
    from mrsim.run.progress import progress_bar
    from mrsim.run.results import Run
    from mrsim.tracker.replay import replay as run_replay
    from mrsim.tracker.routing import routing_note
    from mrsim.tracker.schedconf.filekind import check_plugin_config
    from mrsim.tracker.scheduling import scheduler_from
    from mrsim.profiler.assumptions import assumption_line, choose_cluster, heartbeat_origin

    from mrsim.cli.runspec import spec_from_args

    spec_from_args(args)  # every value checked, as a replay without --stream checks them
    refuse_unstreamable_flags(args)
    trace = args.trace
    if not trace:
        raise InputError(f"--stream needs a TRACE: a SWIM .tsv file or {SYNTH_PREFIX}JOBS[:SEED[:MEAN_INTERARRIVAL_S]]")
    conf = build_conf(args)
    options = build_options(args)
    workload, kind = streamed_workload(trace, getattr(args, "format", None))
    choice = choose_cluster(args, conf, trace, None, None)
    cluster = choice.cluster
    notes = list(choice.notes)
    # SWIM and synthetic jobs record no launch or report lags: the calibration is never measured from the input
    # (``format`` swim skips reading it), and a --calibration-from file is refused by the engine's check.
    calibrate_args = argparse.Namespace(**{**vars(args), "format": "swim"})
    options, conf, calibration_notes = calibrate_run(calibrate_args, trace, cluster, conf, options)
    notes.extend(calibration_notes)
    _, placement = apply_placement(args, workload, cluster)  # only checks the flags: streamed runs are one site
    chosen = args.scheduler or conf.scheduler or "fifo"
    sched_config = scheduler_config(args, chosen)
    check_plugin_config(chosen, sched_config)  # a fair or capacity file given to another scheduler
    scheduler = scheduler_from(chosen, sched_config)
    with progress_bar(len(workload), "jobs") as progress:
        result = run_replay(workload, cluster, conf, scheduler, options, progress=progress)
    notes.append(routing_note(result.scheduler, scheduler, result.summary["jobs"]))
    result.spec["engine"] = "mr1"
    result.spec["notes"] = list(calibration_notes)
    if placement is not None:  # pragma: no cover - federations are refused by the engine first
        result.spec["placement"] = placement.to_json()
    result.spec["trace_cache"] = {"status": "unused"}
    notes.extend(_scheduler_warnings(result.spec))
    notes.append(f"mrsim: note: streamed replay of {kind} input: {result.summary['jobs']:,} jobs read while replaying; "
                 f"no per-task results kept")
    hb = heartbeat_origin(args, conf, len(cluster.trackers))
    line = assumption_line("replay", cluster_line(result.spec.get("cluster", {})), choice.origin, result.spec, hb)
    result.spec["assumed"] = {"cluster": choice.origin, "heartbeat": hb}
    from mrsim.whatif.announce import whatif_spec

    result.spec["whatif"] = whatif_spec(conf, choice.origin, hb, False, getattr(args, "hadoop_version", None) is not None)
    return Run(result, workload, cluster, [line], notes)
