"""Every reference resolves: no text file of the repository cites a path of a development machine or
a note that is not in the repository.

What the development notes taught that the code relies on is written into ``docs/*.md``; code, tests, docs and
benchmarks cite seed papers by title and section, Hadoop classes by name and repository files by relative path.
The forbidden strings are assembled from pieces so that this file does not match itself.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROOTS = ["mrsim", "schedulers", "rumen_traces", "tests", "docs", "benchmarks", "scripts", "examples", ".ci"]
TOP_FILES = ["README.md", "pyproject.toml", "setup.py"]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".json", ".xml", ".csv", ".sh", ".ipynb", ".txt", ".cfg", ".ini", ".yml",
                 ".yaml", ".html", ""}
SKIP_DIRS = {"__pycache__", ".git", "build", "dist", ".pytest_cache", ".hypothesis"}

_MISSING_NOTES = [name + ".md" for name in ("hadoop_schedulers", "hadoop_formats", "engine-performance",
                                            "code-style")]
_MACHINE_ROOTS = ["/" + root + "/" for root in ("work", "check", "home", "Users")]
FORBIDDEN = re.compile("|".join(re.escape(s) for s in [*_MISSING_NOTES, *_MACHINE_ROOTS, "shared" + "/notes"]))


def _text_files() -> list[Path]:
    files = [REPO / name for name in TOP_FILES if (REPO / name).is_file()]
    for root in ROOTS:
        for path in (REPO / root).rglob("*") if (REPO / root).is_dir() else []:
            if path.is_file() and path.suffix in TEXT_SUFFIXES and not SKIP_DIRS & set(path.parts) \
                    and not path.name.endswith(".egg-info"):
                files.append(path)
    return sorted(files)


def find_references(text: str) -> list[tuple[int, str]]:
    """(line number, matched string) of every forbidden reference in ``text``."""
    return [(number, match.group(0)) for number, line in enumerate(text.splitlines(), 1)
            for match in FORBIDDEN.finditer(line)]


def test_no_reference_to_machine_paths_or_missing_notes() -> None:
    found = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary data (figures, compressed traces)
        found += [f"{path.relative_to(REPO)}:{line}: {what}" for line, what in find_references(text)]
    assert not found, "references that lead nowhere (docs/*.md is where a note's content goes):\n" + "\n".join(found)


def test_reference_finder_reports_each_kind() -> None:
    text = "\n".join(["see " + _MISSING_NOTES[0], "data in /" + "home/me/x", "from ../shared" + "/notes/",
                      "mrsim replay -o /tmp/quick", "docs/performance.md"])
    assert [line for line, _ in find_references(text)] == [1, 2, 3]
