"""The Google-like data centre of Tran & Beck: Table 1 (machines) and Table 3 (job classes).

Table 3 is the authors' rough approximation of Mishra et al.'s Google cluster classes. Only the *Expected* and
*CV* columns are used; the *Range* columns describe how Mishra et al. defined the classes and are not applied as
truncation bounds (truncating class 1's RAM, mean 0.48 GB, to its 0-0.5 GB range would cut ~30 % of draws and
move the mean the LPs rely on). Processing-time CVs are not given: times are exponential (section 5.1).
Units: hours, cores, GB of RAM.
"""

from __future__ import annotations

from mrsim.studies.lotes.spec import Cluster, JobClass, MachineConfig, Workload

RESOURCES: tuple[str, ...] = ("cores", "ram_gb")

#: Table 1: (cores, RAM GB), 1000 machines each.
_TABLE1: tuple[tuple[float, float], ...] = (
    (4, 2), (4, 4), (4, 8), (4, 16),
    (8, 2), (8, 4), (8, 8), (8, 16), (8, 32),
    (24, 32),
)  # fmt: skip

#: Table 3: proportion, mean time (h), mean cores, cores CV, mean RAM (GB), RAM CV.
_TABLE3: tuple[tuple[float, float, float, float, float, float], ...] = (
    (0.33, 0.083, 0.08, 0.16, 0.48, 0.09),
    (0.29, 0.32, 0.40, 0.03, 0.74, 0.09),
    (0.06, 0.65, 1.11, 0.03, 0.68, 0.08),
    (0.01, 0.42, 1.39, 0.04, 1.54, 0.05),
    (0.17, 18.34, 0.12, 0.19, 0.48, 0.11),
    (0.02, 22.23, 0.16, 0.09, 1.66, 0.09),
    (0.07, 20.49, 1.22, 0.03, 0.65, 0.08),
    (0.05, 18.85, 1.32, 0.06, 1.93, 0.07),
)  # fmt: skip

#: Table 2's class labels (processing time, cores, RAM).
_LABELS = ("sss", "sm*", "slm", "sll", "lss", "lsl", "llm", "lll")


def table1_cluster(machines_per_config: int = 1000) -> Cluster:
    """Table 1: ten configurations; 1000 machines each unless scaled down."""
    return Cluster(
        resources=RESOURCES,
        configs=tuple(
            MachineConfig(name=f"{i + 1}:{int(c)}c/{int(m)}G", capacity=(float(c), float(m)), count=machines_per_config)
            for i, (c, m) in enumerate(_TABLE1)
        ),
    )


def table3_workload() -> Workload:
    """Table 3: the eight single-task job classes (use :meth:`Workload.as_mapreduce` for section 7)."""
    return Workload(
        resources=RESOURCES,
        classes=tuple(
            JobClass(
                name=f"{i + 1}:{_LABELS[i]}",
                proportion=p,
                mean_duration=t,
                request_mean=(c, m),
                request_cv=(c_cv, m_cv),
            )
            for i, (p, t, c, c_cv, m, m_cv) in enumerate(_TABLE3)
        ),
    )
