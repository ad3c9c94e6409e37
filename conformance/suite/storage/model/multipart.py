"""Steps of multipart uploads: create, upload part, complete (with conditions), abort.

Steps may pick an upload that has already ended (aborted, completed, or gone with its
bucket): that is how the model checks that an ended upload never comes back.
"""

from __future__ import annotations

import hashlib

from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from conformance.clients import s3_multipart as mp
from conformance.clients.s3_wire import WireReply
from conformance.suite.storage.model import ops
from conformance.suite.storage.model.base import draw_index
from conformance.suite.storage.model.objects import (
    BUCKET,
    CONTENT_TYPES,
    KEYS,
    ObjectSteps,
    condition_headers,
    condition_met,
)
from conformance.suite.storage.model.store import (
    Body,
    Obj,
    Part,
    Upload,
    md5_hex,
    multipart_etag,
    size_problem,
    unquote_etag,
)

# an upload: a live one (most often), or (first item True) any of the example's, ended or not
PICK = st.tuples(st.booleans(), st.integers(0, 7))
SIZES = st.sampled_from(["small", "zero", "min", "min+1"])
COMPLETE_CONDITIONS = st.sampled_from(["none", "if-none-match-*", "if-match", "if-match-other"])
PLACEHOLDER_ETAG = '"d41d8cd98f00b204e9800998ecf8427e"'  # a part list for an ended upload


class MultipartSteps(ObjectSteps):
    @rule(
        b=BUCKET,
        key=KEYS,
        content_type=CONTENT_TYPES,
        parts=st.lists(st.tuples(SIZES, st.integers(0, 255)), max_size=3),
        finish=st.booleans(),
    )
    def create_upload(
        self, b: int, key: str, content_type: str, parts: list[tuple[str, int]], finish: bool
    ) -> None:
        """CreateMultipartUpload, then its first parts (none to three, sizes drawn), and maybe
        its completion at once (the common life of an upload, in one step)."""
        name = self.bucket(b)
        short = self.trace.short(name, key)
        self.begin(f"CreateMultipartUpload {short}")
        headers = {"Content-Type": content_type}
        reply = self.send(
            f"POST {short}?uploads", lambda: mp.create_upload(self.wire, name, key, headers)
        )
        if self.missing_bucket(reply, name, f"CreateMultipartUpload {short}"):
            return
        self.check.status(reply, {200}, set(), "create-upload", f"CreateMultipartUpload {short}")
        upload_id = ops.upload_id_of(reply)
        self.check.expect(
            bool(upload_id), "create-upload", f"CreateMultipartUpload {short}: no UploadId"
        )
        assert upload_id
        upload = Upload(name, key, upload_id, content_type)
        self.store.buckets[name].uploads[upload_id] = upload
        self.handles.append(upload)
        label = f"U{len(self.handles) - 1}"
        self.trace.lines[-1] += f" [upload {label}]"
        for number, (size, fill) in enumerate(parts, start=1):
            body = self.part_body(size, fill)
            self.send_part(upload, True, label, number, body, f"UploadPart {label} #{number}")
        if finish and parts:
            self.finish(upload, True, label, sorted(upload.parts), "none")

    def handle(self, choice: tuple[bool, int]) -> tuple[Upload, bool, str]:
        """An upload of this example, whether it is still in progress, and its short name."""
        upload = self.pick_upload(choice)
        self.touched.add(upload.bucket)
        live = self.store.find_upload(upload.upload_id) is upload
        return (
            upload,
            live,
            f"U{self.handles.index(upload)} ({self.trace.short(upload.bucket, upload.key)})",
        )

    def pick_upload(self, choice: tuple[bool, int]) -> Upload:
        anyone, pick = choice
        live = [u for u in self.handles if self.store.find_upload(u.upload_id) is u]
        found: Upload = draw_index(self.handles if anyone or not live else live, pick)
        return found

    def ended_answer(self, reply_status: int, code: str | None, upload: Upload, what: str) -> None:
        """An ended upload answers 404 NoSuchUpload (NoSuchBucket once its bucket is gone)."""
        check = self.store.ended.get(upload.upload_id, "upload-part-no-such-upload")
        allowed = {"NoSuchUpload"} | (
            {"NoSuchBucket"} if not self.store.exists(upload.bucket) else set()
        )
        if reply_status == 404 and code == "NoSuchBucket" and "NoSuchBucket" not in allowed:
            check = "upload-part-not-no-such-bucket"
        ok = reply_status == 404 and code in allowed
        want = "/".join(sorted(allowed))
        got = f"{reply_status} {code or ''}".strip()
        self.check.expect(ok, check, f"{what} of an ended upload: expected 404 {want}, got {got}")

    def part_body(self, size: str, fill: int) -> Body:
        base = self.ctx.min_part_bytes
        return Body(fill, {"small": 7, "zero": 0, "min": base, "min+1": base + 1}[size])

    @precondition(lambda self: bool(self.handles))
    @rule(pick=PICK, number=st.integers(0, 3), size=SIZES, fill=st.integers(0, 255))
    def upload_part(self, pick: tuple[bool, int], number: int, size: str, fill: int) -> None:
        """UploadPart `number` (0: the upload's next number) of a live or an ended upload."""
        upload, live, label = self.handle(pick)
        number = number or min(max(upload.parts, default=0) + 1, 4)
        body = self.part_body(size, fill)
        what = f"UploadPart {label} #{number} ({body.size} bytes)"
        self.begin(what)
        self.send_part(upload, live, label, number, body, what)

    def send_part(
        self, upload: Upload, live: bool, label: str, number: int, body: Body, what: str
    ) -> None:
        data = body.data()
        reply = self.send(
            f"PUT {label} ?partNumber={number} ({body.size} bytes)",
            ops.part,
            *(self.wire, upload.bucket, upload.key, upload.upload_id, number, data),
        )
        if not live:
            self.ended_answer(reply.status, reply.error_code, upload, what)
            bucket_kept = (
                ["upload-part-not-no-such-bucket"] if self.store.exists(upload.bucket) else []
            )
            self.check.reached("upload-part-no-such-upload", *bucket_kept)
            return
        self.check.status(reply, {200}, set(), "upload-part", what)
        etag = unquote_etag(reply.header("etag"))
        self.check.expect(
            etag == md5_hex(data),
            "complete-etag-md5",
            f"{what}: part ETag {etag!r}, not the part's MD5",
        )
        upload.parts[number] = Part(body, etag)

    @precondition(lambda self: bool(self.handles))
    @rule(pick=PICK, condition=COMPLETE_CONDITIONS)
    def complete(self, pick: tuple[bool, int], condition: str) -> None:
        upload, live, label = self.handle(pick)
        numbers = sorted(upload.parts)
        # assume() only when the step is to be dropped: the fixed tour (tour.py) calls this
        # rule outside a hypothesis test, where calling assume() at all is deprecated
        if live and not numbers:
            assume(False)  # an empty part list is malformed: not what the model checks
        elif (
            not live
            and self.store.ended.get(upload.upload_id) == "complete"
            and self.published_by(upload) is None
        ):
            # a retried completion answers its first success again (S3): checked only while
            # the key still holds what this upload published
            assume(False)
        self.begin(f"CompleteMultipartUpload {label} parts {numbers} ({condition})")
        self.finish(upload, live, label, numbers, condition)

    def finish(
        self, upload: Upload, live: bool, label: str, numbers: list[int], condition: str
    ) -> None:
        """CompleteMultipartUpload of the parts `numbers` under a condition, checked."""
        listed = [(n, f'"{upload.parts[n].etag}"') for n in numbers] or [(1, PLACEHOLDER_ETAG)]
        existing = self.store.obj(upload.bucket, upload.key) if live else None
        names = ("If-Match", "If-None-Match")
        headers = condition_headers(condition, existing, names) if live else {}
        sent = condition if headers else "none"
        what = f"CompleteMultipartUpload {label} parts {numbers} ({sent})"
        reply = self.send(
            f"POST {label} ?uploadId ({sent})",
            mp.complete,
            *(self.wire, upload.bucket, upload.key, upload.upload_id, listed, headers),
        )
        if not live:
            published = self.published_by(upload)
            if published is not None and reply.status == 200:
                etag = unquote_etag(ops.result_etag(reply))
                ok = etag == published.etag
                self.check.expect(ok, "complete-retry", f"{what} retried: ETag {etag!r}")
                return
            self.ended_answer(reply.status, reply.error_code, upload, what)
            return
        if not condition_met(condition, existing):
            self.check.status(
                reply, {412}, {"PreconditionFailed"}, "complete-condition-unmet", what
            )
            self.store.end_upload(upload, "complete-condition-aborts")
            return
        sizes = [upload.parts[n].body.size for n in numbers]
        problems = size_problem(sizes, self.ctx.min_part_bytes)
        refused = problems - {""}
        smaller_last = len(sizes) > 1 and sizes[-1] < sizes[0]
        check = (
            "complete-condition-met"
            if headers
            else ("complete-last-smaller" if smaller_last else "complete")
        )
        if reply.status == 200 and (not refused or "" in problems):
            self.published(reply, upload, numbers, what)
            self.check.reached(check)
            return
        if refused:
            check = "complete-too-small" if "EntityTooSmall" in refused else "complete-unequal"
            self.check.status(reply, {400}, refused, check, what)
            self.abort_now(upload, label)  # S3 keeps the upload; the model ends it to stay sure
            return
        self.check.status(reply, {200}, set(), check, what)

    def published_by(self, upload: Upload) -> Obj | None:
        """The object at the upload's key, when this completed upload published it."""
        obj = self.store.obj(upload.bucket, upload.key)
        return obj if obj is not None and obj.upload_id == upload.upload_id else None

    def published(self, reply: WireReply, upload: Upload, numbers: list[int], what: str) -> None:
        etag = unquote_etag(ops.result_etag(reply))
        count = len(numbers)
        self.check.expect(
            etag.endswith(f"-{count}"),
            "complete-etag-suffix",
            f"{what}: ETag {etag!r} does not end with -{count}",
        )
        want = multipart_etag([upload.parts[n].etag for n in numbers])
        self.check.expect(
            etag == want,
            "complete-etag-md5",
            f"{what}: ETag {etag!r}, MD5 of the part MD5s is {want!r}",
        )
        digest = hashlib.md5()
        for n in numbers:
            digest.update(upload.parts[n].body.data())
        size = sum(upload.parts[n].body.size for n in numbers)
        obj = Obj(
            digest.hexdigest(),
            size,
            etag,
            upload.content_type,
            {},
            "complete",
            multipart=True,
            upload_id=upload.upload_id,
        )
        self.store.end_upload(upload, "complete")
        self.store.put(upload.bucket, upload.key, obj)
        self.read_back(upload.bucket, upload.key)

    def abort_now(self, upload: Upload, label: str) -> None:
        reply = self.send(
            f"DELETE ?uploadId {label}",
            lambda: mp.abort(self.wire, upload.bucket, upload.key, upload.upload_id),
        )
        self.check.status(reply, {200, 204}, set(), "abort", f"AbortMultipartUpload {label}")
        self.store.end_upload(upload, "abort")

    @precondition(lambda self: bool(self.handles))
    @rule(pick=PICK)
    def abort(self, pick: tuple[bool, int]) -> None:
        upload, live, label = self.handle(pick)
        what = f"AbortMultipartUpload {label}"
        self.begin(what)
        reply = self.send(
            "DELETE ?uploadId",
            lambda: mp.abort(self.wire, upload.bucket, upload.key, upload.upload_id),
        )
        if live:
            self.check.status(reply, {200, 204}, set(), "abort", what)
            self.store.end_upload(upload, "abort")
            return
        ended_by = self.store.ended.get(upload.upload_id, "abort")
        if ended_by in ("abort", "complete-condition-aborts") and self.store.exists(upload.bucket):
            self.check.status(reply, {200, 204}, set(), "abort-repeat", what + " again")
            return
        # completed, or gone with its bucket: S3 leaves the answer open (2xx or a 404)
        allowed = {200, 204, 404}
        self.check.status(reply, allowed, {"NoSuchUpload", "NoSuchBucket"}, ended_by, what)
