"""The machine's shared state and its after-every-step check of the buckets a step touched.

The step mixins (objects, multipart, listing, races) build on this class; Hypothesis collects
their rules from the composed class in machine.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, ClassVar

from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant

from conformance.clients.evidence import collector
from conformance.clients.s3_wire import WireClient, WireReply
from conformance.plugin import cleanup
from conformance.suite.storage.model import ops
from conformance.suite.storage.model.context import ModelContext, model_keys
from conformance.suite.storage.model.store import Bucket, Obj, Store, Upload, utf8_sorted
from conformance.suite.storage.model.trace import Checker, Trace

BUCKETS = 2  # few, so that steps meet on them: delete, recreate, reuse


class ModelBase(RuleBasedStateMachine):
    ctx: ClassVar[ModelContext]

    def __init__(self) -> None:
        super().__init__()
        ctx = self.ctx
        ctx.examples += 1
        ctx.last = self
        collector.reset()
        self.bucket_names = [ctx.names.bucket() for _ in range(BUCKETS)]
        self.trace = Trace({name: f"B{i}" for i, name in enumerate(self.bucket_names)})
        self.check = Checker(ctx.checks, self.trace, ctx.diverged, ctx.held)
        self.store = Store()
        self.handles: list[Upload] = []  # every upload of this example, live or ended
        self.deleted: set[str] = set()  # buckets this example deleted
        self.touched: set[str] = set()
        self.server_now: dt.datetime | None = None  # the Date of the latest answer

    @initialize()
    def first_buckets(self) -> None:
        """The buckets exist from the start, so that early steps find somewhere to work."""
        for index in range(BUCKETS):
            name = self.bucket(index)
            short = self.trace.short(name)
            self.begin(f"CreateBucket {short}")
            reply = self.send(f"PUT {short}", self.wire.create_bucket, name, "auto")
            self.check.status(reply, {200}, set(), "create-bucket", f"CreateBucket {short}")
            self.store.buckets[name] = Bucket()

    # -- helpers for the steps -----------------------------------------------------------
    @property
    def wire(self) -> WireClient:
        return self.ctx.s3.wire

    @property
    def keys(self) -> list[str]:
        return model_keys(self.ctx.data)

    def bucket(self, index: int) -> str:
        name = self.bucket_names[index % BUCKETS]
        self.touched.add(name)
        return name

    def key_for(self, name: str, choice: tuple[bool, int, str]) -> str:
        """A key the bucket holds (unless `fresh` or it holds none), else the pool's key."""
        fresh, pick, pooled = choice
        held = sorted(self.store.buckets[name].objects) if self.store.exists(name) else []
        return pooled if fresh or not held else held[pick % len(held)]

    def begin(self, text: str) -> None:
        self.ctx.steps += 1
        self.trace.begin(text)

    def send(self, text: str, call: Callable[..., WireReply], *args: Any, **kw: Any) -> WireReply:
        """Send one request (`call(*args, **kw)`) and write it into the trace."""
        reply = call(*args, **kw)
        self.trace.sent(text, reply)
        when = ops.parse_http_date(reply.header("date"))
        if when is not None:
            self.server_now = when
        return reply

    def missing_bucket(self, reply: WireReply, name: str, what: str) -> bool:
        """True (after checking the 404 NoSuchBucket) when the model has no such bucket."""
        if self.store.exists(name):
            return False
        self.check.status(reply, {404}, {"NoSuchBucket"}, self.absent_check(name), what)
        return True

    def absent_check(self, name: str) -> str:
        """The check a bucket that should not exist breaks: deleted here, or never made."""
        return "delete-bucket-empty" if name in self.deleted else "no-such-bucket"

    def origin_check(self, obj: Obj, aspect: str = "") -> str:
        """The check of the write that made `obj` (what a wrong read of it breaks)."""
        if obj.origin == "copy":
            return "copy-keeps" if aspect in ("meta", "etag") else "copy"
        if obj.origin == "complete":
            return "complete-head-etag" if aspect == "etag" else "complete"
        return {"etag": "put-etag", "meta": "put-metadata", "type": "put-http-metadata"}.get(
            aspect, "put"
        )

    def removed_check(self, bucket: str, key: str, default: str) -> str:
        return self.store.removed_by.get((bucket, key), default)

    # -- after every step ----------------------------------------------------------------
    @invariant()
    def touched_buckets_match(self) -> None:
        """Every bucket the last step touched holds exactly the model's objects and uploads."""
        for name in sorted(self.touched):
            self.verify_bucket(name)
        self.touched.clear()

    def verify_bucket(self, name: str) -> None:
        short = self.trace.short(name)
        if not self.store.exists(name):
            reply = self.send(f"check: HEAD {short}", lambda: self.wire.request("HEAD", name))
            self.check.status(reply, {404}, set(), self.absent_check(name), f"HEAD {short}")
            return
        reply = self.send(
            f"check: LIST {short}",
            lambda: ops.list_page(self.wire, name, 2, "", None, 1000, None),
        )
        self.check.status(reply, {200}, set(), "no-such-bucket", f"ListObjectsV2 {short}")
        page = ops.parse_page(reply)
        self.check.expect(page is not None, "list-max-keys", f"{short}: no ListBucketResult")
        assert page is not None
        self.compare_keys(name, set(page.keys), f"ListObjectsV2 of {short}")
        ordered = utf8_sorted(page.keys)
        self.check.expect(page.keys == ordered, "list-order", f"{short} lists {page.keys!r}")
        reply = self.send(f"check: LIST UPLOADS {short}", lambda: self._uploads(name))
        self.check.status(reply, {200}, set(), "list-uploads", f"ListMultipartUploads {short}")
        found = ops.uploads_of(reply)
        self.check.expect(found is not None, "list-uploads", f"{short}: not an uploads list")
        assert found is not None
        self.compare_uploads(name, found)

    def _uploads(self, name: str) -> WireReply:
        from conformance.clients import s3_multipart as mp

        return mp.list_uploads(self.wire, name)

    def compare_keys(self, name: str, seen: set[str], what: str) -> None:
        model = set(self.store.buckets[name].objects)
        for key in sorted(seen - model):
            check = self.removed_check(name, key, "put")
            self.check.fail(check, f"{what} shows {key!r}, which the model says is not there")
        for key in sorted(model - seen):
            obj = self.store.buckets[name].objects[key]
            self.check.fail(
                self.origin_check(obj), f"{what} lacks {key!r}, written by a {obj.origin}"
            )

    def compare_uploads(self, name: str, seen: set[tuple[str, str]]) -> None:
        uploads = self.store.buckets[name].uploads
        model = {(u.key, u.upload_id) for u in uploads.values()}
        short = self.trace.short(name)
        for key, upload_id in sorted(seen - model):
            check = self.store.ended.get(upload_id, "list-uploads")
            self.check.fail(check, f"{short} lists upload {upload_id!r} of {key!r}, ended")
        for key, upload_id in sorted(model - seen):
            self.check.fail(
                "list-uploads", f"{short} does not list upload {upload_id!r} of {key!r}"
            )

    def teardown(self) -> None:
        for name in self.bucket_names:
            cleanup.delete_bucket(self.ctx.s3, name)


def draw_index(items: list[Any], pick: int) -> Any:
    return items[pick % len(items)]
