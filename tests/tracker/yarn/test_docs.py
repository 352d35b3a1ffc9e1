"""The worked example of docs/yarn.md runs from the repository root and its assertions hold."""

from __future__ import annotations

import os
import re

from tests.tracker.yarn.helpers import REPO


def test_doc_example_executes():
    text = (REPO / "docs" / "yarn.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    cwd = os.getcwd()
    os.chdir(REPO)  # the example names examples/yarn/*.xml relative to the repository root
    try:
        for block in blocks:
            exec(compile(block, "docs/yarn.md", "exec"), {})
    finally:
        os.chdir(cwd)
