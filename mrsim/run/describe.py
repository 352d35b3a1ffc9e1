"""One-line descriptions of a run's cluster, for the assumption line, tables' headings and reports."""

from __future__ import annotations

from mrsim.wording import counted


def cluster_line(c: dict) -> str:
    """One line for a cluster description (``ClusterSpec.describe()``): slots, or resources, and datacenters."""
    if "resources" in c:
        totals = ", ".join(f"{name} {amount:,.0f}" for name, amount in c["resources"].items())
        text = f"{counted(c.get('nodes'), 'node')} in {counted(c.get('configurations'), 'configuration')}, {totals}"
    else:
        text = f"{counted(c.get('nodes'), 'node')}, {c.get('map_slots')} map + {c.get('reduce_slots')} reduce slots"
    if c.get("datacenters"):
        text += f", {counted(len(c['datacenters']), 'datacenter')}"
    return text


def run_cluster_line(spec: dict) -> str:
    """The cluster of one run's ``spec`` for a table's heading: NodeManagers with memory and vcores in YARN mode
    (:func:`yarn_size_text`; a YARN cluster has no slots), :func:`cluster_line` otherwise."""
    if spec.get("engine") == "yarn" and "yarn" in spec:
        return yarn_size_text(spec)
    return cluster_line(spec.get("cluster", {}))


#: ``yarn.nodemanager.resource.*`` keys: where a YARN run's NodeManager size came from is told by these names.
_NM_KEYS = ("yarn.nodemanager.resource.memory-mb", "yarn.nodemanager.resource.cpu-vcores")


def yarn_size_text(spec: dict) -> str:
    """``3 NodeManagers of 8,192 MB and 8 vcores`` (or the resource totals of a cluster file's nodes)."""
    c, yarn = spec.get("cluster", {}), spec.get("yarn", {})
    if "resources" in c:
        return cluster_line(c)
    n = c.get("nodemanagers", c.get("nodes"))
    return f"{counted(n, 'NodeManager')} of {yarn.get('nm_memory_mb', 0):,.0f} MB and {yarn.get('nm_vcores', 0):g} vcores"


def yarn_cluster_text(spec: dict, hosts_origin: str) -> tuple[str, str]:
    """``(cluster, origin)`` of a YARN-mode run for the first stderr line: NodeManagers with memory and vcores
    (a YARN cluster has no map and reduce slots) and where their size came from: inferred from the trace's peaks,
    the trace's job confs, the given site files, or Hadoop's defaults (``yarn-default.xml``: 8192 MB, 8 vcores)."""
    yarn = spec.get("yarn", {})
    size = yarn_size_text(spec)
    inferred = yarn.get("inferred") or {}
    from_trace = yarn.get("from_trace") or {}
    if "resources" in spec.get("cluster", {}):
        where = "NodeManager sizes: each node's resources in the cluster file"
    elif "nm_memory_mb" in inferred or "nm_vcores" in inferred:
        where = "NodeManager size inferred from the trace's peaks (note below)"
    elif any(k in from_trace for k in _NM_KEYS):
        where = "NodeManager size from the trace's job confs"
    elif yarn.get("sources"):
        where = f"NodeManager size from {', '.join(yarn['sources'])} or Hadoop's defaults"
    else:
        where = "NodeManager size: Hadoop's defaults, 8192 MB and 8 vcores"
    hosts = hosts_origin.split(", slots = ")[0].replace("inferred from the trace's task attempts", "hosts from the "
                                                                                                 "trace's task attempts")
    return size, f"{hosts}; {where}"
