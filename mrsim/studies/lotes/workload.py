"""Seeded random streams and the job source of the Google-like workload (Tran & Beck section 5.1).

Every random quantity comes from its own named stream, derived from one master seed with
``numpy.random.SeedSequence(seed, spawn_key=(crc32(name),))``. The workload streams (arrivals, classes, requests,
durations) never depend on the scheduling policy, so LoTES and greedy runs with the same seed see exactly the
same jobs; the dispatcher draws from its own ``dispatch`` stream.

Sampling model (documented choices where the paper is silent):

* arrivals: Poisson, rate ``lambda`` jobs per hour (exponential gaps);
* class: ``k`` with probability ``alpha_k``;
* processing time: exponential with the class mean, drawn per task;
* request of resource ``l``: normal with mean ``r_kl`` and standard deviation ``CV_kl * r_kl``, *truncated by
  rejection*: a request vector is redrawn while any component is ``<= 0`` or the vector fits on no machine
  configuration of the cluster. With the CVs of Table 3 (<= 0.19) rejection is rare (< 1e-6 of draws) and the
  means are unchanged to that precision;
* requests are converted to integers of :data:`UNITS_PER` units per resource unit (a micro-core, a micro-GB) so
  that the simulator's free-capacity bookkeeping is exact; at least one unit is requested;
* MapReduce: one map request vector and one reduce request vector per job (every map of a job asks for the same
  amount, as a Hadoop job's ``mapreduce.map.memory.mb`` does), durations per task.

Numbers are produced in chunks of :data:`CHUNK` with numpy and handed out as Python scalars, so the event loop
never touches numpy scalars.
"""

from __future__ import annotations

import itertools
import zlib

import numpy as np

from mrsim.studies.lotes.spec import Cluster, Workload

#: Integer units per resource unit (requests and capacities are stored as ints of this resolution).
UNITS_PER = 1_000_000
#: Numbers drawn per refill.
CHUNK = 1 << 15


def stream(seed: int, name: str) -> np.random.Generator:
    """The named random stream ``name`` of master seed ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(zlib.crc32(name.encode()),))))


def to_units(x: float) -> int:
    return max(1, int(round(x * UNITS_PER)))


class Uniforms:
    """Uniform [0, 1) numbers from one stream, one at a time, drawn in chunks.

    ``next`` is the bound ``__next__`` of a C-level chained iterator over the chunks, so a draw costs no Python
    frame.
    """

    __slots__ = ("next",)

    def __init__(self, rng: np.random.Generator) -> None:
        chunks = (rng.random(CHUNK).tolist() for _ in itertools.count())
        self.next = itertools.chain.from_iterable(chunks).__next__


class JobSource:
    """The job sequence of one replication: arrival time, class, request vector(s), durations.

    ``next_job()`` returns ``(arrival_h, class_index, request, second_request)`` where ``request`` is a list of
    integer units (the map request for MapReduce jobs) and ``second_request`` the reduce request (``None`` for
    single-task jobs). ``durations(k, n)`` returns ``n`` exponential task times (hours) of class ``k``.
    Cost: O(1) amortised per call.
    """

    def __init__(self, workload: Workload, cluster: Cluster, rate: float, seed: int) -> None:
        self._w = workload
        self._rate = rate
        self._two = workload.tasks_per_job > 1
        self._rng_arr = stream(seed, "arrivals")
        self._rng_cls = stream(seed, "classes")
        self._rng_req = stream(seed, "requests")
        self._rng_dur = stream(seed, "durations")
        self._alpha = np.array([c.proportion for c in workload.classes])
        self._alpha = self._alpha / self._alpha.sum()
        self._mean = np.array([c.request_mean for c in workload.classes], dtype=float)
        self._sd = self._mean * np.array([c.request_cv for c in workload.classes], dtype=float)
        self._caps = np.array([c.capacity for c in cluster.configs if c.count > 0], dtype=float)
        self._dmean = [c.mean_duration for c in workload.classes]
        self._t = 0.0
        self._i = 0
        self._n = 0
        self._gaps: list[float] = []
        self._cls: list[int] = []
        self._req: list[list[int]] = []
        self._req2: list[list[int]] = []
        self._e: list[float] = []
        self._ei = 0

    def _requests(self, cls: np.ndarray) -> list[list[int]]:
        x = self._rng_req.normal(self._mean[cls], self._sd[cls])
        units = np.maximum(np.rint(x * UNITS_PER), 1.0)
        bad = self._invalid(x)
        while bad.any():  # rejection = truncation to valid vectors; see the module docstring
            idx = np.flatnonzero(bad)
            x[idx] = self._rng_req.normal(self._mean[cls[idx]], self._sd[cls[idx]])
            units[idx] = np.maximum(np.rint(x[idx] * UNITS_PER), 1.0)
            bad = self._invalid(x)
        return units.astype(np.int64).tolist()

    def _invalid(self, x: np.ndarray) -> np.ndarray:
        fits_somewhere = (x[:, None, :] <= self._caps[None, :, :]).all(axis=2).any(axis=1)
        return (x <= 0).any(axis=1) | ~fits_somewhere

    def _refill(self) -> None:
        self._gaps = self._rng_arr.exponential(1.0 / self._rate, CHUNK).tolist()
        cls = self._rng_cls.choice(len(self._alpha), size=CHUNK, p=self._alpha)
        self._cls = cls.tolist()
        self._req = self._requests(cls)
        if self._two:
            self._req2 = self._requests(cls)
        else:
            # single-task durations are drawn here so one job costs one refill slot
            self._e = (self._rng_dur.standard_exponential(CHUNK) * np.array(self._dmean)[cls]).tolist()
        self._i = 0
        self._n = CHUNK

    def next_job(self) -> tuple[float, int, list[int], list[int] | None]:
        i = self._i
        if i == self._n:
            self._refill()
            i = 0
        self._i = i + 1
        self._t += self._gaps[i]
        return self._t, self._cls[i], self._req[i], (self._req2[i] if self._two else None)

    def duration(self) -> float:
        """Duration (hours) of the single task of the job last returned by :meth:`next_job`."""
        return self._e[self._i - 1]

    def durations(self, k: int, n: int) -> list[float]:
        """``n`` exponential durations (hours) with class ``k``'s mean (MapReduce jobs)."""
        e = self._e
        i = self._ei
        if i + n > len(e):
            self._e = e = self._rng_dur.standard_exponential(max(CHUNK, n)).tolist()
            i = 0
        self._ei = i + n
        m = self._dmean[k]
        return [m * x for x in e[i : i + n]]
