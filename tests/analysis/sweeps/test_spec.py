"""Sweep specs: every mistake is one InputError naming the key; plans, cell ids and seeds are pure content."""

from __future__ import annotations

from pathlib import Path

import pytest

from mrsim.analysis.sweeps import Model, Param, load_spec, plan_cells
from mrsim.errors import InputError
from tests.analysis.sweeps.helpers import FLUID_SPEC, SLOTS_SPEC, write_spec


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(InputError) as info:
        load_spec(write_spec(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message and "spec.toml" in message
    return message


GEN = '[[workloads]]\ngenerator = "facebook-like"\njobs = 3\n'


@pytest.mark.parametrize("text, expected", [
    ('schedulers = ["fifo"]\nreplicatons = 2\n' + GEN, "'replicatons'"),
    ('schedulers = ["fifo"]\n[[workloads]]\ngenerator = "facebook-like"\njobz = 3\n', "workloads[0]: unknown key 'jobz'"),
    ('schedulers = ["fifo"]\n' + GEN + '[grid]\nsigmaa = [1]\n', "grid: unknown key 'sigmaa'"),
    ('schedulers = ["fifo"]\n' + GEN + '[engine]\nheartbeat = 3\n', "engine: unknown key 'heartbeat'"),
    ('schedulers = ["fifo"]\n' + GEN + '[[clusters]]\nnodez = 3\n', "clusters[0]: unknown key 'nodez'"),
    ('schedulers = [{name = "fifo", confg = {}}]\n' + GEN, "schedulers[0]: unknown key 'confg'"),
    (GEN + 'schedulers = ["fifo"]\n', "top-level keys such as schedulers must come before"),
    ('schedulers = ["fifo"]\n' + GEN + '[grid]\nsigma = [0.5]\n', "sigma applies to model fluid only"),
    ('schedulers = ["fifo"]\n' + GEN + '[grid]\ninterarrival_scale = [1, 0]\n', "interarrival_scale must be a number > 0"),
    ('schedulers = ["fifo"]\n' + GEN + '[grid]\ninterarrival_scale = [1, 1.0]\n', "lists a value twice"),
    ('schedulers = ["fifo"]\nreplications = 2\n' + GEN + '[grid]\nseed = [1, 2]\n', "exclude each other"),
    ('schedulers = ["fifo", "fifo"]\n' + GEN, "label 'fifo' is used twice"),
    ('schedulers = ["nosuch"]\n' + GEN, "unknown scheduler 'nosuch'"),
    ('schedulers = ["fifo"]\n[[workloads]]\ntrace = "missing.json"\n', "missing.json"),
    ('schedulers = ["fifo"]\n[[workloads]]\ngenerator = "yahoo"\n', "generator 'yahoo' is unknown"),
    ('model = "fluid"\nschedulers = ["ps"]\n' + GEN, "fluid model takes SWIM traces"),
    ('model = "fluid"\nschedulers = ["ps"]\n[[workloads]]\ntrace = "tiny.tsv"\n[engine]\nslowstart = 0.5\n',
     "engine does not apply to the fluid model"),
    ('model = "quantum"\nschedulers = ["ps"]\n' + GEN, "model 'quantum' is unknown"),
    ('schedulers = ["fifo"]\n' + GEN + '[engine]\nheartbeat_interval_s = -1\n', "heartbeat_interval_s"),
    ('schedulers = ["fifo"]\n[[workloads]]\ntrace = "tiny.tsv"\n[grid]\nmean_interarrival_s = [5]\n',
     "applies to generators only"),
    ('schedulers = ["fifo"]\n', "workloads is missing"),
])
def test_mistakes_name_the_key(tmp_path: Path, text: str, expected: str) -> None:
    if "tiny.tsv" in text:
        from tests.analysis.sweeps.helpers import write_swim

        write_swim(tmp_path)
    assert expected in _error(tmp_path, text)


def test_plan_order_and_columns(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, SLOTS_SPEC))
    cells = plan_cells(spec)
    # 2 clusters x 2 scales x 2 replications x 2 schedulers, schedulers innermost
    assert len(cells) == 16
    assert [c.scheduler.label for c in cells[:4]] == ["fifo", "fifo-again", "fifo", "fifo-again"]
    assert [c.value(Param.INTERARRIVAL_SCALE) for c in cells[:8]] == [0.5] * 4 + [2.0] * 4
    cols = cells[0].columns()
    assert list(cols)[:5] == ["cell_id", "model", "workload", "cluster", "scheduler"]
    assert cols["mean_interarrival_s"] == 20.0 and cols["deadline_factor"] is None
    assert cols["cluster_nodes"] == 4 and cols["cluster_reduce_slots"] == 8
    assert len({c.cell_id for c in cells}) == len(cells)


def test_ids_and_seeds_are_pure_functions_of_content(tmp_path: Path) -> None:
    a = plan_cells(load_spec(write_spec(tmp_path / "a", SLOTS_SPEC)))
    b = plan_cells(load_spec(write_spec(tmp_path / "b", SLOTS_SPEC)))
    assert [(c.cell_id, c.seed) for c in a] == [(c.cell_id, c.seed) for c in b]
    # common random numbers: schedulers, clusters and scales share the replication's seed ...
    seeds = {(c.replication, c.seed) for c in a}
    assert len(seeds) == 2 and len({s for _, s in seeds}) == 2
    # ... and the master seed changes every seed and id
    c = plan_cells(load_spec(write_spec(tmp_path / "c", SLOTS_SPEC.replace("seed = 7", "seed = 8"))))
    assert not {x.seed for x in a} & {x.seed for x in c}
    assert not {x.cell_id for x in a} & {x.cell_id for x in c}


def test_adding_a_scheduler_keeps_existing_cells(tmp_path: Path) -> None:
    base = plan_cells(load_spec(write_spec(tmp_path / "a", FLUID_SPEC)))
    more = plan_cells(load_spec(write_spec(tmp_path / "b", FLUID_SPEC.replace('"fsp-ps"]', '"fsp-ps", "las"]'))))
    assert {c.cell_id for c in base} < {c.cell_id for c in more}
    assert len(more) == len(base) // 4 * 5


def test_trace_content_not_path_identifies_cells(tmp_path: Path) -> None:
    a = plan_cells(load_spec(write_spec(tmp_path / "a", FLUID_SPEC)))
    b = plan_cells(load_spec(write_spec(tmp_path / "b", FLUID_SPEC)))  # same bytes, other directory
    assert [c.cell_id for c in a] == [c.cell_id for c in b]
    (tmp_path / "b" / "tiny.tsv").write_text((tmp_path / "b" / "tiny.tsv").read_text().replace("job0\t", "job0x\t"))
    c = plan_cells(load_spec(tmp_path / "b" / "spec.toml"))
    assert not {x.cell_id for x in a} & {x.cell_id for x in c}


def test_explicit_seeds(tmp_path: Path) -> None:
    spec = load_spec(write_spec(tmp_path, FLUID_SPEC.replace("replications = 3", "") + "seed = [5, 9]\n"))
    assert spec.model is Model.FLUID
    assert sorted({c.seed for c in plan_cells(spec)}) == [5, 9]


def test_cluster_files_and_scheduler_config_files_are_content(tmp_path: Path) -> None:
    (tmp_path / "racks.toml").write_text('[defaults]\nmap_slots = 1\nreduce_slots = 1\n[[racks]]\nname = "r1"\ncount = 3\n')
    (tmp_path / "sched.xml").write_text("<allocations/>\n")
    text = ('schedulers = [{name = "fair", config = {config_file = "sched.xml"}}]\n' + GEN +
            '[[clusters]]\nfile = "racks.toml"\nmap_slots = 4\n')
    spec = load_spec(write_spec(tmp_path, text))
    (cell,) = plan_cells(spec)
    assert cell.cluster is not None and cell.cluster.label == "racks"
    assert (len(cell.cluster.cluster), cell.cluster.cluster.map_slots, cell.cluster.cluster.reduce_slots) == (3, 12, 3)
    assert cell.scheduler.config["config_file"] == str((tmp_path / "sched.xml").resolve())
    (tmp_path / "sched.xml").write_text("<allocations><pool name='a'/></allocations>\n")
    (changed,) = plan_cells(load_spec(tmp_path / "spec.toml"))
    assert changed.cell_id != cell.cell_id and changed.seed == cell.seed
    assert "nodes cannot be combined with file" in _error(tmp_path, text.replace("map_slots = 4", "nodes = 4"))
