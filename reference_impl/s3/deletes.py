"""DeleteObjects: XML list of keys (untrimmed), limit from the profile, Quiet mode."""

from __future__ import annotations

from starlette.responses import Response

from reference_impl.context import ServerContext
from reference_impl.s3.call import Call
from reference_impl.services import conditions
from reference_impl.services.object_reads import require_bucket
from reference_impl.wire.s3.errors import S3Error, error_table
from reference_impl.wire.s3.xmlio import parse_request_body, xml_response


async def delete_objects(ctx: ServerContext, call: Call) -> Response:
    bucket = require_bucket(ctx, call)
    body = await call.small_body()
    root = await parse_request_body(body, not ctx.profile.deviations.refuse_xml_declaration)
    if root.tag != "Delete":
        raise S3Error("MalformedXML")
    # an xs:boolean: `1` is true as much as `true` is (case is read leniently)
    quiet = (root.findtext("Quiet") or "false").strip().lower() in ("true", "1")
    keys: list[tuple[str, str | None]] = []  # (key, the ETag it must still have)
    for node in root.findall("Object"):
        key_node = node.find("Key")
        if key_node is None or not key_node.text:
            raise S3Error("MalformedXML")
        key = key_node.text
        etag = node.findtext("ETag")
        if ctx.profile.deviations.delete_objects_etag_ignored:
            etag = None
        keys.append((key.strip() if ctx.profile.deviations.trim_delete_keys else key, etag))
    if not keys or len(keys) > int(ctx.profile.delete_objects_max_keys):
        raise S3Error("MalformedXML")
    deleted: list[str] = []
    errors: list[dict[str, str]] = []
    lists = bool(ctx.profile.conditional_etag_lists)
    for key, etag in keys:
        if len(key.encode("utf-8")) > 1024:
            errors.append(
                {
                    "key": key,
                    "code": "InvalidObjectName",
                    "message": "Object key is longer than 1024 bytes",
                }
            )
            continue
        if etag is not None:
            current = ctx.store.get_object(call.account, bucket.name, key)
            if not conditions.delete_allowed(etag, current, lists):
                unmet = error_table()["PreconditionFailed"]["message"]
                errors.append({"key": key, "code": "PreconditionFailed", "message": unmet})
                continue
        if not ctx.profile.deviations.delete_keeps:
            ctx.store.delete_object(call.account, bucket.name, key)
        deleted.append(key)
    return xml_response(
        "delete_result.xml.j2",
        deleted=[] if quiet and not ctx.profile.deviations.quiet_lists_deleted else deleted,
        errors=errors,
    )
