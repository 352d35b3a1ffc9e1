"""Map locality: per-job host and rack caches of pending maps, and the pick of a map for a tracker
(``JobInProgress.findNewMapTask``'s cache walk: node-local, rack-local, then any). Helpers of the JobTracker core
(``mrsim/tracker/jobtracker.py``), built when a job with split locations known to the cluster arrives."""

from __future__ import annotations

from array import array
import enum
from typing import TYPE_CHECKING, Final

from mrsim.tracker.scheduling import Locality
from mrsim.tracker.state import JobState, TrackerState

if TYPE_CHECKING:  # pragma: no cover
    from mrsim.tracker.jobtracker import JobTracker

#: Bound once (an attribute of the enum's class costs a lookup through its metaclass's hook at every use)
_NODE: Final = Locality.NODE
_RACK: Final = Locality.RACK
_NON_LOCAL: Final = Locality.NON_LOCAL


class LocalityMode(enum.Enum):
    """Whether map split locations are honoured (``--locality``).

    AUTO: for jobs whose split locations name at least one host of the cluster (e.g. a Rumen topology or a
    cluster inferred from the trace); other jobs' maps are rack-local everywhere. ON: always (maps on unknown
    hosts are then off-switch everywhere, and so are maps without split locations, which Hadoop keeps in
    ``JobInProgress.nonLocalMaps``: only the non-local call hands them out). OFF: never (every map rack-local
    everywhere, SimMR's behaviour).
    """

    AUTO = "auto"
    ON = "on"
    OFF = "off"


def pop_unlaunched(candidates: list[int] | None, launched: bytearray) -> int:
    """Pop the first not-yet-launched index from a locality cache (lazy deletion). Amortised O(1)."""
    if not candidates:
        return -1
    while candidates:
        i = candidates[-1]
        if not launched[i]:
            candidates.pop()
            return i
        candidates.pop()
    return -1


def pick_local_map(job: JobState, tracker: TrackerState, locality: Locality) -> tuple[int, int]:
    launched = job.map_launched
    assert launched is not None and job.host_cache is not None and job.rack_cache is not None
    if locality != _NON_LOCAL:
        i = pop_unlaunched(job.host_cache.get(tracker.host), launched)
        if i >= 0:
            return i, 1
        if locality == _NODE:
            return -1, 0
        i = pop_unlaunched(job.rack_cache.get(tracker.rack), launched)
        if i >= 0:
            return i, 2
        if locality == _RACK:
            return -1, 0
    n = job.n_maps
    c = job.any_cursor
    while c < n and launched[c]:
        c += 1
    job.any_cursor = c
    if c >= n:
        return -1, 0
    return c, 3


def setup_locality(jt: "JobTracker", job: JobState) -> None:
    """Build the job's host and rack caches when its split locations name hosts of this cluster, or always under
    ``--locality on``: there a job without split locations gets empty caches, so every one of its maps is
    off-switch (Hadoop's ``createCache`` puts a split without locations in ``nonLocalMaps``)."""
    locations = job.template.map_locations
    if jt.locality_mode is LocalityMode.OFF:
        return
    if locations is None:
        if jt.locality_mode is LocalityMode.AUTO:
            return
        locations = ((),) * job.n_maps
    hosts = jt.host_racks
    known = any(loc.rsplit("/", 1)[-1] in hosts for locs in locations for loc in locs)
    if not known and jt.locality_mode is LocalityMode.AUTO:
        return
    host_cache: dict[str, list[int]] = {}
    rack_cache: dict[str, list[int]] = {}
    for i in range(len(locations) - 1, -1, -1):  # reversed: lists are popped from the end
        racks_seen = set()
        for loc in locations[i]:
            rack, _, host = loc.rpartition("/")
            host_cache.setdefault(host, []).append(i)
            rack = hosts.get(host, rack or "/default-rack")
            if rack not in racks_seen:
                racks_seen.add(rack)
                rack_cache.setdefault(rack, []).append(i)
    job.host_cache = host_cache
    job.rack_cache = rack_cache
    job.map_launched = bytearray(job.n_maps)
    job.map_locality = array("b", bytes(job.n_maps))  # 0 until launched: 1 node-local, 2 rack-local, 3 off-switch
