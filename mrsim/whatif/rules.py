"""The what-if rules as data: per thing a replay takes from the trace, what happens when the user changes the
cluster, the Hadoop settings, the scheduler or the load. ``docs/what-if.md`` holds :func:`markdown_table`'s output
(a test keeps the two the same); each rule names the Hadoop class it follows or says it is an assumption.

``python3 -m mrsim.whatif.rules`` prints the table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    taught: str  # what the replay takes from the trace
    change: str  # the user's change
    rule: str  # what the what-if does
    basis: str  # the Hadoop class and method it follows, or "assumption: ..."


RULES: tuple[Rule, ...] = (
    Rule("Hadoop line (heartbeat formula)", "nodes, slots, racks, scheduler, load",
         "kept: the job confs' key spelling (0.21/0.22), else the JobTracker start date in the job ids (before "
         "0.20.203.0: 0.20.2's formula; before 1.1.0: the 3-s floor), else the measured interval's nearest formula",
         "`JobTracker.getNextHeartbeatInterval` of each line; release dates of 0.20.203.0 and 1.1.0"),
    Rule("Hadoop line (heartbeat formula)", "`--hadoop-version V`", "V's formula; the measured excess over the "
         "trace's formula is kept (below)", "`JobTracker.getNextHeartbeatInterval` of V"),
    Rule("measured heartbeat interval", "nodes (N0 to N trackers)",
         "f_whatif(N) x measured / f_trace(N0): the same on a 0.20-1.0 line up to 100 trackers, longer beyond; "
         "exactly the measured value on the trace's own cluster", "`JobTracker.getNextHeartbeatInterval`"),
    Rule("measured heartbeat interval", "heartbeat keys (`--mapred-site`)",
         "the what-if formula uses the file's `mapred.heartbeats.in.second` and scaling factor, the trace's formula "
         "the keys its job confs record (`validate`) or Hadoop's defaults, so the ratio carries the change",
         "`JobTracker.getNextHeartbeatInterval`"),
    Rule("measured heartbeat interval", "`--heartbeat-interval S`", "S, and nothing is re-derived or announced "
         "about the measured one", "the user's choice"),
    Rule("launch and report lag laws", "nodes, slots, racks, scheduler, load",
         "kept: sampled per task as in the trace (JVM start, localisation, the completion report)",
         "assumption: `TaskTracker.launchTaskForJob` and `localizeJob` cost per task, whatever the cluster size"),
    Rule("stall windows, outlier TaskTrackers", "nodes",
         "kept by host name: a host dropped by `--nodes` takes its windows with it; copies of hosts have none",
         "assumption: a stall is an event of one machine in the run replayed"),
    Rule("stalled tasks (carried stalls)", "nodes, slots, scheduler",
         "kept with their tasks, wherever the replay runs them", "`TaskTracker.TaskLauncher`: the task waited in "
         "its launcher (SimMR III-A: a template replays what each task did)"),
    Rule("background occupancy (`--background trace`)", "nodes, slots",
         "estimated on the trace's cluster; the same held slots on the what-if cluster, where they are free",
         "assumption: work outside the trace is other jobs' demand, not a share of the cluster"),
    Rule("high-RAM slot widths", "slots, nodes", "kept: ceil(job MB / slot MB) from each job's conf",
         "`JobConf.computeNumSlotsPerMap`"),
    Rule("slots per host (inferred)", "`--nodes N`",
         "the first N hosts with their slots (N below the trace's), or every host and copies of them in order "
         "(N above); N equal to the trace's replays the plain replay byte for byte", "assumption: more of the same "
         "machines (`mrsim.whatif.cluster`)"),
    Rule("slots per host (inferred)", "`--map-slots` / `--reduce-slots`", "every node's slots",
         "`mapred.tasktracker.{map,reduce}.tasks.maximum`"),
    Rule("racks", "`--racks R`", "the nodes regrouped into R racks in contiguous blocks", "`ScriptBasedMapping` "
         "(a topology the user describes)"),
    Rule("split locations", "nodes, racks", "kept by host name: a split on a dropped host or rack is read "
         "remotely (rack-local or off-switch, `--locality`)", "`JobInProgress.findNewMapTask` locality levels"),
    Rule("scheduler and its settings from the job confs", "`--scheduler`, `--scheduler-config`",
         "the user's; `validate` replays the trace's (`mapred.jobtracker.taskScheduler` and its keys)",
         "`JobTracker` `mapred.jobtracker.taskScheduler`"),
    Rule("submit times", "load (inter-arrival scale, folding)", "see the load what-ifs: the templates' durations are "
         "kept, only submissions move", "Rumen's `Folder`"),
)


def markdown_table(rules: tuple[Rule, ...] = RULES) -> str:
    """The rules as the Markdown table docs/what-if.md holds."""
    lines = ["| the trace taught | the user changes | the what-if | follows |", "|---|---|---|---|"]
    lines += [f"| {r.taught} | {r.change} | {r.rule} | {r.basis} |" for r in rules]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
