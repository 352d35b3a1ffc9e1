"""Content-based format detection."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from mrsim.errors import InputError
from mrsim.profiler.detect import Format, detect_format, iter_logged_jobs
from tests.profiler.formats.gold import DATA, JHIST, SLS, TRUNK


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (TRUNK / "dispatch-sample-v20-jt-log.gz", Format.JOBHISTORY),
        (TRUNK / "truncated-job-tracker-log", Format.JOBHISTORY),
        (TRUNK / "counters-format-test-logs", Format.JOBHISTORY),
        (TRUNK / "dispatch-trace-output.json.gz", Format.RUMEN),
        (TRUNK / "job-tracker-logs-trace-output.gz", Format.RUMEN),
        (DATA / "sls" / "main-data" / "2jobs2min-rumen-jh.json", Format.RUMEN),
        (JHIST / "mapreduce-client-hs" / "job_2.4.0-FAILED.jhist", Format.JHIST),
        (JHIST / "mapreduce-client-hs", Format.JHIST),
        (SLS / "inputsls.json", Format.SLS),
        (DATA / "swim" / "FB-2010_samples_24_times_1hr_0.tsv", Format.SWIM),
        (DATA / "swim", Format.SWIM),
    ],
    ids=lambda v: v.name if isinstance(v, Path) else v.value,
)
def test_real_files(path: Path, expected: Format) -> None:
    assert detect_format(path) is expected


def test_content_decides_not_the_name(tmp_path: Path) -> None:
    disguised = tmp_path / "trace.json"
    disguised.write_bytes(gzip.compress((JHIST / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist").read_bytes()))
    assert detect_format(disguised) is Format.JHIST
    sls_gz = tmp_path / "jobs.log"
    sls_gz.write_bytes(gzip.compress((SLS / "inputsls.json").read_bytes()))
    assert detect_format(sls_gz) is Format.SLS
    assert [j["jobID"] for j in iter_logged_jobs(sls_gz)] == ["job_1", "job_2"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.txt", b"just some text\n", "notes.txt: unrecognised format"),
        ("empty.json", b"", "empty.json: is empty"),
        ("topo.json", b'{"name": "<root>", "children": []}', "topo.json: is a Rumen topology"),
        ("syn.json", b'{"num_nodes": 20, "workloads": []}', "syn.json: is an SLS SYNTH workload spec"),
        ("five.tsv", b"job0\t1\t2\t3\t4\n", "five.tsv: unrecognised format"),
    ],
)
def test_unknown_content_is_an_input_error_naming_the_file(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError, match=message.replace(".", r"\.")):
        detect_format(path)


def test_directories(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="holds no recognised"):
        detect_format(tmp_path)
    shutil.copy(SLS / "inputsls.json", tmp_path / "a.json")
    shutil.copy(TRUNK / "truncated-job-tracker-log", tmp_path / "b")
    with pytest.raises(InputError, match="mixes formats: sls .*jobhistory"):
        detect_format(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        detect_format(tmp_path / "nope")


@pytest.mark.parametrize(
    "path",
    [
        TRUNK / "dispatch-sample-v20-jt-log.gz",
        JHIST / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist",
        SLS / "inputsls.json",
        TRUNK / "dispatch-trace-output.json.gz",
    ],
    ids=["jobhistory", "jhist", "sls", "rumen"],
)
def test_one_builder_serves_every_format(path: Path) -> None:
    """The contract: every reader's dicts feed the same LoggedJob -> JobTemplate builder."""
    from mrsim.profiler.builder import template_from_logged_job

    for job in iter_logged_jobs(path, warnings=[]):
        if job["outcome"] != "SUCCESS":
            continue
        template = template_from_logged_job(job, source=str(path), warnings=[])
        succeeded = sum(any(a["result"] == "SUCCESS" for a in t["attempts"]) for t in job["mapTasks"])
        assert template is not None and len(template.map_durations) == succeeded


def test_a_cut_gzip_is_still_recognised(tmp_path: Path) -> None:
    data = gzip.compress((JHIST / "mapreduce-client-jobclient" / "job_1329348432655_0001-10.jhist").read_bytes())
    cut = tmp_path / "cut.gz"
    cut.write_bytes(data[: len(data) // 2])
    assert detect_format(cut) is Format.JHIST
    cut.write_bytes(data[:5])  # not even one block: nothing to go on
    with pytest.raises(InputError, match="cut.gz"):
        detect_format(cut)
