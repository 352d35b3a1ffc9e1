"""Command-line flags shared by ``replay``, ``validate`` and ``compare``: cluster, Hadoop config, engine, outputs.

What the flags build (a :class:`~mrsim.model.runspec.RunSpec`, then a run's inputs) is :mod:`mrsim.cli.runspec` and
:mod:`mrsim.run`."""

from __future__ import annotations

import argparse

from mrsim.errors import InputError

def command_defaults(command: str) -> dict[str, object]:
    """Every option of ``mrsim COMMAND`` (argparse dest) with its default: the keyword options of :mod:`mrsim.api`."""
    import importlib

    from mrsim.cli import _Parser

    module = importlib.import_module(f"mrsim.cli.commands.{command}")
    parser = _Parser(prog=f"mrsim {command}")
    module.add_arguments(parser)
    return {a.dest: a.default for a in parser._actions if a.dest not in ("help", argparse.SUPPRESS)}


def add_cluster_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("cluster (flags, or a file; flags override file defaults)")
    g.add_argument("--nodes", type=int,
                   help="number of TaskTrackers; without it (and without --cluster or --topology) a real trace runs "
                        "on the cluster inferred from its hosts, a synthetic one on 64. On a real trace --nodes N "
                        "is the first N of its hosts, or copies of them, with their slots (docs/what-if.md)")
    g.add_argument("--map-slots", type=int, help="map slots per TaskTracker (default 2, or mapred-site.xml; on a "
                   "cluster inferred from a trace, each host's peak concurrent maps)")
    g.add_argument("--reduce-slots", type=int, help="reduce slots per TaskTracker (default 2, or mapred-site.xml; "
                   "on a cluster inferred from a trace, each host's peak concurrent reduces)")
    g.add_argument("--cores", type=int, help="cores per TaskTracker (default 4)")
    g.add_argument("--racks", type=int, help="racks for --nodes (default 1: /default-rack; on a real trace: its "
                                                "racks)")
    g.add_argument("--cluster", metavar="FILE", help="cluster file (TOML or JSON, see docs/cluster.md), or an SLS "
                   "node file (nodes.json: racks, nodes and per-node resources)")
    g.add_argument("--topology", metavar="FILE", help="Rumen topology JSON: one TaskTracker per host")
    g.add_argument("--mapred-site", metavar="FILE", help="mapred-site.xml: slots, slow start, heartbeat keys")


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("engine")
    g.add_argument("--hadoop-version", default=None,
                   help="heartbeat formula: 0.20 (max(3 s, ceil(N/100) s)), 1.0, or 1.2/1.x (max(0.3 s, 10 ms x N)); default 1.2. "
                        "In YARN mode: 2.x or 3.x (e.g. 2.7, 3.3), where their schedulers differ (docs/yarn.md)")
    g.add_argument("--heartbeat-interval", metavar="S|off",
                   help="override the heartbeat interval (seconds), or 'off' for SimMR's task-completion-driven mode")
    g.add_argument("--oob-heartbeat", action="store_true",
                   help="out-of-band heartbeat when a task finishes (mapreduce.tasktracker.outofband.heartbeat)")
    g.add_argument("--no-job-overheads", action="store_true",
                   help="ignore the trace's job launch delays and setup/cleanup tasks (SimMR's task-only replay)")
    g.add_argument("--memory-slots", choices=("on", "off"), default="on",
                   help="memory-based scheduling: a high-RAM job's task takes ceil(job MB / slot MB) slots when the "
                        "job confs set slot memory (default on; off: one slot per task, also in the inferred cluster)")
    g.add_argument("--no-failed-attempts", action="store_true",
                   help="do not replay the trace's failed/killed attempts (by default they hold slots, then fail)")
    g.add_argument("--speculative", action="store_true",
                   help="speculative execution of maps and reduces with Hadoop 1.x's rules (default off; or the "
                        "mapred.*.tasks.speculative.execution keys of --mapred-site)")
    g.add_argument("--slowstart", type=float, metavar="F",
                   help="mapred.reduce.slowstart.completed.maps (default 0.05)")
    g.add_argument("--naive-heartbeats", action="store_true",
                   help="emulate every heartbeat (slow; results are identical to the default)")
    g.add_argument("--seed", type=int, default=0, help="master random seed (default 0)")
    g.add_argument("--locality", choices=["auto", "on", "off"], default="auto",
                   help="honour map split locations: auto (when they name cluster hosts; default), on (also: maps "
                        "without locations are off-switch, as Hadoop's nonLocalMaps), off")
    g.add_argument("--rack-local-slowdown", type=float, default=1.0, metavar="X",
                   help="multiply rack-local map durations by X (default 1: trace durations)")
    g.add_argument("--off-switch-slowdown", type=float, default=1.0, metavar="X",
                   help="multiply off-switch map durations by X (default 1; Mumak used 3 relative to node-local)")
    g.add_argument("--contention", choices=["none", "tdam"], default="none",
                   help="task durations: none = from the trace (default); tdam = per-node queueing model (needs service demands)")
    g.add_argument("--cpu-model", choices=["seidmann", "exact"], default=None,
                   help="--contention tdam: solve each node's m-core CPU by Seidmann's approximation (the "
                        "dissertation's; default, or the cluster file's cpu_model) or exactly (multi-server MVA)")
    g.add_argument("--demands", action="append", metavar="counters|FILE",
                   help="per-task service demands for --contention tdam: 'counters' (CPU ms and bytes from the trace's "
                        "counters) and/or a demand table FILE (TOML or CSV, job name -> demands); repeatable")
    g.add_argument("--disk-mb-s", type=float, default=None, metavar="MB/S",
                   help="disk bandwidth turning counter bytes into disk demand (default 100 MB/s)")
    g.add_argument("--scheduler-config", metavar="FILE|NAME=FILE,...",
                   help="scheduler configuration file (fair: allocation XML; capacity: capacity-scheduler.xml), or "
                        "one per scheduler: fair=F.xml,capacity=C.xml")
    g.add_argument("--threshold", metavar="RES=U,...",
                   help="CA-FIFO utilization thresholds, e.g. cpu=0.7,disk=0.75")
    g.add_argument("--cafifo-admission", choices=["current", "predicted"], default=None,
                   help="CA-FIFO's admission test (Algorithm 9): current = admit while the node's current "
                        "utilization is below the threshold (default, the literal reading); predicted = while "
                        "its utilization with the task added stays below it")


def add_placement_arguments(p: argparse.ArgumentParser) -> None:
    """Flags that place a workload's tasks in the datacenters of a federated cluster (docs/geo.md)."""
    g = p.add_argument_group("federations (cluster files with [[datacenters]]; docs/geo.md)")
    g.add_argument("--placement", choices=["auto", "uniform", "zipf", "racks"], default="auto",
                   help="datacenter of each map of jobs without a placement: auto (default: keep the input's, "
                        "uniform for the rest), uniform, zipf (per-job random ranking, weight rank^-skew) or racks "
                        "(rack of the first split location); seeded by --seed; jobs that carry one keep it")
    g.add_argument("--placement-skew", type=float, default=None, metavar="S",
                   help="Zipf skew for --placement zipf (default 1.0; 0 = uniform)")
    g.add_argument("--rack-map", metavar="/R1=DC1,...",
                   help="for --placement racks: rack -> datacenter pairs (default: the cluster's own racks, then "
                        "round-robin over the trace's other racks in sorted order)")


# ------------------------------------------------------------------------------ one convention for outputs

LOG_LEVELS = ("debug", "info", "warning", "error")


def add_output_arguments(p: argparse.ArgumentParser, *, out: str | None = None, json: bool = True,
                         report: bool = True, quiet: bool = True) -> None:
    """The shared output flags: ``-o/--out`` (help ``out``), ``--json``, ``--report FILE.html``, ``--quiet`` and
    ``--log-level``. Every command that prints a table takes ``--json``; every run command takes ``--report``."""
    g = p.add_argument_group("output")
    if out:
        g.add_argument("-o", "--out", metavar="DIR", help=out)
    if json:
        g.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    if report:
        g.add_argument("--report", metavar="FILE.html",
                       help="write a self-contained interactive HTML report (no network needed to view it)")
    if quiet:
        g.add_argument("--quiet", action="store_true", help="nothing on stderr but errors (= --log-level error)")
        g.add_argument("--log-level", choices=LOG_LEVELS, default="info",
                       help="stderr detail: info (default: what was assumed, notes, warnings), warning (warnings "
                            "only), error (errors only), debug (also Python logging at DEBUG)")


def stderr_level(args: argparse.Namespace) -> str:
    """``info``, ``warning``, ``error`` or ``debug`` from ``--quiet`` / ``--log-level`` (debug also sets logging)."""
    if getattr(args, "quiet", False):
        return "error"
    level = getattr(args, "log_level", None) or "info"
    if level == "debug":
        import logging

        logging.basicConfig(level=logging.DEBUG)
    return level


def check_report_path(args: argparse.Namespace) -> None:
    """``--report`` must name an .html file (checked before any work, like ``--plot``)."""
    path = getattr(args, "report", None)
    if path and not str(path).lower().endswith((".html", ".htm")):
        raise InputError(f"--report writes an HTML file; give a name ending in .html, got {path!r}")


def add_scheduler_argument(p: argparse.ArgumentParser, help_text: str, default: str | None = None) -> None:
    """``--scheduler NAME|module:Class`` (``module:Class`` is imported from the current directory first)."""
    p.add_argument("--scheduler", default=default, metavar="NAME|module:Class", help=help_text)


def add_engine_choice(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("YARN mode (docs/yarn.md)")
    g.add_argument("--engine", choices=["auto", "yarn", "mr1"], default="auto",
                   help="yarn: ResourceManager/NodeManager/MR AM emulation; mr1: the JobTracker engine; auto "
                        "(default): yarn for .jhist, SLS and Rumen traces from YARN clusters")
    g.add_argument("--yarn-site", metavar="FILE", action="append",
                   help="yarn-site.xml (NodeManager resources, allocation sizes, heartbeat intervals); repeatable")
