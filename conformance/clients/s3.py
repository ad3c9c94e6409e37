"""The S3 client of the suite: boto3 for idiomatic calls, `.wire` for raw signed requests."""

from __future__ import annotations

from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from conformance.clients import retry
from conformance.clients.evidence import Exchange, collector
from conformance.clients.s3_wire import PreparedWire, WireClient, WireReply

__all__ = ["PreparedWire", "S3Client", "WireClient", "WireReply", "preflight"]

CONNECT_TIMEOUT = 5
READ_TIMEOUT = 60
CLEANUP_BATCH = 100  # under every dated DeleteObjects limit


def _boto_config() -> Config:
    return Config(
        s3={"addressing_style": "path"},
        # total_max_attempts, not max_attempts: botocore's max_attempts counts retries, so the
        # old {"max_attempts": 1} silently retried a 500/502/503/504 once
        retries={"total_max_attempts": 1, "mode": "standard"},
        connect_timeout=CONNECT_TIMEOUT,
        read_timeout=READ_TIMEOUT,
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )


class _EvidenceHook:
    """Records every boto3 exchange: the request seen at send, the response after the call."""

    def __init__(self) -> None:
        self.last_request: Any = None

    def before_send(self, request: Any, **_: Any) -> None:
        self.last_request = request

    def after_call(self, http_response: Any, model: Any, **_: Any) -> None:
        request = self.last_request
        streaming = bool(getattr(model, "has_streaming_output", False))
        body = b"" if streaming else http_response.content
        collector.add(
            Exchange.build(
                request.method if request else model.http.get("method", "?"),
                request.url if request else "",
                http_response.status_code,
                dict(request.headers.items()) if request else {},
                dict(http_response.headers.items()),
                body,
                request.body if request else None,
            )
        )

    def after_error(self, exception: Exception | None = None, **_: Any) -> None:
        request = self.last_request
        collector.add(
            Exchange.build(
                request.method if request else "?",
                request.url if request else "",
                None,
                dict(request.headers.items()) if request else {},
                {},
                f"no response: {exception}",
            )
        )


def make_boto(surface: dict[str, Any], **credentials: str) -> Any:
    """A boto3 S3 client for the surface: path-style, explicit checksums, botocore's retries off
    (only the narrow layer of conformance/clients/retry.py)."""
    client = boto3.client(
        "s3",
        endpoint_url=surface["endpoint"],
        region_name=surface.get("region", "auto"),
        aws_access_key_id=credentials.get("access_key_id", surface["access_key_id"]),
        aws_secret_access_key=credentials.get("secret_access_key", surface["secret_access_key"]),
        verify=surface.get("verify", True),
        config=_boto_config(),
    )
    hook = _EvidenceHook()
    client.meta.events.register("before-send.s3", hook.before_send)
    client.meta.events.register("after-call.s3", hook.after_call)
    client.meta.events.register("after-call-error.s3", hook.after_error)
    return retry.register_boto(client)


class S3Client:
    """What the suite's `s3` fixture hands to tests."""

    def __init__(self, surface: dict[str, Any], run_prefix: str) -> None:
        self.surface = surface
        self.run_prefix = run_prefix
        self.vendor_prefix: str = surface.get("vendor_prefix", "x-amz-")
        self.ext_prefix: str = surface.get("ext_prefix", "cf-")
        self.boto: Any = make_boto(surface)
        self.wire = WireClient(
            surface["endpoint"],
            surface["access_key_id"],
            surface["secret_access_key"],
            region=surface.get("region", "auto"),
            vendor_prefix=self.vendor_prefix,
            ext_prefix=self.ext_prefix,
            verify=surface.get("verify", True),
        )

    @classmethod
    def from_surface(cls, surface: dict[str, Any], run_prefix: str) -> S3Client:
        return cls(surface, run_prefix)

    @property
    def second_account(self) -> dict[str, Any] | None:
        """`{account_id, access_key_id, secret_access_key}` of another account, if offered."""
        other: dict[str, Any] | None = self.surface.get("second_account")
        return other

    def list_bucket_names(self, prefix: str = "") -> list[str]:
        """Every bucket name (starting with `prefix`), over all ListBuckets pages: the spec's
        ListBuckets pages, and the run's `ec-` buckets may sort after a user's first 1000."""
        seen: dict[str, None] = {}
        params: dict[str, str] = {"Prefix": prefix} if prefix else {}
        tokens: set[str] = set()
        while True:
            reply = self.boto.list_buckets(**params)
            new = [str(b["Name"]) for b in reply.get("Buckets", []) if str(b["Name"]) not in seen]
            seen.update(dict.fromkeys(new))
            token = reply.get("ContinuationToken")
            # the last page; or a target that loops: a token again, or a page of nothing new
            if not token or token in tokens or not new:
                return [name for name in seen if name.startswith(prefix)]
            tokens.add(token)
            params["ContinuationToken"] = str(token)

    def delete_bucket_recursive(self, name: str) -> None:
        """Empty and delete a bucket the run created; refuses anything without the run prefix."""
        if not name.startswith(self.run_prefix):
            raise ValueError(f"refusing to delete {name!r}: not prefixed {self.run_prefix!r}")
        # Few round trips (each costs a full RTT against a far target): an empty bucket takes a
        # listing and the delete; uploads in progress are looked for only when the delete is
        # refused (S3 aborts them with the bucket; a target that does not answers 409).
        try:
            self._empty(name)
            try:
                self.boto.delete_bucket(Bucket=name)
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") != "BucketNotEmpty":
                    raise
                self._abort_uploads(name)
                self._empty(name)
                self.boto.delete_bucket(Bucket=name)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") != "NoSuchBucket":
                raise

    def _empty(self, name: str) -> None:
        """Delete every object, a page at a time; no listing after the last (untruncated) page."""
        previous: list[dict[str, str]] = []
        while True:
            page = self.boto.list_objects_v2(Bucket=name, MaxKeys=CLEANUP_BATCH)
            keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
            if not keys or keys == previous:  # a target that deletes nothing: no endless loop
                return
            self.boto.delete_objects(Bucket=name, Delete={"Objects": keys, "Quiet": True})
            if not page.get("IsTruncated"):
                return
            previous = keys

    def _abort_uploads(self, name: str) -> None:
        try:
            uploads = self.boto.list_multipart_uploads(Bucket=name).get("Uploads", [])
        except ClientError:
            return  # not offered by every target; nothing to abort then
        for upload in uploads:
            self.boto.abort_multipart_upload(
                Bucket=name, Key=upload["Key"], UploadId=upload["UploadId"]
            )


def preflight(surface: dict[str, Any]) -> str | None:
    """None when the s3 surface answers ListBuckets; else one line saying what is wrong."""
    endpoint = surface.get("endpoint", "?")
    try:
        make_boto(surface).list_buckets()
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "?")
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", "?")
        if code in {"InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied"}:
            return f"s3 surface at {endpoint}: credentials refused ({status} {code})"
        return f"s3 surface at {endpoint}: ListBuckets failed ({status} {code})"
    except (BotoCoreError, OSError) as exc:
        return f"s3 surface at {endpoint}: unreachable ({exc})"
    return None


def migration_source_client(surface: dict[str, Any], run_prefix: str) -> S3Client:
    """The target's `migration_source` (an S3 host the migration tests make `<run prefix>-…`
    buckets on) as a client for the run's cleanup and `conformance recover`; its region
    defaults to us-east-1, as the migration tests' own client."""
    return S3Client({"region": "us-east-1", **surface}, run_prefix)
