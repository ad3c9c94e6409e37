"""Evidence of wire exchanges: what a client saw, bounded and without secrets.

Every client appends one `Exchange` per HTTP exchange to the current collector; the plugin
starts a fresh collector before each test and attaches what was collected to the test report.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

BODY_EXCERPT_BYTES = 600
# what was sent is kept longer than what came back: `conformance replay` re-sends it, and most
# request bodies (XML configurations, JSON-RPC, rule sets) fit; a longer one is marked cut
REQUEST_BODY_BYTES = 4096
MAX_EXCHANGES = 12
# setup remembered per bucket for a failing test's replay (docs/triage.md)
MAX_SETUP_BUCKETS = 64
MAX_SETUP_PER_BUCKET = 16  # a fixture of a few keys replays whole
READS = frozenset({"GET", "HEAD", "OPTIONS"})  # exchanges that change no state
RETRY_NOTE = "retried: "  # the body of a retry's note (clients/retry.py), no request of its own
SECRET_QUERY_KEYS = {"x-amz-signature", "x-amz-credential", "x-amz-security-token"}
SECRET_HEADERS = {"authorization", "x-auth-key", "x-auth-email", "x-amz-security-token", "cookie"}
KEPT_RESPONSE_HEADERS = (
    "content-type",
    "content-length",
    "content-range",
    "etag",
    "location",
    "last-modified",
    "x-amz-bucket-region",
    "x-amz-version-id",
    "x-amz-copy-source-version-id",
    "access-control-allow-origin",
    "access-control-allow-headers",
    "access-control-expose-headers",
    "content-encoding",
)


_SECRET_TEXT = re.compile(
    r"(?i)\b(x-amz-signature|x-amz-credential|x-amz-security-token|signature|credential)"
    r"(=|%3D)([^&\s'\",;)]+)"
)


def redact_text(text: str) -> str:
    """Free text (a failure message quoting a presigned URL or an Authorization value) with the
    signature and credential values replaced, as in redact_url."""
    return _SECRET_TEXT.sub(lambda m: f"{m.group(1)}{m.group(2)}REDACTED", text)


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    query = [
        (k, "REDACTED" if k.lower() in SECRET_QUERY_KEYS else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def excerpt(body: Any, limit: int = BODY_EXCERPT_BYTES) -> str:
    """The first `limit` bytes as text, "…" appended when cut; "" for no body or a stream."""
    if isinstance(body, bytearray | memoryview):
        body = bytes(body)
    if isinstance(body, bytes):
        text = body[:limit].decode("utf-8", errors="replace")
        return text + ("…" if len(body) > limit else "")
    if isinstance(body, str):
        return body[:limit] + ("…" if len(body) > limit else "")
    return ""


def header_text(value: Any) -> str:
    """A header value as sent: botocore keeps some as bytes, whose str() would be "b'…'"."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("latin-1")
    return str(value)


def body_size(body: Any) -> int | None:
    """Bytes of a request body that is in memory; None for none or a stream (not replayable)."""
    if isinstance(body, bytes | bytearray | memoryview):
        return len(body)
    if isinstance(body, str):
        return len(body.encode("utf-8"))
    return None


@dataclass
class Exchange:
    method: str
    url: str
    status: int | None
    request_headers: dict[str, str] = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)
    body_excerpt: str = ""
    # what was sent, where the body decides the answer (a JSON-RPC request); "" when not recorded
    request_body_excerpt: str = ""
    # the whole request body's length: replay re-sends the excerpt only when it is all of it
    request_body_bytes: int | None = None
    # names (never values) of the secret headers that were sent: a replay sends those again,
    # with today's credentials, and no others (a test of a request without them stays so)
    secret_headers: list[str] = field(default_factory=list)

    @classmethod
    def build(
        cls,
        method: str,
        url: str,
        status: int | None,
        request_headers: Any = None,
        response_headers: Any = None,
        body: bytes | str | None = None,
        request_body: Any = None,
    ) -> Exchange:
        req = {
            str(k).lower(): header_text(v)
            for k, v in dict(request_headers or {}).items()
            if str(k).lower() not in SECRET_HEADERS
        }
        secret = sorted(
            {str(k).lower() for k in dict(request_headers or {})} & SECRET_HEADERS - {"cookie"}
        )
        resp_all = {str(k).lower(): str(v) for k, v in dict(response_headers or {}).items()}
        resp = {k: v for k, v in resp_all.items() if k in KEPT_RESPONSE_HEADERS}
        return cls(
            method.upper(), redact_url(url), status, req, resp, excerpt(body),
            excerpt(request_body, REQUEST_BODY_BYTES), body_size(request_body), secret,
        )  # fmt: skip

    def as_dict(self) -> dict[str, Any]:
        found = asdict(self)
        if found["request_body_bytes"] is None:  # the schema's older shape: no null
            del found["request_body_bytes"]
        return found


class Collector:
    """Exchanges of the running test, newest last, bounded; and, across tests, how each bucket
    the run touched was made and filled (the setup a failing test's replay needs, when a shared
    fixture made it before the test began)."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []
        self.made: OrderedDict[str, list[Exchange]] = OrderedDict()
        self.keys: dict[str, set[str]] = {}  # per remembered bucket, every key PUT since made
        # per remembered bucket, its other writes since made (DELETE, POST, a PUT with a query
        # or without a clear answer): none is replayed from the setup record
        self.other_writes: dict[str, int] = {}
        # writes of the running test the bounded window let go: the bucket of each (None for
        # a request that names none)
        self.dropped_writes: list[str | None] = []
        # remembered buckets whose DeleteBucket answered 2xx in the running phase (not made
        # again since): kept for that phase's evidence, forgotten after it
        self.deleted: set[str] = set()
        # a bucket deleted and made again in the running phase: the record it had before
        self.earlier: dict[str, list[Exchange]] = {}

    def add(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)
        if len(self.exchanges) > MAX_EXCHANGES:
            first = self.exchanges.pop(0)
            if _stateful_write(first):
                self.dropped_writes.append(_bucket_of(first))
        self._remember(exchange)

    def reset(self) -> list[Exchange]:
        taken, self.exchanges = self.exchanges, []
        self.dropped_writes = []
        return taken

    def take(self, failed: bool) -> list[dict[str, Any]]:
        """The running test's evidence (`evidence`), the collector then ready for the next: the
        buckets the phase deleted are forgotten (a later test that meets one gone must not get
        its creation replayed, nor should dead records push live ones out)."""
        dropped = self.dropped_writes
        found = self.evidence(self.reset(), dropped, failed)
        for bucket in self.deleted:
            self._forget(bucket)
        self.deleted.clear()
        self.earlier.clear()
        return found

    def evidence(
        self,
        taken: list[Exchange],
        dropped_writes: list[str | None],
        failed: bool,
    ) -> list[dict[str, Any]]:
        """A test's exchanges as recorded; for a failed test, what made the buckets it used
        first (`setup`). `left_out` counts the writes the state came from that the evidence
        does not hold (the window and the setup record are bounded): a replay then rebuilds
        another state, and a different answer there proves nothing (conformance/replay.py)."""
        exchanges = [exchange.as_dict() for exchange in taken]
        setup = self.setup_for(taken) if failed and taken else []
        # a setup bucket's count covers the writes to it the window let go (never twice)
        counted = {t[0] for e in setup if (t := _bucket_and_key(e)) and t[1] is None}
        lost = sum(1 for bucket in dropped_writes if bucket is None or bucket not in counted)
        first = next((e for e, x in zip(exchanges, taken, strict=True) if not _is_note(x)), None)
        if lost and first is not None:  # on a request replay sends (a retry note it skips)
            first["left_out"] = lost
        made: list[dict[str, Any]] = []
        for exchange in setup:
            entry = {**exchange.as_dict(), "setup": True}
            target = _bucket_and_key(exchange)
            if target is not None and target[1] is None:  # the CreateBucket: its bucket's count
                missing = self._unrecorded_keys(target[0], [*taken, *self.made[target[0]]])
                missing += self._unrecorded_other_writes(target[0], taken)
                if missing:
                    entry["left_out"] = missing
            made.append(entry)
        return made + exchanges

    def _unrecorded_other_writes(self, bucket: str, recorded: list[Exchange]) -> int:
        """`bucket`'s writes other than its PutObjects that no recorded exchange holds."""
        shown = sum(1 for e in recorded if _other_write(e) and _bucket_of(e) == bucket)
        return max(0, self.other_writes.get(bucket, 0) - shown)

    def _unrecorded_keys(self, bucket: str, recorded: list[Exchange]) -> int:
        """Keys PUT to `bucket` (before or during the test) that no recorded exchange PUT."""
        shown = {
            target[1]
            for exchange in recorded
            if exchange.method == "PUT"
            and (target := _bucket_and_key(exchange))
            and target[0] == bucket
            and target[1]
        }
        return len(self.keys.get(bucket, set()) - shown)

    def _remember(self, exchange: Exchange) -> None:
        """Keep a successful signed CreateBucket or PutObject (no subresource query) per bucket;
        count a remembered bucket's other writes. A bucket created again while it stands keeps
        its record (its objects are still there); one created after its DeleteBucket answered
        2xx starts a new record. The deleted bucket's record stays until then: the test that
        deleted it (a failing delete of a non-empty bucket) needs its creation replayed."""
        target = _bucket_and_key(exchange)
        if target is not None and target[0] in self.made and _other_write(exchange):
            self.other_writes[target[0]] = self.other_writes.get(target[0], 0) + 1
        if target is None or urlsplit(exchange.url).query:
            return
        if not (exchange.status and 200 <= exchange.status < 300):
            return
        bucket, key = target
        if exchange.method == "DELETE" and key is None:
            if bucket in self.made:
                self.deleted.add(bucket)
            return
        if exchange.method != "PUT":
            return
        if key is None:
            if bucket not in self.made or bucket in self.deleted:
                if bucket in self.deleted:  # the phase's evidence still needs how it was made
                    self.earlier.setdefault(bucket, self.made[bucket])
                    self.deleted.discard(bucket)
                self.made[bucket] = [exchange]
                self.keys[bucket] = set()
                self.other_writes[bucket] = 0
        elif bucket in self.made:
            self.keys[bucket].add(key)
            created, *objects = self.made[bucket]  # the CreateBucket stays first
            objects = [*(e for e in objects if e.url != exchange.url), exchange]
            self.made[bucket] = [created, *objects[-(MAX_SETUP_PER_BUCKET - 1) :]]
        else:
            return
        self.made.move_to_end(bucket)
        while len(self.made) > MAX_SETUP_BUCKETS:
            gone = next(iter(self.made))
            self._forget(gone)
            self.deleted.discard(gone)

    def _forget(self, bucket: str) -> None:
        self.made.pop(bucket, None)
        self.keys.pop(bucket, None)
        self.other_writes.pop(bucket, None)

    def setup_for(self, exchanges: list[Exchange]) -> list[Exchange]:
        """Earlier exchanges that made the buckets (and objects) `exchanges` use, when they are
        not among them: oldest first, at most MAX_SETUP_PER_BUCKET per bucket."""
        seen = {id(e) for e in exchanges}
        buckets: list[str] = []
        for exchange in exchanges:
            for bucket in _buckets_used(exchange):
                if bucket not in buckets:
                    buckets.append(bucket)
        # a remembered CopyObject needs its source bucket made first, and that one its own
        ordered: list[str] = []

        def visit(bucket: str, path: frozenset[str]) -> None:
            if bucket in ordered or bucket in path:
                return
            for made in self.made.get(bucket, []):
                for source in _buckets_used(made):
                    if source != bucket:
                        visit(source, path | {bucket})
            ordered.append(bucket)

        for bucket in buckets:
            visit(bucket, frozenset())
        made = [e for b in ordered for e in [*self.earlier.get(b, []), *self.made.get(b, [])]]
        return [e for e in made if id(e) not in seen]


def _is_note(exchange: Exchange) -> bool:
    """The suite's own note among exchanges (a retry, a request never built): not a request."""
    return exchange.method == "?" or exchange.body_excerpt.startswith(RETRY_NOTE)


def _unrefused_write(exchange: Exchange) -> bool:
    """A request that may have changed state: not a read, not a note, not refused (a 4xx
    changed nothing)."""
    if exchange.method in READS or _is_note(exchange):
        return False
    return not (exchange.status is not None and 400 <= exchange.status < 500)


def _other_write(exchange: Exchange) -> bool:
    """A write the setup record does not replay: any but a PutObject or CreateBucket answered
    2xx (kept there)."""
    if not _unrefused_write(exchange):
        return False
    plain_put = exchange.method == "PUT" and not urlsplit(exchange.url).query
    return not (plain_put and exchange.status is not None and 200 <= exchange.status < 300)


def _stateful_write(exchange: Exchange) -> bool:
    """A write that changed what a later request reads: a signed S3 request or a management
    API call (`/client/v4/`). A JSON-RPC or bindings-bridge POST (a read as often as not, its
    body says which) and bytes written by hand (RAW) are not counted."""
    if not _unrefused_write(exchange) or exchange.method == "RAW":
        return False
    return _bucket_of(exchange) is not None or "/client/v4/" in urlsplit(exchange.url).path


def _bucket_of(exchange: Exchange) -> str | None:
    target = _bucket_and_key(exchange)
    return target[0] if target else None


def _bucket_and_key(exchange: Exchange) -> tuple[str, str | None] | None:
    """(bucket, key) of a path-style S3 request (signed: it has x-amz-date), else None."""
    if "x-amz-date" not in exchange.request_headers:
        return None
    path = urlsplit(exchange.url).path.lstrip("/")
    if not path:
        return None
    bucket, _, key = path.partition("/")
    return bucket, (key or None)


def _buckets_used(exchange: Exchange) -> list[str]:
    found = _bucket_and_key(exchange)
    used = [found[0]] if found else []
    source = exchange.request_headers.get("x-amz-copy-source", "").lstrip("/")
    if source:
        used.append(source.split("/", 1)[0])
    return used


collector = Collector()
