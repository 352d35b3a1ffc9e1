"""What a ``--scheduler-config`` file looks like, and the one check that a scheduler is given a file of its own.

Hadoop's schedulers read different files: the Fair Scheduler an allocation file (root ``<allocations>``,
``PoolManager`` / ``AllocationFileLoaderService``) or site keys ``mapred.fairscheduler.*`` /
``yarn.scheduler.fair.*``; the Capacity Scheduler a ``capacity-scheduler.xml`` (``<configuration>`` with
``mapred.capacity-scheduler.*`` or ``yarn.scheduler.capacity.*`` keys). A file of one given to the other would be
read as "no settings" (Hadoop ignores keys it does not know), so mrsim refuses it in one line naming the file and
what it looks like; so do schedulers without such files (FIFO, the deadline and size-based plug-ins) given one.
Cost: one parse of the file, shared with the scheduler that reads it (:mod:`mrsim.tracker.schedconf.document`).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass

from mrsim.errors import InputError
from mrsim.tracker.schedconf.document import Element, read_document

_FAIR_PREFIXES = ("mapred.fairscheduler.", "yarn.scheduler.fair.")
_CAPACITY_PREFIXES = ("mapred.capacity-scheduler.", "yarn.scheduler.capacity.")


class FileKind(enum.Enum):
    """The kinds of scheduler files told apart; the value describes it in an error line."""

    FAIR_ALLOCATIONS = "a fair scheduler allocation file (<allocations>)"
    FAIR_SITE = "a fair scheduler site file (<configuration> with mapred.fairscheduler.* / yarn.scheduler.fair.* keys)"
    CAPACITY = ("a capacity-scheduler.xml (<configuration> with mapred.capacity-scheduler.* / "
                "yarn.scheduler.capacity.* keys)")
    CONFIGURATION = "a Hadoop <configuration> file without scheduler keys"
    OTHER_XML = "an XML file"
    NOT_XML = "a file that is not XML"


#: The scheduler a kind of file belongs to.
OWNER = {FileKind.FAIR_ALLOCATIONS: "fair", FileKind.FAIR_SITE: "fair", FileKind.CAPACITY: "capacity"}
#: What each XML-reading scheduler takes (a plain <configuration> carries e.g. mapred.queue.names for both).
ACCEPTS = {"fair": frozenset({FileKind.FAIR_ALLOCATIONS, FileKind.FAIR_SITE, FileKind.CONFIGURATION}),
           "capacity": frozenset({FileKind.CAPACITY, FileKind.CONFIGURATION})}
_READS = {"fair": "an allocation file (<allocations>) or a <configuration> of mapred.fairscheduler.* keys",
          "capacity": "a capacity-scheduler.xml (<configuration> of mapred.capacity-scheduler.* keys)"}


@dataclass(frozen=True)
class FileLook:
    """A file's kind and, for XML, its parsed root (so the scheduler need not parse it again)."""

    path: str
    kind: FileKind
    root: Element | None = None

    def describe(self) -> str:
        if self.kind is FileKind.OTHER_XML and self.root is not None:
            return f"an XML file with root <{self.root.tag}>"
        return self.kind.value


def _keys(root: Element) -> list[str]:
    return [next((c.text for c in prop.children if c.tag == "name"), "") for prop in root.children
            if prop.tag == "property"]


def look_at(path: str | os.PathLike[str]) -> FileLook:
    """The kind of scheduler file ``path`` is (missing files and malformed XML are InputErrors naming it)."""
    from mrsim.io.safe_open import check_input_file

    p = check_input_file(path)
    try:
        head = p.read_bytes()[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    if not head.startswith(b"<"):
        return FileLook(str(path), FileKind.NOT_XML)
    root = read_document(p)
    if root.tag == "allocations":
        return FileLook(str(path), FileKind.FAIR_ALLOCATIONS, root)
    if root.tag != "configuration":
        return FileLook(str(path), FileKind.OTHER_XML, root)
    keys = _keys(root)
    fair = any(k.startswith(_FAIR_PREFIXES) for k in keys)
    capacity = any(k.startswith(_CAPACITY_PREFIXES) for k in keys)
    if capacity and not fair:
        return FileLook(str(path), FileKind.CAPACITY, root)
    if fair and not capacity:
        return FileLook(str(path), FileKind.FAIR_SITE, root)
    return FileLook(str(path), FileKind.CONFIGURATION, root)  # neither (or both: a whole mapred-site.xml)


def check_scheduler_file(scheduler: str, path: str | os.PathLike[str]) -> FileLook:
    """``path``'s look, after checking that the scheduler named ``scheduler`` reads that kind of file.

    Fair and capacity take their own kinds (:data:`ACCEPTS`); any other scheduler is refused a fair or capacity
    file (one of another scheduler). Other files (JSON configs of the size-based plug-ins, a plug-in's own XML)
    are left to the plug-in. The error is one line: the file, what it looks like, what the scheduler reads.
    """
    name = scheduler.strip().lower()
    look = look_at(path)
    if name in ACCEPTS:
        if look.kind not in ACCEPTS[name]:
            owner = OWNER.get(look.kind)
            whose = f", a file for the {owner} scheduler" if owner else ""
            where = f"{path}:{look.root.line}" if look.root is not None else f"{path}"
            raise InputError(f"{where}: looks like {look.describe()}{whose}; the {name} scheduler reads "
                             f"{_READS[name]}")
        return look
    owner = OWNER.get(look.kind)
    if owner is not None and owner != name:
        raise InputError(f"{path}: looks like {look.describe()}, a file for the {owner} scheduler; the {name} "
                         f"scheduler takes no such file")
    return look


def check_plugin_config(scheduler: object, config: dict | None) -> None:
    """For a registered scheduler other than fair and capacity (which check their files as they load them):
    refuse ``config["config_file"]`` when it is a fair or capacity file. Called where a run builds its scheduler
    (replay, compare, validate, sweep specs), not by the engine core."""
    path = (config or {}).get("config_file")
    if not path or not isinstance(scheduler, str) or ":" in scheduler:
        return
    name = scheduler.strip().lower()
    if name not in ACCEPTS:
        check_scheduler_file(name, str(path))
