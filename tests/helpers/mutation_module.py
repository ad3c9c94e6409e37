"""A tiny module for the mutation harness's tests: lines whose execution a test can steer
(which line runs depends on `state`), so coverage records and plans can be checked exactly."""

from pathlib import Path

MODULE = "reference_impl/m.py"
SOURCE = """\
def f(state):
    if state is None:
        return 1
    total = (state +
             2)
    return total if total > 3 else 4
"""


def write_tree(root: Path) -> Path:
    """`root` as a tree holding only `reference_impl/m.py` (the module above)."""
    package = root / "reference_impl"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "m.py").write_text(SOURCE, "utf-8")
    return root
