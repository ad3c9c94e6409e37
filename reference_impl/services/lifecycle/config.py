"""Lifecycle configuration: the S3 XML parsed into stored rules, and rendered back.

Supported actions (spec: "object lifecycles are available"; the provider's docs): Expiration
by Days or Date, AbortIncompleteMultipartUpload by DaysAfterInitiation, with a Prefix filter
(`Filter/Prefix`, `Filter/And/Prefix` or the legacy rule-level `Prefix`). Anything else in a
rule is refused, so that a client never believes an unsupported action is in force.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from typing import Any

from reference_impl.numbers import NumberError, parse_decimal
from reference_impl.wire.s3.errors import S3Error
from reference_impl.wire.s3.xmlio import S3_XMLNS, parse_body, parse_request_body

KIND = "lifecycle"  # bucket_configs kind
MAX_RULES = 1000
MAX_DAYS = 2**31 - 1  # S3's Days is an Integer (32-bit in the SDKs)
RULE_CHILDREN = frozenset(
    {"ID", "Status", "Filter", "Prefix", "Expiration", "AbortIncompleteMultipartUpload"}
)


def parse(body: bytes, allow_declaration: bool = True) -> list[dict[str, Any]]:
    """Stored rules: `{id, status, prefix, expiration_days, expiration_date, abort_days}`."""
    return from_root(parse_body(body, allow_declaration))


async def parse_request(body: bytes, allow_declaration: bool = True) -> list[dict[str, Any]]:
    """`parse` for a request body: parsed in slices that yield the event loop."""
    return from_root(await parse_request_body(body, allow_declaration))


def from_root(root: ET.Element) -> list[dict[str, Any]]:
    """The stored rules of a parsed LifecycleConfiguration document."""
    if root.tag != "LifecycleConfiguration":
        raise S3Error("MalformedXML")
    rules = [_rule(node, index) for index, node in enumerate(root) if node.tag == "Rule"]
    if len(rules) != len(root) or not 0 < len(rules) <= MAX_RULES:
        raise S3Error("MalformedXML", "A LifecycleConfiguration holds 1 to 1000 Rule elements")
    ids = [rule["id"] for rule in rules]
    if len(set(ids)) != len(ids):
        raise S3Error("InvalidArgument", "Rule ID must be unique", ArgumentName="ID")
    return rules


def _rule(node: ET.Element, index: int) -> dict[str, Any]:
    unknown = {child.tag for child in node} - RULE_CHILDREN
    if unknown:
        raise S3Error("MalformedXML", f"Unsupported lifecycle element {sorted(unknown)[0]}")
    status = (node.findtext("Status") or "").strip()
    if status not in ("Enabled", "Disabled"):
        raise S3Error("MalformedXML", "Status must be Enabled or Disabled")
    rule_id = (node.findtext("ID") or f"rule-{index + 1}").strip()
    if len(rule_id) > 255:
        raise S3Error("InvalidArgument", "ID is longer than 255 characters", ArgumentName="ID")
    prefix = node.findtext("Filter/Prefix")
    if prefix is None:
        prefix = node.findtext("Filter/And/Prefix")
    if prefix is None:
        prefix = node.findtext("Prefix")
    rule: dict[str, Any] = {"id": rule_id, "status": status, "prefix": prefix or "",
                            "expiration_days": None, "expiration_date": None,
                            "abort_days": None}  # fmt: skip
    expiration = node.find("Expiration")
    if expiration is not None:
        days, date = expiration.findtext("Days"), expiration.findtext("Date")
        if (days is None) == (date is None):
            raise S3Error("MalformedXML", "Expiration takes exactly one of Days and Date")
        if days is not None:
            rule["expiration_days"] = _positive(days, "Days")
        else:
            rule["expiration_date"] = _midnight(date or "")
    abort = node.find("AbortIncompleteMultipartUpload")
    if abort is not None:
        rule["abort_days"] = _positive(abort.findtext("DaysAfterInitiation") or "", "Days")
    if expiration is None and abort is None:
        raise S3Error("MalformedXML", "A Rule needs Expiration or AbortIncompleteMultipartUpload")
    return rule


def _positive(text: str, name: str) -> int:
    """1 to MAX_DAYS, ASCII digits only: S3's Days is a positive (32-bit) Integer, and a
    401-digit value once overflowed the applier's date arithmetic for every bucket."""
    try:
        return parse_decimal(text.strip(), name=name, max_digits=10, min_value=1,
                             max_value=MAX_DAYS)  # fmt: skip
    except NumberError:
        message = f"{name} must be a positive integer up to {MAX_DAYS}"
        raise S3Error("InvalidArgument", message, ArgumentName=name) from None


def _midnight(text: str) -> str:
    """An ISO 8601 date at midnight UTC (S3 refuses any other time of day)."""
    try:
        moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise S3Error("InvalidArgument", "Date must be ISO 8601", ArgumentName="Date") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    moment = moment.astimezone(dt.UTC)
    if moment.time() != dt.time(0, 0):
        raise S3Error("InvalidArgument", "Date must be at midnight UTC", ArgumentName="Date")
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def render(rules: list[dict[str, Any]]) -> bytes:
    root = ET.Element("LifecycleConfiguration", xmlns=S3_XMLNS)
    for rule in rules:
        node = ET.SubElement(root, "Rule")
        ET.SubElement(node, "ID").text = rule["id"]
        ET.SubElement(ET.SubElement(node, "Filter"), "Prefix").text = rule["prefix"]
        ET.SubElement(node, "Status").text = rule["status"]
        if rule["expiration_days"] is not None or rule["expiration_date"] is not None:
            expiration = ET.SubElement(node, "Expiration")
            if rule["expiration_days"] is not None:
                ET.SubElement(expiration, "Days").text = str(rule["expiration_days"])
            else:
                ET.SubElement(expiration, "Date").text = rule["expiration_date"]
        if rule["abort_days"] is not None:
            abort = ET.SubElement(node, "AbortIncompleteMultipartUpload")
            ET.SubElement(abort, "DaysAfterInitiation").text = str(rule["abort_days"])
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return body


def seed_default(store: Any, profile: Any, account: str, bucket: str) -> bool:
    """Give a new bucket the provider's default rules (profile `lifecycle_default_rules`).

    True when rules were stored (the caller then makes sure the applier runs).
    """
    rules = profile.lifecycle_default_rules
    if not rules or not profile.lifecycles:
        return False
    store.put_bucket_config(account, bucket, KIND, [dict(rule) for rule in rules])
    return True
