"""Damaged input never escapes as anything but InputError: cut or corrupted real files, every reader."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mrsim.errors import InputError
from mrsim.profiler.detect import detect_format
from mrsim.profiler.jhist import iter_jhist_jobs
from mrsim.profiler.jobhistory import iter_jobhistory_jobs
from mrsim.profiler.sls import iter_sls_jobs
from tests.profiler.formats.gold import JHIST, SLS, TRUNK
from tests.profiler.formats.test_jhist import SLEEP10, _binary_jhist

SOURCES = {
    "jobhistory": (iter_jobhistory_jobs, lambda _: gzip.decompress((TRUNK / "dispatch-sample-v20-jt-log.gz").read_bytes())),
    "jhist-json": (iter_jhist_jobs, lambda _: (JHIST / "mapreduce-client-hs" / "job_2.0.3-alpha-FAILED.jhist").read_bytes()),
    "jhist-binary": (iter_jhist_jobs, lambda d: (_binary_jhist(SLEEP10, d / "src.jhist"), (d / "src.jhist").read_bytes())[1]),
    "sls": (iter_sls_jobs, lambda _: (SLS / "inputsls.json").read_bytes()),
}

damage = st.one_of(
    st.tuples(st.just("cut"), st.floats(0, 1)),
    st.tuples(st.just("bytes"), st.lists(st.tuples(st.floats(0, 1), st.sampled_from(b'"=.\\ \n{}[]():,09aZ\x00\xff')), min_size=1, max_size=12)),
    st.tuples(st.just("hole"), st.tuples(st.floats(0, 1), st.integers(1, 3000))),
)


def _damage(data: bytes, how: tuple) -> bytes:
    kind, arg = how
    out = bytearray(data)
    if kind == "cut":
        return bytes(out[: int(arg * len(out))])
    if kind == "bytes":
        for where, byte in arg:
            out[min(int(where * len(out)), len(out) - 1)] = byte
        return bytes(out)
    start = int(arg[0] * len(out))
    del out[start : start + arg[1]]
    return bytes(out)


@pytest.mark.parametrize("name", list(SOURCES))
def test_damaged_input_gives_jobs_warnings_or_input_error(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    reader, make = SOURCES[name]
    folder = tmp_path_factory.mktemp(name)
    original = make(folder)

    # 30 damaged copies per reader and zip state; tests/hostile/test_fuzz.py damages real files of the same formats.
    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(how=damage, zipped=st.booleans())
    def check(how: tuple, zipped: bool) -> None:
        data = _damage(original, how)
        path = folder / "damaged.jhist"
        path.write_bytes(gzip.compress(data) if zipped else data)
        for action in (lambda: list(reader(path, warnings=[])), lambda: detect_format(path)):
            try:
                action()
            except InputError as exc:
                assert "\n" not in str(exc)

    check()
