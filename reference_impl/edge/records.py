"""`http_requests` log records of the edge: the standard fields plus the zone's custom fields.

The custom field objects follow the spec's limits (decisions.md, Area A): only the first
instance of a repeated header, only the headers as the client sent them (before the edge's
transform rule), names kept as configured (cookies case-sensitive), and at most 8192 bytes of
combined custom field data (names and values) in configuration order, the crossing value cut.
A job then selects fields and the timestamp format when a record is written out.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl

CUSTOM_DATA_LIMIT = 8192
TIMESTAMP_FIELDS = ("EdgeStartTimestamp", "EdgeEndTimestamp")
Headers = Sequence[tuple[str, str]]  # raw (name, value) pairs in wire order, names lower case


def first_instance(headers: Headers, name: str, every: bool = False) -> str | None:
    """The first value of a header; later repetitions (e.g. set-cookie) are never logged.

    `every` joins all instances instead (only the profile's deliberate deviation does that).
    """
    values = [value for key, value in headers if key == name]
    if not values:
        return None
    return ", ".join(values) if every else values[0]


def request_cookies(headers: Headers) -> dict[str, str]:
    """Cookies of the request by exact name; of a repeated name the first one counts."""
    out: dict[str, str] = {}
    for key, value in headers:
        if key != "cookie":
            continue
        for part in value.split(";"):
            name, sep, item = part.strip().partition("=")
            if sep and name and name not in out:
                out[name] = _unquote(item.strip())
    return out


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        parsed = SimpleCookie()
        try:
            parsed.load(f"x={value}")
        except Exception:  # a malformed quoted value is logged as sent
            return value
        return parsed["x"].value if "x" in parsed else value
    return value


def custom_field_objects(
    config: dict[str, list[str]],
    request_headers: Headers,
    response_headers: Headers,
    limit: int | None = CUSTOM_DATA_LIMIT,
    every_instance: bool = False,
) -> dict[str, dict[str, str]]:
    """RequestHeaders / ResponseHeaders / Cookies for the configured names, cut at `limit`."""
    cookies = request_cookies(request_headers)
    req, resp, every = request_headers, response_headers, every_instance
    sources: list[tuple[str, str, Any]] = [
        ("RequestHeaders", "request_fields", lambda n: first_instance(req, n, every)),
        ("ResponseHeaders", "response_fields", lambda n: first_instance(resp, n, every)),
        ("Cookies", "cookie_fields", cookies.get),
    ]
    out: dict[str, dict[str, str]] = {name: {} for name, _, _ in sources}
    budget = limit if limit is not None else float("inf")
    for field_name, key, lookup in sources:
        for name in config.get(key, []):
            value = lookup(name)
            if value is None or name in out[field_name]:
                continue
            if budget <= 0:
                return out
            cost = len(name.encode()) + len(value.encode())
            if cost > budget:
                room = int(budget) - len(name.encode())
                if room > 0:
                    out[field_name][name] = value.encode()[:room].decode("utf-8", "ignore")
                return out
            out[field_name][name] = value
            budget -= cost
    return out


def base_record(
    ray_id: str,
    start_ns: int,
    end_ns: int,
    host: str,
    method: str,
    uri: str,
    status: int,
    client_ip: str,
) -> dict[str, Any]:
    """The standard fields of one request (timestamps in nanoseconds until a job formats them)."""
    return {
        "RayID": ray_id,
        "EdgeStartTimestamp": start_ns,
        "EdgeEndTimestamp": end_ns,
        "ClientRequestHost": host,
        "ClientRequestMethod": method,
        "ClientRequestURI": uri,
        "ClientRequestPath": uri.split("?", 1)[0],
        "ClientRequestScheme": "http",
        "ClientIP": client_ip,
        "EdgeResponseStatus": status,
        "OriginResponseStatus": status,
        "EdgeColoCode": "REF",
    }


def job_options(logpull_options: str | None) -> tuple[list[str] | None, str]:
    """(selected fields or None for every field, timestamp format) of a job."""
    query = (logpull_options or "").split("?", 1)[-1]
    pairs = dict(parse_qsl(query, keep_blank_values=True))
    fields = [f for f in pairs.get("fields", "").split(",") if f] or None
    return fields, pairs.get("timestamps", "unixnano")


def format_timestamp(value_ns: int, fmt: str) -> Any:
    if fmt == "unix":
        return value_ns // 1_000_000_000
    if fmt == "rfc3339":
        moment = dt.datetime.fromtimestamp(value_ns // 1_000_000_000, tz=dt.UTC)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return value_ns


def job_line(
    record: dict[str, Any],
    logpull_options: str | None,
    every_field: bool = False,
    fixed_format: str | None = None,
) -> str:
    """The NDJSON line a job writes: only its selected fields, timestamps in its format.

    `every_field` and `fixed_format` are the profile's deliberate deviations (sensitivity).
    """
    fields, fmt = job_options(logpull_options)
    fmt = fixed_format or fmt
    names = fields if fields is not None and not every_field else list(record)
    out: dict[str, Any] = {}
    for name in names:
        if name not in record:
            continue
        value = record[name]
        out[name] = format_timestamp(value, fmt) if name in TIMESTAMP_FIELDS else value
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)
