"""The evaluation set-up of Hung, Golubchik and Yu (SoCC 2015) as named presets of ``mrsim geo``.

``--preset socc15-facebook`` (``-google``, ``-exponential``) fills every synthetic-workload setting the user did not
give. Each value records where it comes from: the paper's statements as its slide summary and a published review
of it restate them, or, where no text available to this project states the value, mrsim's documented default,
marked ``stated = False`` so that the run record says which values are the paper's and which are not
(docs/geo.md, "The paper's set-up and its figures").

Sources:

* *summary*: the slide summary of the paper (its Table 2 of trace types: mean tasks per job, class shares; "average
  task duration time (2s)"; improvements "under higher utilization");
* *review*: a course review of the paper (Elgamal, 2016), listing the paper's assumptions "mentioned explicitly in
  the paper": "homogenous task durations", "homogenous datacenter capacity and latency", "guaranteed data
  locality", single-stage jobs.

Cost: a dictionary lookup; the presets are frozen data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mrsim.errors import InputError
from mrsim.studies.geo.workloads import Scenario, TraceType


@dataclass(frozen=True)
class Setting:
    """One preset value and its source: ``stated`` when a text about the paper gives it, else mrsim's default."""

    value: Any
    stated: bool
    source: str

    def describe(self) -> dict[str, Any]:
        return {"value": self.value, "stated": self.stated, "source": self.source}


_DURATION = Setting(2.0, True, "summary: average task duration 2 s")
_HOMOGENEOUS = Setting("constant", True, "review: homogeneous task durations (an assumption of the paper)")
_UTILIZATIONS = Setting("0.5,0.6,0.7,0.8,0.9", False,
                        "not stated in the available text (summary: gains reported 'under higher utilization'); "
                        "mrsim's sweep")
_DATACENTERS = Setting(30, False, "not stated in the available text; mrsim's default")
_SLOTS = Setting(10, False, "not stated in the available text (review: homogeneous datacenter capacity); "
                 "mrsim's default, equal in every datacenter")
_PLACEMENT = Setting("zipf", False, "not stated in the available text (summary: 'impact of task assignment' is a "
                     "sensitivity study); mrsim's default")
_SKEW = Setting(1.0, False, "not stated in the available text; mrsim's default")

#: CLI flag (argparse dest) -> setting, shared by the three traces.
_COMMON: dict[str, Setting] = {
    "utilization": _UTILIZATIONS,
    "datacenters": _DATACENTERS,
    "slots": _SLOTS,
    "placement": _PLACEMENT,
    "skew": _SKEW,
    "task_duration": _DURATION,
    "durations": _HOMOGENEOUS,
}

_TRACES = {
    TraceType.FACEBOOK: "summary, Table 2: mean 364.6 tasks, 89 / 8 / 3 % small / medium / large jobs",
    TraceType.GOOGLE: "summary, Table 2: mean 86.9 tasks, 96 / 2 / 2 %",
    TraceType.EXPONENTIAL: "summary, Table 2: exponential job sizes, mean 800 tasks",
}

#: preset name -> {argparse dest -> Setting}
PRESETS: dict[str, dict[str, Setting]] = {
    f"socc15-{trace.value}": {"workload": Setting(trace.value, True, source), **_COMMON}
    for trace, source in _TRACES.items()
}


def preset(name: str) -> dict[str, Setting]:
    """The settings of preset ``name``; an :class:`InputError` naming the known presets otherwise."""
    try:
        return PRESETS[name.strip().lower()]
    except KeyError:
        raise InputError(f"unknown --preset {name!r} (expected {', '.join(sorted(PRESETS))})") from None


def scenarios(name: str, *, seed: int = 1, n_jobs: int | None = None) -> list[Scenario]:
    """The preset's synthetic workloads, one per utilisation of its sweep (what ``mrsim geo compare --preset
    NAME --seed SEED`` runs; ``n_jobs`` None: the trace's default job count)."""
    from mrsim.studies.geo.placement import Placement, PlacementKind
    from mrsim.studies.geo.figures import DEFAULT_JOBS
    from mrsim.studies.geo.workloads import DurationModel

    s = {k: v.value for k, v in preset(name).items()}
    trace = TraceType.parse(s["workload"])
    return [Scenario(trace=trace, utilization=float(u), n_datacenters=s["datacenters"], slots=s["slots"],
                     n_jobs=n_jobs or DEFAULT_JOBS[trace], placement=Placement(PlacementKind.parse(s["placement"]), s["skew"]),
                     seed=seed, mean_task_s=s["task_duration"], durations=DurationModel.parse(s["durations"]))
            for u in str(s["utilization"]).split(",")]
