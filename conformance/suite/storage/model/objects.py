"""Steps on buckets and objects: create/delete bucket, put, get, head, copy, delete(s)."""

from __future__ import annotations

import datetime as dt

from hypothesis import strategies as st
from hypothesis.stateful import rule

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_wire import WireReply
from conformance.suite.storage.model import ops
from conformance.suite.storage.model.base import BUCKETS, ModelBase
from conformance.suite.storage.model.context import load_data, model_keys
from conformance.suite.storage.model.store import Body, Bucket, Obj, md5_hex, unquote_etag

DATA = load_data()
KEYS = st.sampled_from(model_keys(DATA))
# a key: one the bucket holds (most often, so that reads, copies and deletes meet objects), or
# (first item True, one time in four, or an empty bucket) one of the pool
KEY = st.tuples(st.integers(0, 3).map(lambda n: n == 3), st.integers(0, 31), KEYS)
KeyChoice = tuple[bool, int, str]
BUCKET = st.integers(0, BUCKETS - 1)
CONTENT_TYPES = st.sampled_from([str(t) for t in DATA["content_types"]])
# conditions: on a write they apply to the object already at the key (the destination)
WRITE_CONDITIONS = st.sampled_from(
    ["none", "if-none-match-*", "if-match", "if-match-other", "if-none-match"]
)
READ_CONDITIONS = st.sampled_from(
    [
        "none",
        "if-match",
        "if-match-other",
        "if-none-match",
        "if-none-match-other",
        "if-match-*",
        "if-none-match-*",
        "ims-earlier",
        "ims-later",
    ]
)
OTHER_ETAG = '"0123456789abcdef0123456789abcdef"'
ONE_SECOND = dt.timedelta(seconds=1)
READ_BACK_BYTES = 64 * 1024  # a written object is read back whole up to this size


def condition_headers(condition: str, obj: Obj | None, names: tuple[str, str]) -> dict[str, str]:
    """The headers of a write condition (names: the if-match / if-none-match header names)."""
    if_match, if_none_match = names
    if condition == "if-none-match-*":
        return {if_none_match: "*"}
    if obj is None or condition == "none":
        return {}
    etag = f'"{obj.etag}"'
    return {
        "if-match": {if_match: etag},
        "if-match-other": {if_match: OTHER_ETAG},
        "if-none-match": {if_none_match: etag},
    }[condition]


def condition_met(condition: str, obj: Obj | None) -> bool:
    if condition == "if-none-match-*":
        return obj is None
    if obj is None:
        return True  # no condition is sent for a missing object (condition_headers)
    return condition in ("none", "if-match")


class ObjectSteps(ModelBase):
    # -- buckets -------------------------------------------------------------------------
    @rule(b=BUCKET, op=st.sampled_from(["recreate", "delete", "create"]))
    def bucket_step(self, b: int, op: str) -> None:
        """CreateBucket, DeleteBucket, or a bucket's whole life (empty, delete, create)."""
        {
            "recreate": self.recreate_bucket,
            "delete": self.delete_bucket,
            "create": self.create_bucket,
        }[op](b)

    def create_bucket(self, b: int) -> None:
        name = self.bucket(b)
        self.begin(f"CreateBucket {self.trace.short(name)}")
        reply = self.send(
            f"PUT {self.trace.short(name)}", lambda: self.wire.create_bucket(name, "auto")
        )
        if self.store.exists(name):  # the spec leaves the answer open (S3: 409 or 200)
            self.check.status(reply, {200, 409}, set(), "create-bucket", "CreateBucket again")
            return
        self.check.status(reply, {200}, set(), "create-bucket", "CreateBucket")
        self.store.buckets[name] = Bucket()

    def delete_bucket(self, b: int) -> None:
        name = self.bucket(b)
        short = self.trace.short(name)
        self.begin(f"DeleteBucket {short}")
        reply = self.send(f"DELETE {short}", lambda: self.wire.request("DELETE", name))
        if self.missing_bucket(reply, name, f"DeleteBucket {short}"):
            return
        held = self.store.buckets[name]
        if held.objects:
            check = "delete-bucket-not-empty"
            self.check.status(reply, {409}, {"BucketNotEmpty"}, check, f"DeleteBucket {short}")
            return
        if held.uploads:  # refused as not empty, or the uploads end with the bucket
            what = f"DeleteBucket {short} with uploads in progress"
            check = "delete-bucket-uploads"
            self.check.status(reply, {204, 409}, {None, "BucketNotEmpty"}, check, what)
            if reply.status == 409:
                return
        else:
            self.check.status(reply, {204}, set(), "delete-bucket-empty", f"DeleteBucket {short}")
        self.store.drop_bucket(name)
        self.deleted.add(name)

    def recreate_bucket(self, b: int) -> None:
        """DeleteObjects of every key the model holds, DeleteBucket (uploads in progress may
        stay) and CreateBucket of the same name: a bucket's life in one step."""
        name = self.bucket(b)
        old = self.store.buckets.get(name)
        held = sorted(old.objects) if old is not None else []
        # an old bucket with nothing in it has nothing to bring back: no check there
        had_content = bool(held) or (old is not None and bool(old.uploads))
        if held:
            self.delete_keys(name, held, quiet=True)
        self.delete_bucket(b)
        if not self.store.exists(name):
            self.verify_bucket(name)
            self.create_bucket(b)
            if had_content:  # the listing after this step shows whether any of it came back
                self.check.reached("no-resurrection")

    # -- objects -------------------------------------------------------------------------
    @rule(
        b=BUCKET,
        key=KEY,
        fill=st.integers(0, 255),
        size=st.integers(0, 40),
        content_type=CONTENT_TYPES,
        meta=st.integers(0, 2),  # custom metadata entries (a copy must keep them)
        condition=WRITE_CONDITIONS,
    )
    def put_object(
        self,
        b: int,
        key: KeyChoice,
        fill: int,
        size: int,
        content_type: str,
        meta: int,
        condition: str,
    ) -> None:
        name = self.bucket(b)
        self.write_key(name, key, fill, size, content_type, meta, condition)

    def write_key(
        self,
        name: str,
        choice: KeyChoice,
        fill: int,
        size: int,
        content_type: str,
        meta: int,
        condition: str,
    ) -> None:
        key = self.key_for(name, choice)
        body = Body(fill, size).data()
        existing = self.store.obj(name, key)
        headers = {"Content-Type": content_type}
        meta_sent = {f"m{i}": f"c{fill}-{i}" for i in range(meta)}
        for name_, value in meta_sent.items():
            headers[self.wire.vendor(f"meta-{name_}")] = value
        headers |= condition_headers(condition, existing, ("If-Match", "If-None-Match"))
        sent = " ".join(f"{k}: {v}" for k, v in headers.items() if k.lower().startswith("if-"))
        short = self.trace.short(name, key)
        self.begin(f"PutObject {short} ({size} bytes{', ' + sent if sent else ''})")
        reply = self.send(f"PUT {short}", lambda: self.wire.put_object(name, key, body, headers))
        if self.missing_bucket(reply, name, f"PutObject {short}"):
            return
        if not condition_met(condition, existing):
            check = "put-condition-unmet"
            self.check.status(reply, {412}, {"PreconditionFailed"}, check, f"PutObject {short}")
            return
        check = "put-condition-met" if sent else "put"
        self.check.status(reply, {200}, set(), check, f"PutObject {short}")
        etag = unquote_etag(reply.header("etag"))
        self.check.expect(etag == md5_hex(body), "put-etag", f"PutObject {short} ETag {etag!r}")
        self.store.put(name, key, Obj(md5_hex(body), size, etag, content_type, meta_sent, "put"))
        self.read_back(name, key)

    def read_back(self, name: str, key: str) -> None:
        """Read what a write just stored (GET when small, else HEAD): bytes, ETag, metadata;
        then HEAD with If-None-Match (304 with the ETag) and If-Modified-Since (200)."""
        obj = self.store.obj(name, key)
        assert obj is not None
        method = "GET" if obj.size <= READ_BACK_BYTES else "HEAD"
        short = self.trace.short(name, key)
        reply = self.send(f"{method} {short}", self.wire.request, method, name, key)
        what = f"{method} {short} after the write"
        self.check.status(reply, {200}, set(), self.origin_check(obj), what)
        self.verify_read(reply, obj, what, body=method == "GET")
        reply = self.head_with(name, key, "If-None-Match", f'"{obj.etag}"')
        what = f"HeadObject {short} If-None-Match its ETag"
        self.check.status(reply, {304}, set(), "get-if-none-match", what)
        self.not_modified(reply, obj, what)
        if obj.last_modified is not None:  # a day before Last-Modified: modified since
            since = ops.http_date(obj.last_modified - dt.timedelta(days=1))
            reply = self.head_with(name, key, "If-Modified-Since", since)
            what = f"HeadObject {short} If-Modified-Since a day before Last-Modified"
            self.check.status(reply, {200}, set(), "get-if-modified-since", what)

    def head_with(self, name: str, key: str, header: str, value: str) -> WireReply:
        """HeadObject of `key` with one request header (a condition), written into the trace."""
        return self.send(
            f"HEAD {self.trace.short(name, key)} {header}: {value}",
            self.wire.request,
            *("HEAD", name, key),
            headers={header: value},
        )

    @rule(b=BUCKET, key=KEY, condition=READ_CONDITIONS, method=st.sampled_from(["GET", "HEAD"]))
    def read_object(self, b: int, key: KeyChoice, condition: str, method: str) -> None:
        """GetObject or HeadObject, with one condition (or none)."""
        self.read(b, key, condition, method)

    def read(self, b: int, choice: KeyChoice, condition: str, method: str) -> None:
        name = self.bucket(b)
        key = self.key_for(name, choice)
        obj = self.store.obj(name, key)
        condition, headers = self.read_condition(condition, obj)
        short = self.trace.short(name, key)
        what = f"{'GetObject' if method == 'GET' else 'HeadObject'} {short}"
        self.begin(f"{what} ({condition})")
        reply = self.send(
            f"{method} {short} {headers or ''}".rstrip(),
            lambda: self.wire.request(method, name, key, headers=headers),
        )
        if self.missing_bucket(reply, name, what):
            return
        if obj is None:
            self.check.status(
                reply, {404}, {"NoSuchKey"}, self.removed_check(name, key, "get-missing"), what
            )
            return
        expected, check = self.read_expectation(condition, obj)
        if expected is None:  # a date too close to Last-Modified: 200 and 304 both allowed
            self.check.status(reply, {200, 304}, set(), check, what)
        else:
            self.check.status(reply, {expected}, {"PreconditionFailed"}, check, what)
        if reply.status == 304:
            self.not_modified(reply, obj, what)
        elif reply.status == 200:
            self.verify_read(reply, obj, what, body=method == "GET")

    def read_condition(self, condition: str, obj: Obj | None) -> tuple[str, dict[str, str]]:
        """The condition actually sent: none on a missing object or an unknown Last-Modified."""
        if obj is None:
            return "none", {}
        etag = f'"{obj.etag}"'
        if condition.startswith("ims-"):
            if obj.last_modified is None:
                return "none", {}
            delta = -dt.timedelta(days=1) if condition == "ims-earlier" else ONE_SECOND
            return condition, {"If-Modified-Since": ops.http_date(obj.last_modified + delta)}
        headers = {
            "none": {},
            "if-match": {"If-Match": etag},
            "if-match-other": {"If-Match": OTHER_ETAG},
            "if-none-match": {"If-None-Match": etag},
            "if-none-match-other": {"If-None-Match": OTHER_ETAG},
            "if-match-*": {"If-Match": "*"},
            "if-none-match-*": {"If-None-Match": "*"},
        }[condition]
        return condition, headers

    def read_expectation(self, condition: str, obj: Obj) -> tuple[int | None, str]:
        """(status, check) of a read; status None when the model allows 200 and 304."""
        if condition == "ims-later":
            lm = obj.last_modified
            settled = lm is not None and self.server_now is not None
            settled = settled and self.server_now >= lm + 2 * ONE_SECOND  # type: ignore[operator]
            return (304 if settled else None), "get-if-modified-since"
        return {
            "none": (200, self.origin_check(obj)),
            "if-match": (200, "get-if-match-met"),
            "if-match-other": (412, "get-if-match-unmet"),
            "if-none-match": (304, "get-if-none-match"),
            "if-none-match-other": (200, "get-if-none-match"),
            "if-match-*": (200, "get-wildcard"),
            "if-none-match-*": (304, "get-wildcard"),
            "ims-earlier": (200, "get-if-modified-since"),
        }[condition]

    def not_modified(self, reply: WireReply, obj: Obj, what: str) -> None:
        """A 304 carries the current ETag and no body (RFC 9110, as S3 answers)."""
        etag = unquote_etag(reply.header("etag"))
        check = "not-modified-headers"
        self.check.expect(
            etag == obj.etag, check, f"{what}: 304 with ETag {etag!r}, not {obj.etag!r}"
        )
        self.check.expect(not reply.body, check, f"{what}: 304 with a {len(reply.body)}-byte body")

    def verify_read(self, reply: WireReply, obj: Obj, what: str, body: bool) -> None:
        etag = unquote_etag(reply.header("etag"))
        self.check.expect(
            etag == obj.etag,
            self.origin_check(obj, "etag"),
            f"{what}: ETag {etag!r}, model {obj.etag!r}",
        )
        if body:
            got = (md5_hex(reply.body), len(reply.body))
            self.check.expect(
                got == (obj.digest, obj.size),
                self.origin_check(obj),
                f"{what}: body of {got[1]} bytes, MD5 {got[0]}; "
                f"model {obj.size} bytes, MD5 {obj.digest}",
            )
        ctype = (reply.header("content-type") or "").split(";")[0].strip()
        self.check.expect(
            ctype == obj.content_type,
            self.origin_check(obj, "type"),
            f"{what}: Content-Type {ctype!r}, model {obj.content_type!r}",
        )
        prefix = self.wire.vendor("meta-")
        meta = {
            k.lower()[len(prefix) :]: v
            for k, v in reply.headers.items()
            if k.lower().startswith(prefix)
        }
        self.check.expect(
            meta == obj.meta,
            self.origin_check(obj, "meta"),
            f"{what}: metadata {meta}, model {obj.meta}",
        )
        modified = ops.parse_http_date(reply.header("last-modified"))
        self.check.expect(modified is not None, "last-modified", f"{what}: no Last-Modified")
        if obj.last_modified is None:
            obj.last_modified = modified
        self.check.expect(
            modified == obj.last_modified,
            "last-modified",
            f"{what}: Last-Modified {modified} changed from {obj.last_modified} with no write",
        )

    @rule(sb=BUCKET, source=KEY, db=BUCKET, dkey=KEY, condition=WRITE_CONDITIONS)
    def copy_object(
        self, sb: int, source: KeyChoice, db: int, dkey: KeyChoice, condition: str
    ) -> None:
        """CopyObject: from an object the model holds in any bucket (most often), or from
        bucket `sb` and a pool key (a missing source, when `source` asks for a fresh key)."""
        fresh, pick, pooled = source
        held = sorted((n, k) for n, b in self.store.buckets.items() for k in b.objects)
        src, skey = (self.bucket(sb), pooled) if fresh or not held else held[pick % len(held)]
        self.touched.add(src)
        dst = self.bucket(db)
        self.copy_key(src, skey, dst, self.key_for(dst, dkey), condition)

    def copy_key(self, src: str, skey: str, dst: str, dkey: str, condition: str) -> None:
        if (src, skey) == (dst, dkey):
            dkey = dkey + ".copy"  # a copy onto itself needs a metadata directive: not modelled
        source, existing = self.store.obj(src, skey), self.store.obj(dst, dkey)
        names = (
            self.wire.ext("copy-destination-if-match"),
            self.wire.ext("copy-destination-if-none-match"),
        )
        headers = condition_headers(condition, existing, names)
        what = f"CopyObject {self.trace.short(src, skey)} -> {self.trace.short(dst, dkey)}"
        self.begin(f"{what} ({condition if headers else 'none'})")
        reply = self.send(
            f"PUT {self.trace.short(dst, dkey)} copy",
            lambda: mp.copy_object(self.wire, dst, dkey, ops.copy_source(src, skey), headers),
        )
        missing: dict[str, str] = {}
        if not self.store.exists(dst):
            missing["NoSuchBucket"] = "copy-missing-destination-bucket"
        if not self.store.exists(src):
            missing["NoSuchBucket"] = "copy-missing-source-bucket"
        elif source is None:
            missing["NoSuchKey"] = self.removed_check(src, skey, "copy-missing-source-key")
        if missing:
            self.check.status(reply, {404}, set(missing), next(iter(missing.values())), what)
            return
        assert source is not None
        if not condition_met(condition, existing):
            check = (
                "copy-destination-if-none-match"
                if "none" in condition
                else "copy-destination-if-match"
            )
            self.check.status(reply, {412}, {"PreconditionFailed"}, check, what)
            return
        check = (
            "copy-multipart-source"
            if source.multipart
            else ("copy-destination-met" if headers else "copy")
        )
        self.check.status(reply, {200}, set(), check, what)
        etag = unquote_etag(ops.result_etag(reply))
        if not source.multipart:  # a copy is not a multipart upload: the MD5 of its bytes
            self.check.expect(
                etag == source.etag, "copy-keeps", f"{what}: ETag {etag!r}, source {source.etag!r}"
            )
        copied = Obj(
            source.digest, source.size, etag, source.content_type, dict(source.meta), "copy"
        )
        self.store.put(dst, dkey, copied)
        self.read_back(dst, dkey)

    @rule(
        b=BUCKET,
        keys=st.lists(KEY, min_size=1, max_size=4),
        how=st.sampled_from(["one", "many", "quiet"]),
    )
    def delete_step(self, b: int, keys: list[KeyChoice], how: str) -> None:
        """DeleteObject of the first key, or DeleteObjects of them all (Quiet or not)."""
        name = self.bucket(b)
        chosen = list(dict.fromkeys(self.key_for(name, k) for k in keys))
        if how == "one":
            self.delete_key(name, chosen[0])
        else:
            self.delete_keys(name, chosen, quiet=how == "quiet")

    def delete_key(self, name: str, key: str) -> None:
        short = self.trace.short(name, key)
        self.begin(f"DeleteObject {short}")
        reply = self.send(f"DELETE {short}", lambda: self.wire.request("DELETE", name, key))
        if self.missing_bucket(reply, name, f"DeleteObject {short}"):
            return
        if self.store.obj(name, key) is None:
            self.check.status(
                reply, {204}, set(), "delete-missing", f"DeleteObject {short} (no such key)"
            )
            return
        check = "delete-object-spaces" if key != key.strip() else "delete-object"
        self.check.status(reply, {200, 204}, set(), check, f"DeleteObject {short}")
        self.store.remove(name, key, check)

    def delete_keys(self, name: str, keys: list[str], quiet: bool) -> None:
        short = self.trace.short(name)
        what = f"DeleteObjects {short} {keys!r}{' Quiet' if quiet else ''}"
        self.begin(what)
        reply = self.send(
            f"POST {short}?delete", lambda: self.wire.delete_objects(name, keys, quiet=quiet)
        )
        if self.missing_bucket(reply, name, what):
            return
        self.check.status(reply, {200}, set(), "delete-objects", what)
        parsed = ops.deleted_and_errors(reply)
        self.check.expect(parsed is not None, "delete-objects", f"{what}: no DeleteResult")
        assert parsed is not None
        deleted, errors = parsed
        self.check.expect(not errors, "delete-objects", f"{what}: errors for {errors!r}")
        if quiet:
            self.check.expect(
                not deleted, "delete-objects-quiet", f"{what}: Quiet, yet Deleted lists {deleted!r}"
            )
        else:
            self.check.expect(
                sorted(deleted) == sorted(keys),
                "delete-objects",
                f"{what}: Deleted lists {sorted(deleted)!r}",
            )
        for key in keys:
            if self.store.obj(name, key) is not None:
                # the bucket's listing after this step shows whether the key really went
                self.check.reached(delete_objects_check(key))
            self.store.remove(name, key, delete_objects_check(key))


def delete_objects_check(key: str) -> str:
    if key != key.lstrip():
        return "delete-objects-leading-spaces"
    if key != key.rstrip():
        return "delete-objects-trailing-spaces"
    return "delete-objects"
