"""A bucket as the runtime binding sees it: put, get, head, delete and list over the engine.

Method names and option names follow the workers binding (camelCase options), so that the bridge
is a thin translation. Dated behaviour reads `ctx.profile.bindings_*`; the compatibility date and
flags of the calling worker arrive with each call (`Compat`), as a worker's configuration would.
"""

from __future__ import annotations

import base64
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from reference_impl.bindings import base64_body, conditions, objects, ranges
from reference_impl.bindings.base64_body import Body
from reference_impl.bindings.errors import BindingError, InternalError, store_error, type_error
from reference_impl.bindings.streamed import StreamedBody
from reference_impl.context import ServerContext
from reference_impl.storage.engine import BucketGone, ObjectRecord
from reference_impl.storage.full import StorageFull
from reference_impl.wire.s3.xml_text import fits_xml

HONOR_INCLUDE_FLAG = "r2_list_honor_include"
USER_HASHES = ("md5", "sha1", "sha256", "sha384", "sha512")
MAX_LIST_LIMIT = 1000
MAX_KEY_BYTES = 1024


@dataclass(frozen=True)
class Compat:
    """The calling worker's compatibility date and flags."""

    date: dt.date
    flags: frozenset[str] = field(default_factory=frozenset)


def check_key(operation: str, key: Any) -> str:
    if not isinstance(key, str):
        raise type_error(operation, "key must be a string")
    try:
        size = len(key.encode())
    except UnicodeEncodeError:  # a lone surrogate from JSON: not UTF-8, so not a key
        raise store_error(operation, "The specified object name is not valid", 10020) from None
    if size > MAX_KEY_BYTES or not fits_xml(key):  # S3's pages must be able to list it
        raise store_error(operation, "The specified object name is not valid", 10020)
    return key


def storage_full(operation: str) -> BindingError:
    """No space left (storage.full.StorageFull): a refusal that says so, nothing stored."""
    return BindingError("Error", f"{operation}: no space left to store the object")


def bucket_gone(operation: str) -> BindingError:
    """The bucket was deleted while the call ran (storage.engine.BucketGone): nothing stored."""
    return store_error(operation, "The specified bucket does not exist.", 10006)


class _Unmet(Exception):
    """A put's onlyIf no longer held when its object was about to publish."""


class BindingBucket:
    """One bucket of the default account, bound into a worker."""

    def __init__(self, ctx: ServerContext, name: str, compat: Compat, operation: str) -> None:
        """A binding names an existing bucket: a missing one (never created, or deleted) is the
        binding's 10006 error, thrown by every operation; it is never created here."""
        self.ctx, self.name, self.compat = ctx, name, compat
        self.profile = ctx.profile
        self.account = ctx.identity.account_id
        if ctx.store.get_bucket(self.account, name) is not None:
            return
        if ctx.profile.deviations.bindings_create_bucket:  # the defect of issue 26
            ctx.store.create_bucket(self.account, name, "auto")
            return
        raise bucket_gone(operation)

    def _record(self, key: str) -> ObjectRecord | None:
        record: ObjectRecord | None = self.ctx.store.get_object(self.account, self.name, key)
        return record

    def _lists(self) -> bool:
        return bool(self.profile.bindings_etag_lists)

    def _met(self, cond: conditions.Conditions | None, record: ObjectRecord | None) -> bool:
        if cond is None or self.profile.deviations.bindings_ignore_only_if:
            return True
        etag, uploaded = (record.etag, record.modified) if record else (None, None)
        first_only = bool(self.profile.deviations.bindings_first_etag_only)
        weak = bool(self.profile.deviations.bindings_weak_if_match)
        return conditions.satisfied(cond, etag, uploaded, first_only, weak)

    def describe(
        self, record: ObjectRecord, include: tuple[str, ...] | None = None
    ) -> dict[str, Any]:
        drop = bool(self.profile.deviations.bindings_drop_checksums)
        if include is None:
            doc = objects.describe(record, drop_checksums=drop)
        else:
            doc = objects.describe(record, include, drop)
        if self.profile.deviations.bindings_hide_s3_content_type and not record.meta.get(
            objects.ORIGIN_KEY
        ):
            doc.get("httpMetadata", {}).pop("contentType", None)
        return doc

    # put
    async def put(self, key: Any, value: Body, options: dict[str, Any]) -> dict[str, Any] | None:
        key = check_key("put", key)
        extended = bool(self.profile.bindings_put_options)
        claims = {h: options[h] for h in USER_HASHES if options.get(h) is not None}
        if len(claims) > 1:
            raise type_error("put", "You cannot specify multiple hashing algorithms.")
        if claims and not extended and set(claims) != {"md5"}:
            raise type_error("put", f"unknown hash option {sorted(claims)[0]}")
        cond = conditions.parse("put", options.get("onlyIf"), self._lists()) if extended else None
        if not self._met(cond, self._record(key)):
            return None
        if self.profile.deviations.bindings_truncate_body:
            value = base64_body.truncated(value)
        meta = self._meta(options)
        kept = await self._verify(claims, value)
        if kept:
            meta["checksums"] = kept
        content_type = meta["http"].get("content-type", "application/octet-stream")

        def still_met(current: ObjectRecord | None) -> None:  # again as the object publishes
            if not self._met(cond, current):
                raise _Unmet(key)

        try:
            blob = await self.ctx.store.write_blob(base64_body.stream(value))
            record = self.ctx.store.put_object(
                self.account, self.name, key, blob, content_type, meta,
                check=None if cond is None else still_met,
            )  # fmt: skip
        except _Unmet:  # another write published first: onlyIf no longer holds
            return None
        except BucketGone:
            raise bucket_gone("put") from None
        except StorageFull:
            raise storage_full("put") from None
        return self.describe(record)

    def _meta(self, options: dict[str, Any], operation: str = "put") -> dict[str, Any]:
        """The record's metadata from put()/createMultipartUpload() options, bounded as the
        S3 surface bounds it (error 10012, R2's MetadataTooLarge, docs/reference-choices.md)."""
        custom = options.get("customMetadata") or {}
        if not isinstance(custom, dict):
            raise type_error(operation, "customMetadata must be an object of strings")
        if not isinstance(options.get("httpMetadata") or {}, dict):
            raise type_error(operation, "httpMetadata must be an object")
        user = {str(k): str(v) for k, v in custom.items()}
        http = objects.http_meta_of(options)
        if objects.metadata_too_large(user, http):
            message = "Your metadata headers exceed the maximum allowed metadata size."
            raise store_error(operation, message, 10012)
        return {"user": user, "http": http, objects.ORIGIN_KEY: True}

    async def _verify(self, claims: dict[str, Any], value: Body) -> dict[str, str]:
        """Check a user checksum (hex); kept base64 for the non-MD5 ones, like the S3 surface.
        Hashed on the `hash` pool: a 90 MiB body hashed on the loop stalled every surface."""
        kept: dict[str, str] = {}
        for algorithm, claim in claims.items():
            try:
                wanted = bytes.fromhex(str(claim))
            except ValueError:
                raise type_error("put", f"{algorithm} must be a hex string") from None
            actual = await base64_body.digest(algorithm, value)
            if len(wanted) != len(actual):
                raise type_error("put", f"{algorithm} is {len(actual)} bytes long")
            if wanted != actual and not self.profile.deviations.bindings_accept_wrong_checksum:
                raise store_error(
                    "put",
                    f"The {algorithm.upper()} checksum you specified did not match what we "
                    "received.",
                    10037,
                )
            if algorithm != "md5":
                kept[algorithm] = base64.b64encode(wanted).decode()
        return kept

    # get / head
    async def get(self, key: Any, options: dict[str, Any]) -> dict[str, Any] | None:
        key = check_key("get", key)
        record = self._record(key)
        cond = conditions.parse("get", options.get("onlyIf"), self._lists())
        if record is None:
            return None
        doc = self.describe(record)
        if not self._met(cond, record):
            return doc  # an R2Object without a body
        bounds = ranges.resolve(
            options.get("range"),
            record.size,
            bool(self.profile.deviations.bindings_malformed_range_internal),
        )
        if bounds is None or self.profile.deviations.bindings_ignore_range:
            start, length = 0, record.size
        else:
            start, length = bounds
            doc["range"] = {"offset": start, "length": length}
        doc["body"] = StreamedBody(self.ctx.store.read_object(record, start, length))
        return doc

    async def head(self, key: Any) -> dict[str, Any] | None:
        record = self._record(check_key("head", key))
        return None if record is None else self.describe(record)

    # delete
    async def delete(self, keys: Any) -> None:
        many = keys if isinstance(keys, list) else [keys]
        if len(many) > MAX_LIST_LIMIT:
            # 10022 as other invalid arguments; 10003 is AccessDenied in the provider's table
            raise store_error("delete", "Too many keys in one delete", 10022)
        checked = [check_key("delete", key) for key in many]
        if self.profile.deviations.bindings_delete_first_only:
            checked = checked[:1]
        for key in checked:
            self.ctx.store.delete_object(self.account, self.name, key)

    # list
    def honours_include(self) -> bool:
        if self.profile.deviations.bindings_always_honor_include:
            return True
        if self.profile.deviations.bindings_ignore_include:
            return False
        since = self.profile.bindings_list_honor_include_date
        if since is None:
            return False
        return HONOR_INCLUDE_FLAG in self.compat.flags or self.compat.date >= dt.date.fromisoformat(
            str(since)
        )

    async def list(self, options: dict[str, Any]) -> dict[str, Any]:
        from reference_impl.bindings.listing import list_page

        include: tuple[str, ...] = ("httpMetadata", "customMetadata")
        if self.honours_include():
            kinds = options.get("include") or ()
            if not isinstance(kinds, list | tuple):
                raise type_error("list", "include must be an array")
            include = tuple(str(kind) for kind in kinds)
        page = list_page(self, options, include)
        if page.over_budget and self.profile.deviations.bindings_list_budget_error:
            raise InternalError("list page over the metadata budget")
        return page.doc
