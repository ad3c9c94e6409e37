"""Management API buckets: GetBucket, create / delete, list name_contains, per_page, cursor."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

BUCKET_NOT_FOUND = 10006  # envelope error code of a missing bucket (reference; not in the spec)


@pytest.fixture
def mgmt_bucket(mgmt, names) -> Iterator[str]:
    """A bucket created through the management API, deleted afterwards."""
    name = names.bucket()
    mgmt.create_bucket(name).assert_envelope_ok()
    try:
        yield name
    finally:
        with contextlib.suppress(Exception):
            mgmt.delete_bucket(name)


def listed_names(reply) -> list[str]:
    result = reply.assert_envelope_ok(200)
    assert isinstance(result, dict) and isinstance(result.get("buckets"), list), result
    return [item["name"] for item in result["buckets"]]


@pytest.mark.rule("storage.get-bucket.missing-not-500")
def test_get_missing_bucket_not_500(mgmt, names):
    """GET of a bucket that does not exist never answers a 5xx."""
    reply = mgmt.get_bucket(names.bucket())
    assert reply.status < 500, f"GetBucket of a missing bucket answered {reply.status}"


@pytest.mark.rule("storage.get-bucket.missing-404")
def test_get_missing_bucket_404(mgmt, names):
    """GET of a bucket that does not exist answers 404 in the envelope."""
    mgmt.get_bucket(names.bucket()).assert_envelope_error(404)


@pytest.mark.rule("storage.get-bucket.location-auto")
def test_get_bucket_location_auto(mgmt, mgmt_bucket):
    """GetBucket names the bucket and says location `auto`."""
    result = mgmt.get_bucket(mgmt_bucket).assert_envelope_ok(200)
    assert result["name"] == mgmt_bucket, result
    assert str(result.get("location", "")).lower() == "auto", result


@pytest.mark.rule("storage.mgmt.bucket.jurisdiction-field")
def test_get_bucket_has_jurisdiction(mgmt, mgmt_bucket):
    """GetBucket carries the jurisdiction field."""
    result = mgmt.get_bucket(mgmt_bucket).assert_envelope_ok(200)
    assert "jurisdiction" in result, f"no jurisdiction field: {result}"


@pytest.mark.rule("storage.mgmt.bucket.jurisdiction-field")
def test_jurisdiction_is_the_one_created_with(mgmt, names):
    """A bucket created in jurisdiction `eu` says `eu` in GetBucket and in the list, one created
    without says `default` (the provider's R2 API: jurisdiction default, eu or fedramp)."""
    plain, in_eu = names.bucket(), names.bucket()
    mgmt.create_bucket(plain).assert_envelope_ok()
    try:
        mgmt.create_bucket(in_eu, jurisdiction="eu").assert_envelope_ok()
        try:
            for name, expected in ((plain, "default"), (in_eu, "eu")):
                got = mgmt.get_bucket(name).assert_envelope_ok(200)
                assert got.get("jurisdiction") == expected, f"{name}: {got}"
                listed = mgmt.list_buckets(name_contains=name, per_page=1000)
                items = (listed.assert_envelope_ok(200) or {}).get("buckets") or []
                shown = [i.get("jurisdiction") for i in items if i.get("name") == name]
                assert shown == [expected], f"{name} listed with jurisdiction {shown}: {items}"
        finally:
            mgmt.delete_bucket(in_eu)
    finally:
        mgmt.delete_bucket(plain)


@pytest.mark.rule("storage.mgmt.bucket.jurisdiction-field")
def test_every_page_of_the_list_carries_jurisdiction(mgmt, names):
    """Paged one bucket at a time with the cursor, every listed bucket carries its jurisdiction,
    on the pages after the first as on the first (the spec's Bucket record names the field)."""
    base = names.bucket()
    made = [base + suffix for suffix in ("a", "b", "c")]
    for name in made:
        mgmt.create_bucket(name).assert_envelope_ok()
    try:
        shown: dict[str, object] = {}
        cursor = None
        for _ in range(10):
            params = {"name_contains": base, "per_page": 1}
            if cursor:
                params["cursor"] = cursor
            reply = mgmt.list_buckets(**params)
            result = reply.assert_envelope_ok(200)
            for item in result["buckets"]:
                shown[item["name"]] = item.get("jurisdiction")
            cursor = (reply.json.get("result_info") or {}).get("cursor")
            if not cursor:
                break
        assert set(made) <= set(shown), f"listed {sorted(shown)}"
        assert all(shown[name] == "default" for name in made), f"jurisdictions listed: {shown}"
    finally:
        for name in made:
            mgmt.delete_bucket(name)


@pytest.mark.rule("storage.mgmt.bucket.create-delete")
def test_create_get_list_delete(mgmt, names):
    """A created bucket is got and listed; once deleted, GetBucket answers 404."""
    name = names.bucket()
    created = mgmt.create_bucket(name).assert_envelope_ok()
    assert created["name"] == name, created
    try:
        assert mgmt.get_bucket(name).assert_envelope_ok(200)["name"] == name
        assert name in listed_names(mgmt.list_buckets(name_contains=name))
    finally:
        mgmt.delete_bucket(name).assert_envelope_ok()
    mgmt.get_bucket(name).assert_envelope_error(404)


@pytest.mark.rule("storage.mgmt.list-buckets.name-contains")
def test_name_contains_filters(mgmt, mgmt_bucket, names):
    """name_contains returns the buckets whose name contains it, and no other."""
    other = names.bucket()
    mgmt.create_bucket(other).assert_envelope_ok()
    try:
        needle = mgmt_bucket[len(mgmt_bucket) // 2 :]
        found = listed_names(mgmt.list_buckets(name_contains=needle, per_page=1000))
        assert mgmt_bucket in found, found
        assert other not in found, found
        assert all(needle in name for name in found), found
    finally:
        mgmt.delete_bucket(other)


@pytest.mark.rule("storage.mgmt.list-buckets.name-contains-not-jurisdiction")
def test_name_contains_ignores_jurisdiction(mgmt, names):
    """A bucket in jurisdiction `eu` whose name lacks `eu` is not listed for name_contains=eu."""
    name = names.bucket()  # run prefix and counters are hex: never "eu"
    assert "eu" not in name
    mgmt.create_bucket(name, jurisdiction="eu").assert_envelope_ok()
    try:
        found = listed_names(mgmt.list_buckets(name_contains="eu", per_page=1000))
        assert name not in found, f"{name} (jurisdiction eu) matched name_contains=eu"
    finally:
        mgmt.delete_bucket(name)


@pytest.mark.rule("storage.mgmt.list-buckets.per-page-cursor")
@pytest.mark.parametrize("per_page", [1, 2])
def test_per_page_and_cursor(mgmt, names, per_page):
    """per_page pages through the run's buckets with the cursor, each exactly once: with 1
    and with 2 (a page whose first and last bucket differ, so the cursor must follow the last).
    name_contains filters every page, not only the first: a cursor does not drop it. The names
    are of six consecutive lengths, so a cursor follows names of every length modulo 3 and 4
    (a cursor that encodes the name, e.g. unpadded base64, must read back each of them)."""
    base = names.bucket()
    made = sorted(base + "a" * extra for extra in range(6))
    needle = made[0][: made[0].rfind("-") + 1]  # this worker's prefix
    # a bucket of the run that sorts after them without the needle: a page past the cursor
    # that forgot name_contains lists it
    decoy = needle[:-1] + "z-" + made[-1][len(needle) :]
    for name in [*made, decoy]:
        mgmt.create_bucket(name).assert_envelope_ok()
    try:
        seen: list[str] = []
        cursor = None
        for _ in range(50):
            params = {"name_contains": needle, "per_page": per_page}
            if cursor:
                params["cursor"] = cursor
            reply = mgmt.list_buckets(**params)
            page = listed_names(reply)
            assert len(page) <= per_page, page
            seen += page
            cursor = (reply.json.get("result_info") or {}).get("cursor")
            if not cursor:
                break
        assert len(seen) == len(set(seen)), f"a bucket came twice: {seen}"
        stray = [name for name in seen if needle not in name]
        assert not stray, f"listed with name_contains={needle!r} and a cursor: {stray}"
        assert set(made) <= set(seen), f"missing {set(made) - set(seen)}"
    finally:
        for name in [*made, decoy]:
            mgmt.delete_bucket(name)


@pytest.mark.rule("storage.mgmt.list-buckets.per-page-zero")
def test_per_page_zero(mgmt, mgmt_bucket):
    """per_page=0 is accepted with 200 and no buckets."""
    assert listed_names(mgmt.list_buckets(per_page=0)) == []


@pytest.mark.rule("storage.mgmt.list-buckets.per-page-out-of-range")
@pytest.mark.parametrize("per_page", [-1, 1001])
def test_per_page_out_of_range_is_refused(mgmt, mgmt_bucket, per_page):
    """per_page below 0 (the spec allows 0) or above the provider's maximum, 1000: a 4xx, or
    (the provider's page gives the bounds, not what is done outside them) a page answered as
    if clamped: at most 1000 buckets and, when result_info says its per_page, one in bounds."""
    reply = mgmt.list_buckets(per_page=per_page)
    if 400 <= reply.status < 500:
        return
    result = reply.assert_envelope_ok(200)
    found = result.get("buckets") if isinstance(result, dict) else None
    assert isinstance(found, list) and len(found) <= 1000, (
        f"per_page={per_page}: {reply.describe()}"
    )
    doc = reply.json
    info = doc.get("result_info") if isinstance(doc, dict) else None
    shown = info.get("per_page") if isinstance(info, dict) else None
    assert shown is None or (isinstance(shown, int) and 0 <= shown <= 1000), (
        f"per_page={per_page} answered with result_info per_page {shown!r}: {reply.describe()}"
    )


def _invalid_names(prefix: str) -> dict[str, str]:
    """Names that break one naming rule each, all starting with the run's prefix."""
    return {
        "underscore": prefix + "bad_name",
        "upper-case": prefix + "BadName",
        "trailing-hyphen": prefix + "bad-",
        "too-long": (prefix + "x" * 64)[:64],
    }


@pytest.mark.rule("storage.mgmt.bucket.invalid-name-refused")
@pytest.mark.parametrize("case", ["underscore", "upper-case", "trailing-hyphen", "too-long"])
def test_invalid_bucket_name_is_refused(mgmt, names, case):
    """A name outside a-z0-9-, over 63 characters or ending with a hyphen is refused with a
    4xx, and no such bucket is created."""
    name = _invalid_names(names.bucket() + "-")[case]
    reply = mgmt.create_bucket(name)
    try:
        assert 400 <= reply.status < 500, f"bucket {name!r} ({case}): {reply.describe()}"
    finally:
        if 200 <= reply.status < 300:
            with contextlib.suppress(Exception):
                mgmt.delete_bucket(name)


@pytest.mark.rule("storage.mgmt.bucket.invalid-name-refused")
def test_bucket_name_that_is_not_a_string_is_refused(mgmt):
    """The provider's Create Bucket takes `name` as a string: a number there is no bucket name,
    refused with a 4xx (never a 5xx)."""
    reply = mgmt.request("POST", mgmt.r2("/buckets"), body={"name": 12345})
    try:
        assert 400 <= reply.status < 500, f"name 12345 (a JSON number): {reply.describe()}"
    finally:
        if 200 <= reply.status < 300:
            with contextlib.suppress(Exception):
                mgmt.delete_bucket("12345")


@pytest.mark.rule("storage.mgmt.bucket.delete-not-empty")
def test_delete_of_a_bucket_holding_an_object_is_refused(mgmt, s3, names):
    """DELETE of a bucket that holds an object is a 4xx: the bucket and the object stay."""
    name, key = names.bucket(), names.key()
    mgmt.create_bucket(name).assert_envelope_ok()
    try:
        s3.boto.put_object(Bucket=name, Key=key, Body=b"kept")
        reply = mgmt.delete_bucket(name)
        assert 400 <= reply.status < 500, f"delete of a bucket holding {key}: {reply.describe()}"
        body = s3.boto.get_object(Bucket=name, Key=key)["Body"].read()
        assert body == b"kept", body
        s3.boto.delete_object(Bucket=name, Key=key)
    finally:
        with contextlib.suppress(Exception):
            s3.delete_bucket_recursive(name)
