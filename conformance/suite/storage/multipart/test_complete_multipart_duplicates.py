"""CompleteMultipartUpload with a part number listed twice (docs/decisions.md): the part's bytes
never appear twice in the object. A refusal is a 4xx, or S3's form for this operation: a 200
whose body is an <Error>. An implementation that checks order with `sorted()` alone
(equal numbers pass) joins part 1 twice: a silently corrupted object behind a 200."""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp

MIB = 1024 * 1024
FIRST = b"d" * (5 * MIB)  # a non-last part of the smallest accepted size: no EntityTooSmall
TAIL = b"the last part"


@pytest.mark.rule("storage.complete-multipart-upload.part-listed-twice")
@pytest.mark.parametrize("numbers", [(1, 1, 2), (1, 2, 2)], ids=["first-twice", "last-twice"])
def test_a_part_listed_twice_is_never_joined_twice(s3, bucket, names, numbers):
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    bodies = {1: FIRST, 2: TAIL}
    etags = {
        n: mp.etag(mp.upload_part(s3.wire, bucket, key, upload, n, b)) for n, b in bodies.items()
    }
    done = mp.complete(s3.wire, bucket, key, upload, [(n, etags[n]) for n in numbers])
    assert done.status < 500, f"parts {numbers}: {done.describe()}"
    root = done.xml if done.status == 200 else None
    refused_in_body = root is not None and root.tag == "Error"  # S3's 200 with an <Error>
    if 400 <= done.status < 500 or refused_in_body:
        assert s3.wire.request("HEAD", bucket, key).status == 404, "refused, yet an object exists"
        return
    done.assert_ok()
    got = s3.wire.get_object(bucket, key).assert_ok()
    assert got.body == FIRST + TAIL, (
        f"parts {numbers} accepted: the object is {len(got.body)} bytes, "
        f"not the two parts joined once ({len(FIRST) + len(TAIL)})"
    )
