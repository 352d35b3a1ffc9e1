"""The Python example in docs/schedulers-fair-capacity.md runs and its assertions hold."""

from __future__ import annotations

import re

from tests.schedulers.fair_capacity.helpers import REPO


def test_doc_example_executes():
    text = (REPO / "docs" / "schedulers-fair-capacity.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/schedulers-fair-capacity.md", "exec"), {})
