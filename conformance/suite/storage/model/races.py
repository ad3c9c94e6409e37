"""The concurrent step: DeleteBucket while PUTs are still streaming into the bucket.

Serialised semantics leave two outcomes: the delete comes first (204, and every PUT answers
404 NoSuchBucket and stores nothing), or a PUT commits first (409 BucketNotEmpty, the bucket
stays with the objects whose PUTs answered 200). A 204 next to a PUT answered 200 is an object
in a deleted bucket: it must never show up again, not even in a bucket recreated later.
"""

from __future__ import annotations

import time

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from conformance.suite.storage.model import ops
from conformance.suite.storage.model.base import ModelBase
from conformance.suite.storage.model.objects import BUCKET, KEYS
from conformance.suite.storage.model.store import Bucket, Obj, md5_hex
from conformance.suite.storage.model.trace import status_text

BODY_BYTES = 64 * 1024  # trickled out in 8 KiB pieces every 20 ms: ~160 ms per PUT
JOIN_SECONDS = 60.0


class RaceSteps(ModelBase):
    @precondition(lambda self: self.ctx.concurrent)
    @rule(b=BUCKET, keys=st.lists(KEYS, min_size=1, max_size=4, unique=True))
    def delete_bucket_during_puts(self, b: int, keys: list[str]) -> None:
        name = self.bucket(b)
        self.empty_bucket(name)
        short = self.trace.short(name)
        what = f"DeleteBucket {short} while PUTs of {keys!r} stream"
        self.begin(what)
        headers = {"Content-Type": "application/octet-stream"}
        outcomes, threads = ops.start_slow_puts(self.wire, name, keys, BODY_BYTES, headers)
        time.sleep(0.05)  # the PUTs are under way: their bodies are still being sent
        reply = self.send(f"DELETE {short}", lambda: self.wire.request("DELETE", name))
        for thread in threads:
            thread.join(JOIN_SECONDS)
        for outcome in outcomes:
            answer = (
                status_text(outcome.reply) if outcome.reply else f"no answer: {outcome.failure}"
            )
            self.trace.sent(f"PUT {self.trace.short(name, outcome.key)} (streamed)", None, answer)
        stored = [o for o in outcomes if o.reply is not None and o.reply.status == 200]
        if reply.status == 409:
            self.check.expect(
                bool(stored), "delete-bucket-empty", f"{what}: 409 with no PUT stored"
            )
            self.check.status(reply, {409}, {"BucketNotEmpty"}, "delete-bucket-not-empty", what)
            digest = md5_hex(b"r" * BODY_BYTES)
            for o in stored:
                obj = Obj(digest, BODY_BYTES, digest, headers["Content-Type"], {}, "put")
                self.store.put(name, o.key, obj)
            for o in outcomes:
                ok = o.reply is not None and o.reply.status == 200
                self.check.expect(ok, "put", f"{what}: the bucket stayed, yet PUT {o.key!r} failed")
            return
        self.check.status(reply, {204}, set(), "delete-bucket-empty", what)
        self.store.drop_bucket(name)
        self.deleted.add(name)
        for o in stored:  # answered 200 into a bucket the delete had already removed
            self.store.removed_by[(name, o.key)] = "no-resurrection"
            self.check.fail(
                "no-resurrection",
                f"{what}: DeleteBucket answered 204, yet PUT {o.key!r} answered 200 (an object "
                "stored in a deleted bucket)",
            )
        for o in outcomes:
            if o.reply is not None:
                what_put = f"{what}: PUT {o.key!r} after the delete"
                self.check.status(o.reply, {404}, {"NoSuchBucket"}, "no-such-bucket", what_put)

    def empty_bucket(self, name: str) -> None:
        """Make the bucket exist and hold nothing (objects deleted, uploads aborted)."""
        from conformance.clients import s3_multipart as mp

        short = self.trace.short(name)
        if not self.store.exists(name):
            reply = self.send(f"PUT {short}", lambda: self.wire.create_bucket(name, "auto"))
            self.check.status(reply, {200}, set(), "create-bucket", f"CreateBucket {short}")
            self.store.buckets[name] = Bucket()
        held = self.store.buckets[name]
        keys = sorted(held.objects)
        if keys:
            reply = self.send(
                f"POST {short}?delete", lambda: self.wire.delete_objects(name, keys, quiet=True)
            )
            self.check.status(reply, {200}, set(), "delete-objects", f"DeleteObjects {short}")
            for key in keys:
                self.store.remove(name, key, "delete-objects")
        for upload in list(held.uploads.values()):
            reply = self.send(
                "DELETE ?uploadId", mp.abort, self.wire, name, upload.key, upload.upload_id
            )
            self.check.status(reply, {200, 204}, set(), "abort", f"AbortMultipartUpload in {short}")
            self.store.end_upload(upload, "abort")
