"""ListParts paged with max-parts and part-number-marker, and its default page size.

A listing of every part in one page cannot tell an implementer who ignores max-parts or the
marker (or lists the marker's own part again) from a correct one. S3's ListParts: parts after
part-number-marker, at most max-parts (default 1,000, echoed as MaxParts) in ascending order,
IsTruncated and NextPartNumberMarker (the last part listed) when more follow.
"""

from __future__ import annotations

import pytest

from conformance.clients import s3_multipart as mp


def _page(s3, bucket, key, upload, **params: str):
    """(part numbers listed, the ListPartsResult root) of one ListParts call."""
    query = [("uploadId", upload), *((k.replace("_", "-"), v) for k, v in params.items())]
    root = s3.wire.request("GET", bucket, key, query=query).assert_ok().xml
    assert root is not None and root.tag == "ListPartsResult", "no ListPartsResult"
    return [int(p.findtext("PartNumber") or 0) for p in root.iter("Part")], root


@pytest.fixture
def five_parts(s3, bucket, names):
    """An upload in progress with parts 1-5 (uploaded out of order): (key, upload id)."""
    key = names.key()
    upload = mp.start(s3.wire, bucket, key)
    for number in (4, 1, 5, 3, 2):
        mp.upload_part(s3.wire, bucket, key, upload, number, b"p" * number).assert_ok()
    return key, upload


@pytest.mark.rule("storage.list-parts.supported")
def test_max_parts_pages_join_into_every_part_once(s3, bucket, five_parts):
    """max-parts=2 pages, continued by NextPartNumberMarker: 1-2, 3-4, 5; truncated until 5.
    A page that carries MaxParts echoes the max-parts asked for (S3's ListParts response:
    MaxParts, "Maximum number of parts that were allowed in the response"), not the default."""
    key, upload = five_parts
    pages, params = [], {"max_parts": "2"}
    for _ in range(4):
        listed, root = _page(s3, bucket, key, upload, **params)
        pages.append(listed)
        echoed = root.findtext("MaxParts")
        assert echoed in (None, "2"), f"max-parts=2 echoed as MaxParts {echoed!r}"
        truncated = root.findtext("IsTruncated")
        if truncated != "true":
            assert truncated == "false", f"IsTruncated {truncated!r} on the last page"
            break
        assert root.findtext("NextPartNumberMarker") == str(listed[-1]), (
            f"NextPartNumberMarker {root.findtext('NextPartNumberMarker')!r} after {listed}"
        )
        params = {"max_parts": "2", "part_number_marker": str(listed[-1])}
    assert pages == [[1, 2], [3, 4], [5]], f"max-parts=2 pages: {pages}"


@pytest.mark.rule("storage.list-parts.supported")
@pytest.mark.parametrize(("marker", "expected"), [("0", [1, 2, 3, 4, 5]), ("3", [4, 5]), ("5", [])])
def test_part_number_marker_lists_only_later_parts(s3, bucket, five_parts, marker, expected):
    """part-number-marker N lists the parts after N, not N itself; past the last: none."""
    key, upload = five_parts
    listed, root = _page(s3, bucket, key, upload, part_number_marker=marker)
    assert listed == expected, f"part-number-marker={marker}: {listed}"
    assert root.findtext("IsTruncated") == "false"


@pytest.mark.rule("storage.list-parts.supported")
def test_max_parts_equal_to_the_parts_left_is_not_truncated(s3, bucket, five_parts):
    """max-parts=5 of five parts: all listed, not truncated; max-parts=4: truncated at 4."""
    key, upload = five_parts
    listed, root = _page(s3, bucket, key, upload, max_parts="5")
    assert (listed, root.findtext("IsTruncated")) == ([1, 2, 3, 4, 5], "false")
    listed, root = _page(s3, bucket, key, upload, max_parts="4")
    assert (listed, root.findtext("IsTruncated")) == ([1, 2, 3, 4], "true")


@pytest.mark.rule("storage.list-parts.supported")
def test_default_page_size_is_1000(s3, bucket, five_parts):
    """Without max-parts the page size is S3's default, 1,000, echoed as MaxParts."""
    key, upload = five_parts
    listed, root = _page(s3, bucket, key, upload)
    assert listed == [1, 2, 3, 4, 5]
    assert root.findtext("MaxParts") == "1000", f"MaxParts {root.findtext('MaxParts')!r}"
