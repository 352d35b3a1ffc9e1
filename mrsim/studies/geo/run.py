"""One run of the geo study on the engine: the paper's push model as a configuration of the JobTracker.

Hung, Golubchik and Yu (SoCC'15, section 2) define their results on a push model: a task launches the instant a
slot of its datacenter frees, after one controller decision per batch of same-instant events holding an arrival
or a departure. The engine runs exactly that in task-completion mode (``--heartbeat-interval off``): each
datacenter is one TaskTracker with the datacenter's slots (:func:`mrsim.studies.geo.engine_inputs.engine_inputs`),
the federation feature (``mrsim/tracker/features/federation.py``) runs each task in its datacenter, and the geo
controller (``schedulers/geo_controller.py``) decides once at the end of every instant with a change, then the
trackers launch in datacenter order. ``tests/oracles/geo_simulator.py`` is the paper's model written directly
(a kernel configuration without a JobTracker); the tests pin this run against it on the paper's worked example
and seeded synthetic traces (``tests/studies/geo/test_engine_vs_oracle.py``).

What differs from a model written directly, and why it does not show in the results:

* the engine runs about three events per task (the completion, the heartbeat it triggers that launches the next
  task, and the heartbeat after a launch that reports the tracker's status), plus one controller event per
  decision; ``GeoResult.n_events`` counts the model's events (task finishes and arrivals) and
  ``engine_events`` the kernel's;
* the engine's clock starts at the first arrival (times are shifted back when the result is built; bit-exact
  when the first arrival is at 0, as in every synthetic and trace workload, else equal to ~1e-12 s).

Cost: the engine's per-event cost (``docs/performance.md``, "The geo study on the engine") plus one controller
decision per batch with an arrival or departure (:mod:`mrsim.studies.geo.policies`). The replay's result tables
(pandas) are not built: the record is read off the engine's job states.
"""

from __future__ import annotations

import numpy as np

from mrsim.tracker.features.federation import FederationFeature
from mrsim.tracker.jobtracker import JobTracker
from mrsim.tracker.scheduling import create_scheduler
from mrsim.tracker.state import TASK_MASK, JobState, TrackerState
from mrsim.model.cluster import ClusterSpec
from mrsim.model.hadoop_conf import HadoopConf
from mrsim.model.templates import Workload
from mrsim.studies.geo.engine_inputs import engine_inputs
from mrsim.studies.geo.model import GeoWorkload
from mrsim.studies.geo.policies import Policy
from mrsim.studies.geo.result import GeoResult, InvariantError, SizeMeasure


def prepare(workload: GeoWorkload) -> tuple[Workload, ClusterSpec]:
    """The engine inputs of ``workload`` (job templates and the federated cluster), built once and shared by the
    runs of every policy on it: building and validating the templates costs about as much as a run. O(tasks)."""
    return engine_inputs(workload, keep_order=True)


def simulate(
    workload: GeoWorkload,
    policy: Policy,
    measure: SizeMeasure = SizeMeasure.TASKS,
    *,
    record_tasks: bool = False,
    check: bool = False,
    inputs: tuple[Workload, ClusterSpec] | None = None,
) -> GeoResult:
    """Run ``workload`` under ``policy`` on the engine until every job has finished (module docstring).

    Deterministic except ``decision_ns``. ``record_tasks`` keeps ``(start, end, job, datacenter)`` per task in
    launch order; ``check=True`` runs the engine's invariant checks after every event (tests); ``inputs``:
    :func:`prepare`'s result for ``workload``, when several policies run on it.
    """
    engine_workload, cluster = inputs if inputs is not None else prepare(workload)
    config = {"measure": measure.value} if measure is SizeMeasure.SECONDS else None
    scheduler = create_scheduler(policy.value, config)
    jt = JobTracker(engine_workload, cluster, HadoopConf(), scheduler, heartbeat_interval=0.0)
    jt.attach(FederationFeature())
    origin = engine_workload.origin_s
    tasks: list[tuple[float, float, int, int]] | None = None
    if record_tasks:
        tasks = []
        launched = tasks

        def on_launch(job: JobState, tracker: TrackerState, gid: int) -> None:
            i = gid & TASK_MASK
            launched.append((job.map_start[i] + origin, job.map_finish[i] + origin, job.index, tracker.datacenter))

        jt.register("the geo study's launch log", on_launch=on_launch)
    jt.run(jt.check_invariants if check else None)
    if jt.jobs_done != len(jt.jobs):  # pragma: no cover - would be an engine bug
        raise InvariantError(f"{len(jt.jobs) - jt.jobs_done} job(s) never finished")
    busy = np.zeros(max(1, workload.federation.size))
    for job in jt.jobs:
        np.add.at(busy, np.asarray(job.map_dc, dtype=np.int64), np.asarray(job.map_dur, dtype=np.float64))
    controller = scheduler  # it keeps the decision records (schedulers/geo_controller.py)
    return GeoResult(
        policy=policy,
        measure=measure,
        job_ids=tuple(job.job_id for job in workload.jobs),
        arrival_s=np.array([job.arrival_s for job in workload.jobs], dtype=np.float64),
        finish_s=np.array([job.finish_time for job in jt.jobs], dtype=np.float64) + origin,
        n_tasks=np.array([job.n_tasks for job in workload.jobs], dtype=np.int64),
        decision_at_s=np.array(controller.decision_at, dtype=np.float64) + origin,  # type: ignore[attr-defined]
        decision_jobs=np.array(controller.decision_jobs, dtype=np.int64),  # type: ignore[attr-defined]
        decision_entries=np.array(controller.decision_entries, dtype=np.int64),  # type: ignore[attr-defined]
        decision_ns=np.array(controller.decision_ns, dtype=np.int64),  # type: ignore[attr-defined]
        busy_s=busy,
        n_events=workload.n_tasks + len(workload),
        tasks=tuple(tasks) if tasks is not None else None,
        engine_events=jt.kernel.events,
    )
