"""Shared builders for the LoTES tests: tiny clusters, workloads and scripted job sources."""

from __future__ import annotations

import math

import pytest

from mrsim.studies.lotes.spec import Cluster, JobClass, MachineConfig, Workload
from mrsim.studies.lotes.workload import UNITS_PER


def units(*xs: float) -> list[int]:
    return [int(round(x * UNITS_PER)) for x in xs]


class ScriptedSource:
    """A job source replaying ``jobs``: (arrival h, class, request, reduce request or None, durations list).

    A single-task job's duration is the first of its list. MapReduce durations are handed out in the order the
    engine asks for them (maps at arrival, reduces when the last map ends), from ``mr_durations``.
    """

    def __init__(
        self,
        jobs: list[tuple[float, int, list[float], list[float] | None, list[float]]],
        mr_durations: list[float] | None = None,
    ) -> None:
        self.jobs = jobs
        self.i = 0
        self._durs: list[float] = []
        self._mr = list(mr_durations or [])

    def next_job(self):
        if self.i >= len(self.jobs):
            return math.inf, 0, [1, 1], None
        t, k, req, req2, durs = self.jobs[self.i]
        self.i += 1
        self._durs = list(durs)
        return t, k, units(*req), (units(*req2) if req2 is not None else None)

    def duration(self) -> float:
        return self._durs[0]

    def durations(self, k: int, n: int) -> list[float]:
        out, self._mr = self._mr[:n], self._mr[n:]
        assert len(out) == n, "script gave too few durations"
        return out


@pytest.fixture
def two_class_system() -> tuple[Cluster, Workload]:
    """Two configurations with complementary shapes and two classes that each suit one of them."""
    cluster = Cluster(
        resources=("cores", "ram_gb"),
        configs=(
            MachineConfig("cpu", (10.0, 2.0), 4),
            MachineConfig("mem", (2.0, 10.0), 4),
        ),
    )
    workload = Workload(
        resources=("cores", "ram_gb"),
        classes=(
            JobClass("X", 0.5, 1.0, (1.0, 0.2), (0.05, 0.05)),
            JobClass("Y", 0.5, 1.0, (0.2, 1.0), (0.05, 0.05)),
        ),
    )
    return cluster, workload
