"""A refusal thrown by the binding carries the provider's numeric code at the end of its message.

The provider's error-codes page (r2/api/error-codes): for the Workers API "the error code is
included at the end of the message property" (its example: `put: ... (10012)`), and its table
numbers each refusal: 10020 InvalidObjectName, 10012 MetadataTooLarge, 10037 BadDigest, 10039
InvalidRange, 10011 EntityTooSmall, 10025 InvalidPart (a part that could not be found at
completion), 10024 NoSuchUpload. Each case provokes one refusal the suite's other tests already
provoke and checks only the number in parentheses at the end, not the wording before it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest

PART = 5 * 1024 * 1024  # the smallest size of a part that is not the last
CODE = re.compile(r"\((\d+)\)\s*$")
# dates.md: put()'s SHA checksums, the multipart bindings and a working get() range option
# (storage.bindings.put-sha256, storage.bindings.multipart, storage.bindings.get-range); before
# them the binding has no such refusal to number
SHA256_SINCE = "2022-09-19"
MULTIPART_SINCE = "2022-11-21"
RANGE_SINCE = "2022-12-07"


def _code(outcome: Any) -> int:
    """The number at the end of a clean refusal's message (AssertionError when there is none)."""
    message = str(outcome.refused().get("message", ""))
    found = CODE.search(message)
    assert found, f"no error code at the end of the message: {message[:300]!r}"
    return int(found.group(1))


def _upload(bindings: Any, key: str) -> str:
    return str(bindings.create_multipart_upload(key).value()["uploadId"])


@pytest.mark.rule("storage.bindings.error-codes")
def test_put_refusals_carry_their_codes(bindings: Any, names: Any, as_of: Any) -> None:
    """put() of a 1025-byte key: 10020; of custom metadata over 8,192 bytes: 10012; with a
    SHA-256 that is not the body's: 10037 (from 2022-09-19, when put() took SHA-256 checksums:
    before, the option is unknown to the binding and no refusal of R2's is made)."""
    base = names.key("-")
    long_key = base + "k" * (1025 - len(base.encode()))
    assert _code(bindings.put(long_key, b"x")) == 10020
    big = {"k": "v" * 8200}
    assert _code(bindings.put(names.key(), b"x", customMetadata=big)) == 10012
    if as_of.isoformat() < SHA256_SINCE:
        return  # the two refusals above are the whole check at this date
    wrong = hashlib.sha256(b"not the body").hexdigest()
    assert _code(bindings.put(names.key(), b"x", sha256=wrong)) == 10037


@pytest.mark.rule("storage.bindings.error-codes")
def test_range_past_the_end_is_10039(bindings: Any, names: Any, as_of: Any) -> None:
    """get() with a range whose offset lies past the object's end: 10039 (from 2022-12-07, when
    the range option works: before, dates.md has it broken, and malformed until 2022-09-28)."""
    if as_of.isoformat() < RANGE_SINCE:
        pytest.skip(f"N/A: the get() range option does not work before {RANGE_SINCE}")
    key = names.key()
    bindings.put(key, b"0123456789").value()
    assert _code(bindings.get(key, range={"offset": 20})) == 10039


@pytest.mark.rule("storage.bindings.error-codes")
def test_multipart_refusals_carry_their_codes(bindings: Any, names: Any, as_of: Any) -> None:
    """complete() with a first part under 5 MiB: 10011; naming a part never uploaded, or a part
    with another part's ETag: 10025; uploadPart and complete() on an aborted upload: 10024."""
    if as_of.isoformat() < MULTIPART_SINCE:
        pytest.skip(f"N/A: multipart bindings are not in force before {MULTIPART_SINCE}")
    key = names.key()
    upload_id = _upload(bindings, key)
    one = bindings.upload_part(key, upload_id, 1, b"s" * (PART - 1)).value()
    two = bindings.upload_part(key, upload_id, 2, b"tail").value()
    assert _code(bindings.complete(key, upload_id, [one, two])) == 10011
    missing = {"partNumber": 3, "etag": one["etag"]}
    assert _code(bindings.complete(key, upload_id, [missing])) == 10025
    swapped = {"partNumber": 2, "etag": one["etag"]}
    assert _code(bindings.complete(key, upload_id, [swapped])) == 10025
    bindings.abort(key, upload_id).value()
    assert _code(bindings.upload_part(key, upload_id, 3, b"late")) == 10024
    assert _code(bindings.complete(key, upload_id, [one])) == 10024
