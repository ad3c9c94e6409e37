"""complete() through the binding with a part listed twice (docs/decisions.md, "A part number
listed twice"): the part's bytes never appear twice in the object. The binding refuses the list
cleanly (it throws) and stores nothing, or joins the part once. An implementation that sorts
the list and joins what it names (equal numbers pass) publishes part 1 twice."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.clients.bindings import body_of

PART = 5 * 1024 * 1024  # a non-last part of the smallest accepted size
TAIL = b"the last part"


@pytest.mark.rule("storage.bindings.multipart-part-listed-twice")
@pytest.mark.parametrize("numbers", [(1, 1, 2), (1, 2, 2)], ids=["first-twice", "last-twice"])
def test_a_part_listed_twice_is_never_joined_twice(
    bindings: Any, names: Any, numbers: tuple[int, ...]
) -> None:
    key = names.key()
    upload_id = str(bindings.create_multipart_upload(key).value()["uploadId"])
    first = b"d" * PART
    parts = {
        1: bindings.upload_part(key, upload_id, 1, first).value(),
        2: bindings.upload_part(key, upload_id, 2, TAIL).value(),
    }
    done = bindings.complete(key, upload_id, [parts[n] for n in numbers])
    if done.error is not None:
        done.refused()
        assert bindings.head(key).value() is None, "refused, yet an object exists"
        bindings.abort(key, upload_id)
        return
    stored = body_of(bindings.get(key).value())
    assert stored == first + TAIL, (
        f"parts {numbers} accepted: the object is {len(stored)} bytes, "
        f"not the two parts joined once ({PART + len(TAIL)})"
    )
