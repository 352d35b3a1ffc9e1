"""What a run re-derived from the trace for its cluster, as the ``--json`` ``spec.whatif`` table and the short
label of its heartbeat's source (the replay table's header). Cost: O(1) per run."""

from __future__ import annotations

from typing import Any

from mrsim.model.hadoop_conf import HadoopConf


def heartbeat_label(spec: dict[str, Any]) -> str:
    """Where the run's heartbeat interval came from, in a few words (the full text is ``spec.assumed.heartbeat``)."""
    origin = str((spec.get("assumed") or {}).get("heartbeat", ""))
    if origin == "--heartbeat-interval":
        return origin
    if origin.startswith("calibration: Hadoop"):
        return "the trace's measurement carried to this cluster, docs/what-if.md"
    if origin.startswith("calibration:"):
        return "measured from the trace" if "trace:" in origin else "calibration"
    if origin.startswith("NodeManager"):
        return "NodeManager heartbeat"
    return f"Hadoop {spec.get('hadoop_version')} formula"


def whatif_spec(conf: HadoopConf, cluster_origin: str, heartbeat_origin: str, same_cluster: bool,
                version_given: bool) -> dict[str, Any]:
    """``spec.whatif``: per thing the trace taught that this run may have re-derived, its origin and whether it was
    re-derived (``rederived``: the run's cluster or line differs from the trace's, and the rule of
    docs/what-if.md chose the value)."""
    carried = heartbeat_origin.startswith("calibration: Hadoop")
    return {
        "cluster": {"origin": cluster_origin, "rederived": cluster_origin.startswith("--nodes") and not same_cluster},
        "heartbeat": {"origin": heartbeat_origin, "rederived": carried},
        "hadoop_version": {"value": conf.version.value,
                           "origin": "--hadoop-version" if version_given else conf.version_origin or "default",
                           "rederived": bool(conf.version_origin) and not version_given},
    }
