"""Flags of the cluster calibration and the background for replay, compare and validate (resolved by
:mod:`mrsim.run.calibration`).

``--calibration-from PATH`` (a calibration TOML, a trace, a log or a trace store of the same cluster),
``--no-calibration`` (exactly the engine without calibration), ``--calibration-parts`` (ablations) and
``--background trace|none``. Every decision is returned as a one-line note so that the CLI can announce it
(``docs/calibration.md``).
"""

from __future__ import annotations

import argparse

from mrsim.calibration.choice import PARTS


def add_calibration_arguments(p: argparse.ArgumentParser, background_default: str) -> None:
    g = p.add_argument_group("calibration (docs/calibration.md)")
    g.add_argument("--calibration-from", metavar="PATH",
                   help="measure the cluster's overheads from PATH (a calibration TOML, a trace, a log or a trace "
                        "store of the same cluster) instead of from the replayed trace")
    g.add_argument("--no-calibration", action="store_true",
                   help="replay tasks without launch/report lags and the trace's heartbeat interval (SimMR's engine)")
    g.add_argument("--calibration-parts", metavar="P,...", default=",".join(PARTS),
                   help="terms of the calibration to replay (ablations): " + ", ".join(PARTS) + " (default: all)")
    g.add_argument("--background", choices=["trace", "none"], default=background_default,
                   help="map slots held by work outside the trace, estimated from it (default: "
                        f"{background_default})")
