"""Migration (sippy) configuration: the two dated shapes, parsed into one stored form.

Since 2024-02-06 (dates.md "Other facts", item 4) a configuration is
`{source: {provider: aws, bucket, region, accessKeyId, secretAccessKey} (or gcs),
destination: {provider: r2, accessKeyId, secretAccessKey}}`. The earlier shape is not public;
the reference documents its choice (decisions.md "Migration (sippy)"): a flat
`{bucket, region, access_key_id, secret_access_key}`. Both may carry `endpoint`, a reference-only
extension naming an S3-compatible source other than AWS (a loopback moto server in tests).
Stored form: the v2 shape. Answers never echo a secret.
"""

from __future__ import annotations

from typing import Any

from reference_impl.profile import Profile
from reference_impl.wire.mgmt.envelope import ApiError

AWS_KEYS = ("bucket", "region", "accessKeyId", "secretAccessKey")
FLAT_KEYS = ("bucket", "region", "access_key_id", "secret_access_key")


def shape(profile: Profile) -> str:
    return str(profile.deviations.sippy_shape or profile.sippy_shape)


def parse(profile: Any, body: Any) -> dict[str, Any]:
    """The stored form of a PUT / validate body in the shape in force; 400 otherwise."""
    if not isinstance(body, dict):
        raise ApiError("sippy_invalid", "the body must be a JSON object", "/")
    if shape(profile) == "flat":
        _require(body, FLAT_KEYS, "")
        flat = {"provider": "aws", "bucket": body["bucket"], "region": body["region"],
                "accessKeyId": body["access_key_id"],
                "secretAccessKey": body["secret_access_key"]}  # fmt: skip
        if "endpoint" in body:
            flat["endpoint"] = _text(body, "endpoint", "")
        return {"source": flat, "destination": {"provider": "r2"}}
    source, destination = body.get("source"), body.get("destination")
    if not isinstance(source, dict):
        raise ApiError("sippy_invalid", "source must be an object", "/source")
    if not isinstance(destination, dict):
        raise ApiError("sippy_invalid", "destination must be an object", "/destination")
    provider = source.get("provider")
    if provider == "aws":
        _require(source, AWS_KEYS, "/source")
        if "endpoint" in source:
            _text(source, "endpoint", "/source")
    elif provider == "gcs":
        _require(source, ("bucket", "clientEmail", "privateKey"), "/source")
    else:
        raise ApiError("sippy_invalid", "source.provider must be aws or gcs", "/source/provider")
    if destination.get("provider") != "r2":
        raise ApiError("sippy_invalid", "destination.provider must be r2", "/destination/provider")
    _require(destination, ("accessKeyId", "secretAccessKey"), "/destination")
    return {"source": dict(source), "destination": dict(destination)}


def render(profile: Any, stored: dict[str, Any] | None, account: str, bucket: str) -> Any:
    """The GET answer in the shape in force: `{enabled: false}` when none is set."""
    if not stored:
        return {"enabled": False}
    source = stored["source"]
    if shape(profile) == "flat":
        return {"enabled": True, "bucket": source.get("bucket"), "region": source.get("region")}
    out_source = {k: source[k] for k in ("provider", "bucket", "region") if k in source}
    destination = {"provider": "r2", "account": account, "bucket": bucket}
    if "accessKeyId" in stored["destination"]:
        destination["accessKeyId"] = stored["destination"]["accessKeyId"]
    return {"enabled": True, "source": out_source, "destination": destination}


def _text(body: dict[str, Any], key: str, where: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise ApiError("sippy_invalid", f"{key} must be a non-empty string", f"{where}/{key}")
    return value


def _require(body: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    for key in keys:
        _text(body, key, where)
