"""The calibration's distributions and its TOML form (round trip and one-line errors naming the key)."""

from __future__ import annotations

import pytest

from mrsim.calibration.model import QUANTILES, Calibration, Distribution, TrackerOutlier
from mrsim.errors import InputError


def test_distribution_quantiles_and_inverse_cdf():
    d = Distribution.of(list(range(101)))  # 0..100: quantile k/100 is k
    assert len(d.quantiles) == QUANTILES and d.quantiles[37] == 37.0
    assert d.sample(0.0) == 0.0 and d.sample(0.5) == 50.0
    assert d.sample(0.255) == pytest.approx(25.5)  # linear between the 25th and 26th quantiles
    assert d.mean == pytest.approx(50.0) and d.median == 50.0 and d.samples == 101


def test_constant_and_negative_samples_clamped():
    assert Distribution.of([2.0, 2.0]).quantiles == (2.0,)
    assert Distribution.of([-3.0, 1.0]).quantiles[0] == 0.0  # clock skew: counted as 0
    assert Distribution.constant(1.5).sample(0.9) == 1.5


def _calibration() -> Calibration:
    return Calibration(launch_lag={"map": Distribution.of([1.0, 2.0, 3.0]), "setup": Distribution.constant(0.5)},
                       report_lag={"reduce": Distribution.of([0.0, 0.2])},
                       job_init_delay=Distribution.constant(4.0), heartbeat_interval_s=0.5,
                       heartbeat_source="trace: test", jvm_reuse=-1, map_slots=2, reduce_slots=1,
                       outliers={"h7": TrackerOutlier("h7", ((10.0, 200.0),), "stalled"),
                                 "h8": TrackerOutlier("h8", (), "map launcher stuck", ((5.0, 9.0),), ((1.0, 2.0),))},
                       source="hand", jobs=3, attempts=9, hosts=4, notes=('a "quoted" note',))


def test_toml_round_trip_is_exact():
    c = _calibration()
    assert Calibration.from_toml(c.to_toml(), "x.toml") == c


@pytest.mark.parametrize("text,key", [
    ("[launch_lag.map]\nquantiles = [-1.0]\n", "launch_lag.map.quantiles"),
    ("[launch_lag.map]\nquantiles = [nan]\n", "launch_lag.map.quantiles"),
    ("[launch_lag.map]\nquantiles = [2.0, 1.0]\n", "launch_lag.map.quantiles"),
    ("colour = 3\n", "'colour'"),
    ("[launch_lag.shuffle]\nquantiles = [1.0]\n", "launch_lag.'shuffle'"),
    ("heartbeat_interval_s = -1\n", "heartbeat_interval_s"),
    ("heartbeat_interval_s = inf\n", "heartbeat_interval_s"),
    ("jvm_reuse = 0\n", "jvm_reuse"),
    ("[[outliers]]\nhost = \"h\"\nstalls = [[5.0, 1.0]]\n", "outliers[0].stalls"),
    ("[[outliers]]\nhost = \"h\"\nmap_stalls = [[-5.0, 1.0]]\n", "outliers[0].map_stalls"),
    ("[[outliers]]\nhost = \"h\"\nlauncher = \"map\"\n", "'launcher'"),
    ("[launch_lag.map]\nquantiles = [1.0]\nextra = 2\n", "'extra'"),
])
def test_bad_calibration_is_one_line_error_naming_the_key(text, key):
    with pytest.raises(InputError) as err:
        Calibration.from_toml(text, "cal.toml")
    message = str(err.value)
    assert message.startswith("cal.toml") and key in message and "\n" not in message


def test_constant_lag_may_be_written_as_a_number():
    c = Calibration.from_toml("[launch_lag]\nmap = 1.5\n", "c.toml")
    assert c.launch_lag["map"].quantiles == (1.5,)
