"""SLS node files as clusters: Hadoop's Scheduler Load Simulator's ``--nodes`` input (``nodes.json``).

The file is a stream of JSON objects, one per rack (``SLSUtils.parseNodesFromNodeFile``)::

    {"rack": "rack1", "nodes": [{"node": "node1", "memory-mb": 2048, "vcores": 6}, {"node": "node2"}]}
    {"rack": "rack2", "nodes": [{"node": "node3", "labels": "label1, label2(exclusive=false)"}]}

Each node becomes one TaskTracker / NodeManager named after ``node`` on rack ``/rack`` (SLS names the host
``/rack/node``). A node may set any resource by its YARN name (``memory-mb``, ``vcores``, or another declared type);
SLS gives the others its NodeManager default, ``yarn.sls.nm.memory.mb`` = 10240 and ``yarn.sls.nm.vcores`` = 10
(``SLSConfiguration``). When no node of the file sets a resource, the cluster is a plain slot cluster and YARN mode
sizes its NodeManagers from ``yarn-site.xml`` as for any other cluster. ``labels`` are not modelled (a note says
so); a node entry without a name is skipped with a note (SLS would register a host called ``null``).

Cost: one pass over the file, O(nodes).
"""

from __future__ import annotations

import json
from typing import Mapping

from mrsim.errors import InputError
from mrsim.io.safe_json import JSONValueError, raw_decode, strict_decoder
from mrsim.wording import counted

#: SLS's NodeManager resources for a node that does not set them (``SLSConfiguration.NM_*_DEFAULT``).
SLS_NM_DEFAULTS: dict[str, float] = {"memory_mb": 10240.0, "vcores": 10.0}

#: YARN resource names as SLS node files spell them -> mrsim's resource names (``docs/cluster.md``).
_RESOURCE_NAMES = {"memory-mb": "memory_mb", "memory": "memory_mb", "vcores": "vcores"}

#: Keys of a node entry that are not resources.
_NODE_META = {"node", "labels"}

def looks_like_sls_nodes(text: str) -> bool:
    """True when the first JSON object of ``text`` is a rack object (``"rack"`` and a ``"nodes"`` list), which no
    mrsim cluster file has at its top. Cost: the decode of that first object only."""
    try:
        first, _ = strict_decoder().raw_decode(text, len(text) - len(text.lstrip()))
    except (ValueError, RecursionError):
        return False
    return isinstance(first, dict) and "rack" in first and isinstance(first.get("nodes"), list)


def _objects(text: str, source: str) -> list[tuple[int, dict]]:
    """``(line, object)`` for each top-level JSON object of the stream."""
    decoder = strict_decoder(check_numbers=True)
    out: list[tuple[int, dict]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        line = text.count("\n", 0, pos) + 1
        try:
            obj, pos = raw_decode(decoder, text, pos)
        except JSONValueError as exc:
            raise InputError(f"{source}: line {line}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{source}: line {exc.lineno}: invalid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{source}: line {line}: expected a rack object {{\"rack\": ..., \"nodes\": [...]}}")
        out.append((line, obj))


def _resources(entry: Mapping[str, object], where: str) -> dict[str, float]:
    found: dict[str, float] = {}
    for key, value in entry.items():
        if key in _NODE_META:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise InputError(f"{where}: {key} must be a non-negative number, got {value!r}")
        found[_RESOURCE_NAMES.get(key, key)] = float(value)
    return found


def sls_cluster_document(text: str, source: str) -> tuple[dict, list[str]]:
    """The cluster-file document (``mrsim.model.cluster.cluster_from_mapping``'s input: ``nodes`` with ``rack``
    and ``resources``) of an SLS node file, and the notes it warrants (defaults filled, labels, skipped entries)."""
    nodes: list[dict] = []
    with_resources: list[int] = []
    labelled = skipped = 0
    for line, obj in _objects(text, source):
        where = f"{source}: line {line}"
        if "rack" not in obj or not isinstance(obj.get("nodes"), list):
            raise InputError(f"{where}: a rack object needs \"rack\" and a \"nodes\" list")
        rack = obj["rack"]
        if not isinstance(rack, (str, int)) or isinstance(rack, bool) or not str(rack).strip("/"):
            raise InputError(f"{where}: rack must be a name, got {rack!r}")
        for n, entry in enumerate(obj["nodes"]):
            at = f"{where}: rack {rack}: nodes[{n}]"
            if not isinstance(entry, dict):
                raise InputError(f"{at}: expected an object {{\"node\": NAME, ...}}")
            name = entry.get("node")
            if name is None:
                skipped += 1
                continue
            if not isinstance(name, (str, int)) or isinstance(name, bool) or not str(name):
                raise InputError(f"{at}: node must be a name, got {name!r}")
            labelled += "labels" in entry
            resources = _resources(entry, at)
            if resources:
                with_resources.append(len(nodes))
            nodes.append({"name": str(name), "rack": "/" + str(rack).strip("/"), "resources": resources})
    if not nodes:
        raise InputError(f"{source}: the SLS node file lists no node")
    notes = [f"{source}: SLS node file: {counted(len(nodes), 'node')} on "
             f"{counted(len({n['rack'] for n in nodes}), 'rack')}"]
    if with_resources:
        names = sorted({r for n in nodes for r in n["resources"]} | set(SLS_NM_DEFAULTS))
        defaults = {r: SLS_NM_DEFAULTS.get(r, 0.0) for r in names}
        filled = 0
        for node in nodes:
            missing = [r for r in names if r not in node["resources"]]
            filled += bool(missing)
            node["resources"] = {**{r: defaults[r] for r in missing}, **node["resources"]}
        if filled:
            notes.append(f"{counted(filled, 'node')} of {source} set no or only some resources: SLS's NodeManager "
                         f"defaults fill them (yarn.sls.nm.memory.mb = {SLS_NM_DEFAULTS['memory_mb']:g}, "
                         f"yarn.sls.nm.vcores = {SLS_NM_DEFAULTS['vcores']:g}"
                         + (", 0 for the other resources" if len(names) > 2 else "") + ")")
    else:
        for node in nodes:
            del node["resources"]
    if labelled:
        notes.append(f"{counted(labelled, 'node')} of {source} carry node labels, which mrsim does not model: "
                     "every node accepts every container")
    if skipped:
        notes.append(f"{source}: skipped {counted(skipped, 'node entry', 'node entries')} without a \"node\" name")
    return {"nodes": nodes}, notes
