"""delete() of several keys at once."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.mark.rule("storage.bindings.delete-many")
def test_delete_several_keys(bindings: Any, names: Any) -> None:
    """delete([k1, k2, k3]) removes all three; a missing key among them is no error."""
    keys = [names.key() for _ in range(3)]
    for key in keys:
        bindings.put(key, b"x").value()
    bindings.delete([*keys, names.key("-missing")]).value()
    assert [bindings.head(key).value() for key in keys] == [None, None, None]
