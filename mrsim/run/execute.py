"""Running ``replay``, ``compare`` and ``validate`` from a :class:`~mrsim.model.runspec.RunSpec`: everything the
commands do short of printing, shared by the API (:mod:`mrsim.api`) and the command line, so that a command and
its API call give the same ``summary``. What a run assumed (cluster and heartbeat, and where each came from) is
returned as its assumption line and notes; :func:`announce` prints them on stderr.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from mrsim.run.results import ComparisonRun, Run, ValidationRun
from mrsim.errors import InputError, OptionError
from mrsim.model.runspec import RunSpec
from mrsim.wording import counted

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.model.cluster import ClusterSpec
    from mrsim.model.templates import Workload

#: Scheduler names that order jobs by deadline and so need deadlines (``deadline_factor``) to differ from FIFO.
DEADLINE_SCHEDULERS = frozenset({"maxedf", "minedf"})
#: ``mrsim compare``'s and :func:`mrsim.compare`'s schedulers when none are named: Hadoop's three
#: (docs/what-if-load.md).
DEFAULT_COMPARE = "fifo,fair,capacity"


@dataclass(frozen=True)
class RunContext:
    """How a run is driven, apart from what it runs: ``workload`` (a Workload given in place of the trace's),
    ``early`` (prints the assumption line before the replays, :func:`early_announcer`), ``progress`` (progress may
    be drawn on stderr, on a terminal only)."""

    workload: "Workload | None" = None
    early: Callable[[str], None] | None = None
    progress: bool = True




def announce(assumptions: Iterable[str], notes: Iterable[str], quiet: bool | str) -> None:
    """Print what a run assumed and its notes on stderr (one line each). ``quiet`` is True/False or a log level:
    ``info`` prints everything, ``warning`` only warnings, ``error`` (or True) nothing."""
    level = "error" if quiet is True else ("info" if quiet is False else str(quiet))
    if level == "error":
        return
    for line in assumptions:
        if level in ("info", "debug"):
            print(line, file=sys.stderr)
    for line in notes:
        warning = line.startswith("mrsim: warning:")
        if warning or level in ("info", "debug"):
            print(line if line.startswith("mrsim") else f"mrsim: note: {line}", file=sys.stderr)


def announce_warnings(warnings: Iterable[str], notes: Iterable[str], quiet: bool | str, limit: int | None = None) -> None:
    """Print a result's warnings on stderr as ``mrsim: warning:`` lines, except those ``notes`` already printed
    (YARN mode lists the scheduler file's unmodelled keys both in its warnings and in ``spec.scheduler.warnings``,
    which :func:`announce` prints). A warning repeated word for word (a folded trace holds the same job twice) is
    printed once. ``limit`` shows that many and counts the rest in one line."""
    level = "error" if quiet is True else ("info" if quiet is False else str(quiet))
    if level not in ("info", "warning", "debug"):
        return
    said = set(notes)
    fresh = [w for w in dict.fromkeys(warnings) if f"mrsim: warning: {w}" not in said]
    shown = fresh if limit is None else fresh[:limit]
    for w in shown:
        print(f"mrsim: warning: {w}", file=sys.stderr)
    if len(fresh) > len(shown):
        print(f"mrsim: warning: ... and {len(fresh) - len(shown)} more", file=sys.stderr)


def _scheduler_warnings(spec: dict, seen: set[str] | None = None) -> list[str]:
    """Every ignored or unmodelled scheduler-config key (file:line, key), as ``mrsim: warning:`` lines."""
    out = []
    for w in (spec.get("scheduler") or {}).get("warnings") or ():
        if seen is not None:
            if w in seen:
                continue
            seen.add(w)
        out.append(f"mrsim: warning: {w}")
    return out


def _load(args: RunSpec, ctx: RunContext, need_hosts: bool):
    """The workload (with ``demands``) and the hosts of the trace (when a cluster may be inferred)."""
    from mrsim.run.options import attach_demands
    from mrsim.profiler.assumptions import LoadedTrace, load_with_hosts
    from mrsim.profiler.workloads import default_trace_path

    given = ctx.workload
    if given is not None:
        return LoadedTrace(given), given.source or "workload"
    from mrsim.run.spinner import reading

    trace = args.trace or str(default_trace_path())
    with reading(trace, ctx.progress):
        if need_hosts:
            loaded = load_with_hosts(trace, getattr(args, "format", None))
        else:
            from mrsim.profiler.workloads import load_workload

            loaded = LoadedTrace(load_workload(trace, getattr(args, "format", None)))
    loaded.workload = attach_demands(args, loaded.workload, trace)
    return loaded, trace


def _announce_before_work(ctx: RunContext, command: str, spec: dict, choice: Any, hb: str,
                          described: dict | None = None) -> None:
    """Print the run's assumption line now, before its replays, when the caller asked for it (``ctx.early``:
    the commands and the API functions at the ``info`` level). ``spec`` holds what the line needs before the run
    has a spec of its own: ``mode``, ``heartbeat_interval_s``, and in YARN mode ``engine``, ``cluster`` and
    ``yarn``. The run's final line is built again from its real spec; :func:`announce_once` prints it only if it
    differs from this one."""
    early = ctx.early
    if early is None:
        return
    from mrsim.profiler.assumptions import assumption_line

    cluster_text, origin = _cluster_text(spec, choice, described)
    early(assumption_line(command, cluster_text, origin, spec, hb))


def _mr1_pre_spec(options: Any, conf: Any, cluster: "ClusterSpec") -> dict:
    """The MR1 engine's heartbeat interval and mode for ``options`` on ``cluster``, as its spec will say."""
    from mrsim.tracker.replay import effective_interval

    interval = effective_interval(options, conf, len(cluster.trackers))
    return {"mode": "task" if interval <= 0.0 else "heartbeat", "heartbeat_interval_s": interval}


def _yarn_pre_spec(args: RunSpec, workload: "Workload", cluster: "ClusterSpec", inferred: bool) -> dict:
    """What a YARN run's first line needs before the run: its NodeManagers and their heartbeat."""
    from mrsim.tracker.yarn import engine as yarn_engine

    conf = yarn_engine.yarn_conf(args, workload, cluster, inferred)[0]
    return {"engine": "yarn", "mode": "heartbeat", "heartbeat_interval_s": conf.nm_heartbeat_s,
            "cluster": {**cluster.describe(), "nodemanagers": len(cluster.trackers)}, "yarn": conf.describe()}


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def early_announcer(level: "bool | str") -> tuple[list[str], Callable[[str], None] | None]:
    """Arrange for the assumption line to be printed before the replays start, at the ``info`` level and on a
    terminal only (someone is watching a long run; a script or a pipe gets the line at the end, so that a run that
    fails reads as its one error line). Returns the list the printed lines are recorded in, for
    :func:`announce_once`, and the printer for :attr:`RunContext.early` (None: nothing is printed early)."""
    printed: list[str] = []
    lvl = "error" if level is True else ("info" if level is False else str(level))
    if lvl in ("info", "debug") and _stderr_is_terminal():
        def say(line: str) -> None:
            print(line, file=sys.stderr, flush=True)
            printed.append(line)

        return printed, say
    return printed, None


def announce_once(assumptions: Iterable[str], notes: Iterable[str], quiet: "bool | str",
                  printed: Sequence[str] = ()) -> None:
    """:func:`announce`, without the assumption lines already printed before the work (:func:`early_announcer`)."""
    announce([line for line in assumptions if line not in printed], notes, quiet)


def _checked(workload: "Workload", choice: Any, yarn: bool = False) -> tuple["Workload", list[str]]:
    """The workload with the cluster's suspicious-but-usable findings as warnings (0-slot TaskTrackers: counted and
    explained; ``--strict`` makes them errors), and the choice's other notes. In YARN mode (``yarn``) a node has
    memory and vcores, not map and reduce slots, so its slot counts warrant no warning."""
    from mrsim.profiler.assumptions import zero_slot_notes
    from mrsim.io.policy import enforce
    from mrsim.model.sanity import with_warnings, zero_slot_warnings

    zero = list(zero_slot_notes(choice.cluster)) if choice.inferred else zero_slot_warnings(choice.cluster)
    if not yarn:
        workload = with_warnings(workload, zero)
    enforce(workload.warnings, workload.source or "workload")  # --strict
    return workload, [n for n in choice.notes if n not in zero]


def _cluster_text(spec: dict, choice: Any, described: dict | None = None) -> tuple[str, str]:
    """``(cluster, origin)`` for a run's first stderr line and ``spec.assumed.cluster``: NodeManagers in YARN
    mode, slots (or resources) otherwise; ``described`` is the MR1 cluster description when ``spec`` has none."""
    from mrsim.run.describe import cluster_line, yarn_cluster_text

    if spec.get("engine") == "yarn" and "yarn" in spec:
        return yarn_cluster_text(spec, choice.origin)
    return cluster_line(described if described is not None else spec.get("cluster", {})), choice.origin


def _cache_use(trace: Any) -> tuple[dict, list[str]]:
    """``(spec.trace_cache, notes)``: what the trace cache did for ``trace`` in this run (:mod:`mrsim.profiler.cache`).
    ``status`` is ``hit``, ``miss``, ``off`` or ``unused`` (a trace store, job spec, SWIM file or Workload given)."""
    from mrsim.profiler.ingest import cache_use_of

    use = cache_use_of(trace) if isinstance(trace, (str, os.PathLike)) else None
    if use is None:
        return {"status": "unused"}, []
    return use.as_spec(), list(use.notes)


def _needs_inference(args: RunSpec, given: Any) -> bool:
    """Whether the run needs the trace's hosts: to infer its cluster, or to resize it (``--nodes`` on a real
    trace, :mod:`mrsim.whatif.cluster`)."""
    return given is None and not (args.cluster or args.topology)


def _prepared(args: RunSpec, ctx: RunContext, conf: Any, given_cluster: "ClusterSpec | None") -> tuple:
    """What replay and compare do first: the trace read (with its hosts when the cluster comes from them), the
    cluster chosen, the engine chosen, the workload checked against the cluster and the load what-ifs applied.
    Returns ``(loaded, trace, choice, yarn, workload, notes, load_spec)``."""
    from mrsim.profiler.assumptions import choose_cluster
    from mrsim.run.engine_choice import use_yarn
    from mrsim.run.load import apply_load_flags

    loaded, trace = _load(args, ctx, _needs_inference(args, given_cluster))
    choice = choose_cluster(args, conf, trace, loaded.hosts, given_cluster)
    yarn = use_yarn(args, trace, loaded.workload)
    workload, notes = _checked(loaded.workload, choice, yarn)
    workload, load_spec, load_notes = apply_load_flags(args, workload)
    notes.extend(load_notes)
    return loaded, trace, choice, yarn, workload, notes, load_spec


def execute_replay(args: RunSpec, given_cluster: "ClusterSpec | None" = None,
                   ctx: RunContext = RunContext()) -> Run:
    """Everything ``mrsim replay`` does short of printing (CLI and :func:`replay`)."""
    from mrsim.whatif.announce import whatif_spec
    from mrsim.run.calibration import calibrate_run
    from mrsim.run.options import apply_placement, build_conf, build_options, scheduler_config
    from mrsim.run.progress import progress_bar
    from mrsim.tracker.replay import replay as run_replay
    from mrsim.tracker.routing import routing_note
    from mrsim.tracker.schedconf.filekind import check_plugin_config
    from mrsim.tracker.scheduling import scheduler_from
    from mrsim.profiler.assumptions import assumption_line, heartbeat_origin

    if getattr(args, "model", "slots") != "slots":
        raise InputError("mrsim.replay runs the slot engine; use `mrsim replay --model fluid` for the fluid model")
    conf = build_conf(args)
    options = build_options(args)
    loaded, trace, choice, yarn, workload, notes, load_spec = _prepared(args, ctx, conf, given_cluster)
    cluster = choice.cluster
    placement = None
    if yarn:
        from mrsim.run.yarn_calibration import resolve_yarn_calibration
        from mrsim.tracker.yarn import engine as yarn_engine

        calibration, calibration_note = resolve_yarn_calibration(args, trace, workload)
        _announce_before_work(ctx, "replay", _yarn_pre_spec(args, workload, cluster, choice.inferred), choice,
                              heartbeat_origin(args, conf, len(cluster.trackers), options=options, engine="yarn"))
        with progress_bar(len(workload), "jobs") as progress:
            result, yarn_notes = yarn_engine.run_yarn(args, workload, cluster, scheduler_config(args), progress,
                                                      calibration, inferred_cluster=choice.inferred)
        result.spec["notes"] = [calibration_note]
        notes.append(calibration_note)
        notes.extend(yarn_notes)
        notes.extend(f"mrsim: warning: {line}" for line in result.spec.get("site_ignored_keys", []))
    else:
        options, conf, calibration_notes = calibrate_run(args, trace, cluster, conf, options,
                                                            same_cluster=choice.inferred,
                                                            trace_cluster=choice.trace_cluster)
        notes.extend(calibration_notes)
        workload, placement = apply_placement(args, workload, cluster)  # before deadlines: isolated runs need it
        if getattr(args, "deadline_factor", None) is not None:
            from mrsim.studies.deadlines import assign_deadlines

            workload = assign_deadlines(workload, cluster, conf, args.deadline_factor, args.seed, options)
        chosen = args.scheduler or conf.scheduler or "fifo"
        sched_config = scheduler_config(args, chosen)
        check_plugin_config(chosen, sched_config)  # a fair or capacity file given to another scheduler
        scheduler = scheduler_from(chosen, sched_config)
        _announce_before_work(ctx, "replay", _mr1_pre_spec(options, conf, cluster), choice,
                              heartbeat_origin(args, conf, len(cluster.trackers), options=options), cluster.describe())
        with progress_bar(len(workload), "jobs") as progress:
            result = run_replay(workload, cluster, conf, scheduler, options, progress=progress)
        notes.append(routing_note(result.scheduler, scheduler, len(workload)))
        result.spec["engine"] = "mr1"
        result.spec["notes"] = list(calibration_notes)
        memory = result.spec.get("memory_slots")
        if memory and memory["jobs"]:
            notes.append(f"mrsim: note: memory-based scheduling from the job confs (slot {memory['map_slot_mb']} MB map, "
                         f"{memory['reduce_slot_mb']} MB reduce): {len(memory['jobs'])} job(s) take more than one "
                         f"slot per task (Hadoop 1 JobConf.computeNumSlotsPerMap)")
    if placement is not None:
        result.spec["placement"] = placement.to_json()
        notes.append(placement.describe())
    if load_spec is not None:
        result.spec["load"] = load_spec
    note = result.summary.get("scheduler_stats", {}).get("note")
    if note:
        notes.append(note)
    cache_spec, cache_notes = _cache_use(trace if ctx.workload is None else None)
    result.spec["trace_cache"] = cache_spec
    notes.extend(cache_notes)
    notes.extend(_scheduler_warnings(result.spec))
    hb = heartbeat_origin(args, conf, len(cluster.trackers), options=options, engine=result.spec.get("engine", "mr1"))
    cluster_text, origin = _cluster_text(result.spec, choice)
    line = assumption_line("replay", cluster_text, origin, result.spec, hb)
    result.spec["assumed"] = {"cluster": origin, "heartbeat": hb}
    result.spec["whatif"] = whatif_spec(conf, origin, hb, choice.trace_cluster is not None and not choice.inferred,
                                       getattr(args, "hadoop_version", None) is not None)
    return Run(result, workload, cluster, [line], notes)


def execute_compare(args: RunSpec, given_cluster: "ClusterSpec | None" = None,
                    ctx: RunContext = RunContext()) -> ComparisonRun:
    """Everything ``mrsim compare`` does short of printing (CLI and :func:`compare`)."""
    from mrsim.whatif.announce import whatif_spec
    from mrsim.analysis.comparison import compare as run_compare
    from mrsim.analysis.comparison import load_schedulers
    from mrsim.run.calibration import calibrate_run
    from mrsim.run.scheduler_files import normalise_name
    from mrsim.tracker.routing import routing_note
    from mrsim.tracker.scheduling import create_scheduler
    from mrsim.run.options import apply_placement, build_conf, build_options, scheduler_config
    from mrsim.run.progress import progress_bar
    from mrsim.profiler.assumptions import assumption_line, heartbeat_origin
    from mrsim.studies.deadlines import check_deadline_factor

    if args.replications < 1:
        raise OptionError(f"{{replications}} must be at least 1, got {args.replications}")
    if args.deadline_factor is not None:
        check_deadline_factor(args.deadline_factor)
    conf = build_conf(args)
    options = build_options(args)
    config = scheduler_config(args, with_file=False)
    loaded, trace, choice, yarn, workload, notes, load_spec = _prepared(args, ctx, conf, given_cluster)
    cluster = choice.cluster
    placement = None
    if yarn:
        from mrsim.run.yarn_compare import compare_yarn
        from mrsim.tracker.yarn import engine as yarn_engine

        if args.deadline_factor is not None:
            raise OptionError("{deadline_factor} is not supported in YARN mode (use {engine} mr1)")
        names = [normalise_name(n) for n in str(args.schedulers).split(",") if n.strip()]
        if args.schedulers in ("fifo,maxedf,minedf", DEFAULT_COMPARE):  # YARN's three, in the order YARN mode
            names = ["fifo", "capacity", "fair"]                         # has always run them
        configs, file_notes = scheduler_configs(args, names, config)
        notes.extend(file_notes)
        from mrsim.run.yarn_calibration import resolve_yarn_calibration

        calibration, calibration_note = resolve_yarn_calibration(args, trace, workload)
        notes.append(calibration_note)
        _announce_before_work(ctx, "compare", _yarn_pre_spec(args, workload, cluster, choice.inferred), choice,
                              heartbeat_origin(args, conf, len(cluster.trackers), options=options, engine="yarn"))
        with progress_bar(args.replications * len(names), "replays") as progress:
            routing: list[str] = []
            result = compare_yarn(args, workload, cluster, names, args.replications, config, progress,
                                              calibration, inferred_cluster=choice.inferred, configs=configs,
                                              routing=routing)
            notes.extend(routing)
            notes.extend(yarn_engine.yarn_conf(args, workload, cluster, choice.inferred)[1])
    else:
        listed = [normalise_name(n) for n in str(args.schedulers).split(",") if n.strip()]
        configs, file_notes = scheduler_configs(args, listed, config)
        notes.extend(file_notes)
        names = load_schedulers(listed, config, configs=configs)  # fail before any replay
        options, conf, calibration_notes = calibrate_run(args, trace, cluster, conf, options,
                                                            same_cluster=choice.inferred,
                                                            trace_cluster=choice.trace_cluster)
        notes.extend(calibration_notes)
        workload, placement = apply_placement(args, workload, cluster)  # one placement for every scheduler
        edf = [n for n in names if n.lower() in DEADLINE_SCHEDULERS]
        if edf and args.deadline_factor is None and not any(t.deadline_s is not None for t in workload.jobs):
            notes.append(f"mrsim: warning: {', '.join(edf)} order jobs by deadline, but no job has one, so they run "
                         "as FIFO here; give --deadline-factor DF (e.g. 2: deadlines drawn in [T, 2T], T = the "
                         "job's completion alone, SimMR section V-B)")
        first_instances: dict[str, Any] = {}

        def factory(name: str, _config: dict | None) -> Any:  # each scheduler with its own file
            instance = create_scheduler(name, configs[name])
            first_instances.setdefault(name, instance)  # replication 0's, for the routing line
            return instance

        _announce_before_work(ctx, "compare", _mr1_pre_spec(options, conf, cluster), choice,
                              heartbeat_origin(args, conf, len(cluster.trackers), options=options), cluster.describe())
        from mrsim.analysis.comparison import progress_units

        with progress_bar(progress_units(len(names), args.replications), "replays") as progress:
            result = run_compare(workload, cluster, conf, names, options, deadline_factor=args.deadline_factor,
                                 replications=args.replications, config=config, factory=factory,
                                 progress=progress)
        for name, run in result.runs.items():
            for r in run.results:
                r.spec["notes"] = list(calibration_notes)
            notes.append(routing_note(name, first_instances[name], len(workload)))
    seen: set[str] = set()
    for run in result.runs.values():
        if placement is not None:
            for r in run.results:
                r.spec["placement"] = placement.to_json()
        if load_spec is not None:
            for r in run.results:
                r.spec["load"] = dict(load_spec)
        notes.extend(_scheduler_warnings(run.results[0].spec, seen))
    if placement is not None:
        notes.append(placement.describe())
    first = next(iter(result.runs.values())).results[0]
    hb = heartbeat_origin(args, conf, len(cluster.trackers), options=options,
                          engine=first.spec.get("engine", "mr1"))
    cluster_text, origin = _cluster_text(first.spec, choice)
    line = assumption_line("compare", cluster_text, origin, first.spec, hb)
    cache_spec, cache_notes = _cache_use(trace if ctx.workload is None else None)
    notes.extend(cache_notes)
    for run in result.runs.values():
        for r in run.results:
            r.spec["assumed"] = {"cluster": origin, "heartbeat": hb}
            r.spec["whatif"] = whatif_spec(conf, origin, hb, choice.trace_cluster is not None and not choice.inferred,
                                       getattr(args, "hadoop_version", None) is not None)
            r.spec["trace_cache"] = dict(cache_spec)
    return ComparisonRun(result, cluster, workload, [line], notes)


def scheduler_configs(args: RunSpec, names: Sequence[str], base: dict) -> tuple[dict[str, dict], list[str]]:
    """Each compared scheduler's constructor config: ``base`` plus its ``--scheduler-config`` file, if any
    (:mod:`mrsim.run.scheduler_files`); and the notes saying where a single file went."""
    from mrsim.run.scheduler_files import config_files

    files, notes = config_files(getattr(args, "scheduler_config", None), list(names))
    return {n: {**base, **({"config_file": files[n]} if n in files else {})} for n in names}, notes


def _user_set_fields(args: RunSpec) -> set[str]:
    """HadoopConf fields the user set explicitly (a mapred-site.xml counts for all): the trace must not override."""
    from mrsim.profiler.trace_conf import TRACE_KEYS

    if args.mapred_site:
        return {name for name, _ in TRACE_KEYS.values()}
    locked = set()
    if args.slowstart is not None:
        locked.add("slowstart_completed_maps")
    if args.oob_heartbeat:
        locked.add("outofband_heartbeat")
    if getattr(args, "speculative", False):
        locked.update(("map_speculative", "reduce_speculative"))
    return locked


def _validate_format(args: RunSpec):
    from mrsim.profiler.detect import Format

    if not args.format:
        return None
    try:
        return Format[args.format.strip().upper()]
    except KeyError:
        raise OptionError(f"unknown {{format}} {args.format!r} (expected one of {', '.join(f.value for f in Format)})") from None


def execute_validate(args: RunSpec, given_cluster: "ClusterSpec | None" = None,
                     ctx: RunContext = RunContext()) -> ValidationRun:
    """Everything ``mrsim validate`` does short of printing (CLI and :func:`validate`)."""
    from mrsim.whatif.announce import whatif_spec
    from mrsim.profiler.ingest import profile_input
    from mrsim.profiler.observe import require_templates
    from mrsim.analysis.validation.report import Mode
    from mrsim.analysis.validation.run import ValidationSetup, add_background_figures
    from mrsim.analysis.validation.run import validate as run_validate
    from mrsim.profiler.trace_conf import apply_trace_conf
    from mrsim.run.calibration import is_yarn_trace, resolve_background, resolve_calibration
    from mrsim.run.options import attach_demands, build_conf, build_options, scheduler_config
    from mrsim.run.progress import progress_bar
    from mrsim.tracker.replay import effective_interval
    from mrsim.profiler.assumptions import (ClusterChoice, assumption_line, choose_cluster, heartbeat_origin,
                                          zero_slot_notes)
    from mrsim.profiler.topology_infer import cluster_from_hosts
    from mrsim.model.templates import Workload

    if not args.trace:
        raise InputError("validate needs a trace (a real one, with actual completion times)")
    conf = build_conf(args)
    options = build_options(args)
    from mrsim.run.spinner import reading

    with reading(args.trace, ctx.progress):
        profiler = profile_input(args.trace, _validate_format(args))  # the trace cache when it has the file
    require_templates(profiler, args.trace)
    trace_conf_used: dict[str, str] = {}
    if not args.ignore_trace_conf:
        conf, trace_conf_used, conf_warnings = apply_trace_conf(conf, profiler.trace_conf, _user_set_fields(args))
        profiler.warnings.extend(conf_warnings)
    workload = Workload.of(profiler.templates, source=args.trace, warnings=profiler.warnings)
    workload = attach_demands(args, workload, args.trace)
    if not any(t.actual_completion_s is not None for t in workload.jobs):
        raise InputError(f"{args.trace}: no job has an actual completion time (finish - submit); nothing to validate")
    if _needs_inference(args, given_cluster) and args.nodes is None:
        hosts = profiler.hosts()
        if not hosts:
            raise OptionError(f"{args.trace}: the trace names no hosts to infer the cluster from; "
                             "give {cluster}, {topology} or {nodes}")
        cluster = cluster_from_hosts(hosts, source=f"inferred from {args.trace}",
                                     map_slots=args.map_slots, reduce_slots=args.reduce_slots,
                                     memory_slots=options.memory_slots)
        choice = ClusterChoice(cluster, f"inferred from the trace's task attempts: {counted(len(cluster.trackers), 'host')}, "
                               "slots = peak concurrent attempts per host", True, zero_slot_notes(cluster))
    else:
        hosts = profiler.hosts() if _needs_inference(args, given_cluster) else None
        choice = choose_cluster(args, conf, args.trace, hosts, given_cluster)
    cluster = choice.cluster
    from mrsim.run.engine_choice import use_yarn

    workload, checked_notes = _checked(workload, choice, use_yarn(args, args.trace, workload))

    runner = None
    scheduler_name = args.scheduler or conf.scheduler or "fifo"
    run_notes: list[str] = []
    sched_config = scheduler_config(args)
    if not args.scheduler and not getattr(args, "scheduler_config", None):  # the scheduler the trace names
        from mrsim.profiler.trace_conf import scheduler_settings

        extra_config, sched_note = scheduler_settings(trace_conf_used)
        sched_config.update(extra_config)
        trace_sched_notes = [sched_note] if sched_note else []
    else:
        trace_sched_notes = []
    if use_yarn(args, args.trace, workload):
        from mrsim.tracker.yarn import engine as yarn_engine

        yarn_conf, conf_notes = yarn_engine.yarn_conf(args, workload, cluster, choice.inferred)
        scheduler_name, note = yarn_engine.scheduler_name(args, yarn_conf)
        from mrsim.run.yarn_calibration import resolve_yarn_calibration

        yarn_calibration, calibration_note = resolve_yarn_calibration(args, args.trace, workload, profiler)
        run_notes = [calibration_note] + ([note] if note else []) + conf_notes

        def runner(w, c):  # noqa: E306 - one YARN replay per call (isolate calls it per job)
            return yarn_engine.run_yarn(args, w, c, scheduler_config(args), calibration=yarn_calibration,
                                        inferred_cluster=choice.inferred)[0]
    background = None
    if runner is None:  # calibration and outside work are modelled in the MR1 engine (docs/calibration.md)
        calibration = resolve_calibration(args, profiler.measured_calibration(), len(cluster),
                                          yarn=is_yarn_trace(profiler), same_cluster=choice.inferred, conf=conf,
                                          trace_trackers=choice.trace_trackers,
                                          trace_keys=None if args.mapred_site else conf)
        conf = calibration.conf(conf)
        run_notes = trace_sched_notes + list(calibration.notes)
        options = replace(options, calibration=calibration.calibration, calibration_parts=calibration.parts)
        if not args.isolate:  # an isolated job runs alone: nothing outside it
            source = choice.trace_cluster or cluster  # outside work keeps the trace's cluster's slots
            interval = effective_interval(options, conf, len(source))
            estimate = profiler.measured_background(source.map_slots, interval, source.reduce_slots)
            background, note = resolve_background(args, estimate)
            if note:
                run_notes.append(note)
    if runner is None:
        from mrsim.tracker.schedconf.filekind import check_plugin_config

        check_plugin_config(scheduler_name, sched_config)  # a fair or capacity file given to another scheduler
    setup = ValidationSetup(workload, cluster, conf, scheduler_name, replace(options, background=background),
                            profiler.observations, sched_config, runner)
    engine = "yarn" if runner is not None else "mr1"
    pre_spec = (_yarn_pre_spec(args, workload, cluster, choice.inferred) if runner is not None
                else _mr1_pre_spec(setup.options, conf, cluster))
    _announce_before_work(ctx, "validate", pre_spec, choice,
                          heartbeat_origin(args, conf, len(cluster.trackers), trace_conf_used, options=setup.options,
                                           engine=engine), cluster.describe())
    plain_too = background is not None and not background.is_empty()
    replays = (len(workload) if args.isolate else 1) + plain_too
    with progress_bar(replays, "jobs alone" if args.isolate else "replays") as progress:
        report = run_validate(setup, Mode.ISOLATE if args.isolate else Mode.SHARED, progress=progress)
        if plain_too:
            plain = run_validate(replace(setup, options=replace(options, background=None)), Mode.SHARED,
                                 progress=None if progress is None else
                                 (lambda fraction, done=replays - 1: progress(done + fraction)))
            add_background_figures(report, plain, background)
    report.spec["notes"] = run_notes
    report.spec.setdefault("engine", "yarn" if runner is not None else "mr1")
    report.spec["conf_from_trace"] = trace_conf_used
    hb = heartbeat_origin(args, conf, len(choice.cluster.trackers), trace_conf_used, options=setup.options,
                          engine=report.spec["engine"])
    cluster_text, origin = _cluster_text(report.spec, choice, choice.cluster.describe())
    report.spec["assumed"] = {"cluster": origin, "heartbeat": hb}
    report.spec["whatif"] = whatif_spec(conf, origin, hb, choice.trace_cluster is not None and not choice.inferred,
                                       getattr(args, "hadoop_version", None) is not None)
    cache_spec, cache_notes = _cache_use(args.trace)
    report.spec["trace_cache"] = cache_spec
    line = assumption_line("validate", cluster_text, origin, report.spec, hb)
    notes = checked_notes + run_notes + cache_notes + _scheduler_warnings(report.spec)
    notes.extend(f"mrsim: warning: {line}" for line in report.spec.get("site_ignored_keys", []))
    return ValidationRun(report, choice.cluster, [line], notes)
