"""The concurrent steps: DeleteBucket while PUTs stream into the bucket; two create-if-absent
PUTs of one new key, one of them still streaming while the other runs to its end.

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

CONFLICT_CODES = {"ConditionalRequestConflict", "TooMuchConcurrency"}
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
        self.check.reached("no-resurrection")
        for o in outcomes:
            if o.reply is not None:
                what_put = f"{what}: PUT {o.key!r} after the delete"
                self.check.status(o.reply, {404}, {"NoSuchBucket"}, "no-such-bucket", what_put)

    @rule(b=BUCKET, pick=st.integers(0, 31), sizes=st.tuples(st.integers(1, 3), st.integers(1, 3)))
    def create_if_absent_race(self, b: int, pick: int, sizes: tuple[int, int]) -> None:
        """`If-None-Match: *` PUT A streams half its body; `If-None-Match: *` PUT B of the same
        absent key runs to its end; A finishes. The first to finish wins (200), the other is 412
        (or a 409 conflict, nothing stored); the key then holds the winner's bytes."""
        from conformance.suite.storage.support import HalfSent

        name = self.bucket(b)
        if not self.store.exists(name):
            return
        absent = [k for k in self.keys if self.store.obj(name, k) is None]
        if not absent:
            return
        key = absent[pick % len(absent)]
        short = self.trace.short(name, key)
        what = f"two PutObject {short} If-None-Match: * racing"
        self.begin(what)
        bodies = (b"A" * (sizes[0] * 20_000), b"B" * (sizes[1] * 15_000))
        headers = {"Content-Type": "application/octet-stream", "If-None-Match": "*"}
        slow = HalfSent(self.wire, "PUT", name, key, bodies[0], headers=headers)
        try:
            quick = self.send(
                f"PUT {short} (B, while A streams)",
                lambda: self.wire.put_object(name, key, bodies[1], headers),
            )
            late = slow.finish()
        finally:
            slow.close()
        self.trace.sent(f"PUT {short} (A, finished last)", late)
        replies = {"B": (quick, bodies[1]), "A": (late, bodies[0])}
        won = [label for label, (reply, _) in replies.items() if reply.status == 200]
        answers = f"B {status_text(quick)}, A {status_text(late)}"
        check = "put-create-if-absent-race"
        self.check.expect(len(won) == 1, check, f"{what}: {answers}, not exactly one 200")
        self.check.expect(quick.status != 412, check, f"{what}: B finished first, got 412")
        for reply, _ in replies.values():
            lost = reply.status == 412 or (
                reply.status == 409 and reply.error_code in CONFLICT_CODES
            )
            self.check.expect(reply.status == 200 or lost, check, f"{what}: {answers}")
        body = replies[won[0]][1]
        digest = md5_hex(body)
        obj = Obj(digest, len(body), digest, headers["Content-Type"], {}, "put")
        self.store.put(name, key, obj)
        got = self.send(f"GET {short}", lambda: self.wire.get_object(name, key))
        self.check.expect(
            got.status == 200 and got.body == body,
            check,
            f"{what}: {answers}, then GetObject {status_text(got)} with {len(got.body)} bytes, "
            f"not the winner's {len(body)}",
        )

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
