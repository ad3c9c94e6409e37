"""`http_requests` log records of the edge: the standard fields plus the zone's custom fields.

The custom field objects follow the spec's limits (decisions.md, Area A): only the first
instance of a repeated header, only the headers as the client sent them (before the edge's
transform rule), names kept as configured (cookies case-sensitive), and at most 8192 bytes of
combined custom field data (names and values) in configuration order, the crossing value cut.
From 2025-04-18 (the provider's change; dated in the edge profile, passed in as `LogOptions`)
request_fields stay raw, transformed_request_fields log the value after the request transform,
response_fields the value after the response transform and raw_response_fields the origin's;
with `preserve_duplicates` every instance of a repeated header is logged, as a JSON array of
its values in order (a header sent once stays a string); the 8 KB statement is gone (no cut).
A job then selects fields and the timestamp format when a record is written out.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl

CUSTOM_DATA_LIMIT = 8192
TIMESTAMP_FIELDS = ("EdgeStartTimestamp", "EdgeEndTimestamp")
Headers = Sequence[tuple[str, str]]  # raw (name, value) pairs in wire order, names lower case


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


@dataclass(frozen=True)
class Exchange:
    """The headers of one request and its response, each before and after the transform rules."""

    request_raw: Headers
    request_transformed: Headers
    response_raw: Headers
    response_transformed: Headers


@dataclass(frozen=True)
class LogOptions:
    """How custom fields are logged at the profile's date (and its deliberate deviations)."""

    limit: int | None = CUSTOM_DATA_LIMIT  # combined bytes; None: no cut
    response_transformed: bool = False  # response_fields log the transformed value
    every_instance: bool = False  # deviation: join every instance whatever is configured
    first_only: bool = False  # deviation: ignore preserve_duplicates
    arrays_as_defaults: bool = False  # deviation: the two added arrays act like their twins


Value = str | list[str]


def _lookup(headers: Headers, options: LogOptions, preserve: bool) -> Callable[[str], Value | None]:
    def find(name: str) -> Value | None:
        values = [value for key, value in headers if key == name]
        if not values:
            return None
        if options.every_instance:
            return ", ".join(values)
        if preserve and len(values) > 1 and not options.first_only:
            return values
        return values[0]

    return find


def _cost(name: str, value: Value) -> int:
    values = value if isinstance(value, list) else [value]
    return len(name.encode()) + sum(len(v.encode()) for v in values)


def custom_field_objects(
    config: dict[str, list[str]], exchange: Exchange, options: LogOptions | None = None
) -> dict[str, dict[str, Value]]:
    """RequestHeaders / ResponseHeaders / Cookies for the configured names, cut at the limit."""
    options = options or LogOptions()
    preserve = bool(config.get("preserve_duplicates"))
    cookies = request_cookies(exchange.request_raw)
    raw_req = _lookup(exchange.request_raw, options, preserve)
    new_req = _lookup(exchange.request_transformed, options, preserve)
    raw_resp = _lookup(exchange.response_raw, options, preserve)
    new_resp = _lookup(exchange.response_transformed, options, preserve)
    default_resp = new_resp if options.response_transformed else raw_resp
    twins = options.arrays_as_defaults
    sources: list[tuple[str, str, Callable[[str], Value | None]]] = [
        ("RequestHeaders", "request_fields", raw_req),
        ("RequestHeaders", "transformed_request_fields", raw_req if twins else new_req),
        ("ResponseHeaders", "response_fields", default_resp),
        ("ResponseHeaders", "raw_response_fields", default_resp if twins else raw_resp),
        ("Cookies", "cookie_fields", cookies.get),
    ]
    out: dict[str, dict[str, Value]] = {"RequestHeaders": {}, "ResponseHeaders": {}, "Cookies": {}}
    budget = options.limit if options.limit is not None else float("inf")
    for field_name, key, lookup in sources:
        for name in config.get(key, []):
            value = lookup(name)
            if value is None or name in out[field_name]:
                continue
            if budget <= 0:
                return out
            cost = _cost(name, value)
            if cost > budget:
                room = int(budget) - len(name.encode())
                if room > 0 and isinstance(value, str):
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


# the Log4Shell redaction switch of logpull_options (the provider's Logpush API configuration
# page) and the OpenAPI's spelling of the output_options member
REDACTION_KEYS = ("CVE-2021-44228", "CVE-2021-4428")


def job_options(logpull_options: str | None) -> tuple[list[str] | None, str]:
    """(selected fields or None for every field, timestamp format) of a job."""
    query = (logpull_options or "").split("?", 1)[-1]
    pairs = dict(parse_qsl(query, keep_blank_values=True))
    fields = [f for f in pairs.get("fields", "").split(",") if f] or None
    return fields, pairs.get("timestamps", "unixnano")


def redacts(logpull_options: str | None) -> bool:
    """Whether the job asked for `CVE-2021-44228=true`: every `${` of its lines becomes `x{`."""
    pairs = dict(parse_qsl((logpull_options or "").split("?", 1)[-1]))
    return any(pairs.get(key) == "true" for key in REDACTION_KEYS)


def _redacted(value: Any) -> Any:
    """`value` with every `${` of its strings (names included) replaced by `x{`."""
    if isinstance(value, str):
        return value.replace("${", "x{")
    if isinstance(value, dict):
        return {_redacted(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    return value


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
    if redacts(logpull_options):
        out = _redacted(out)
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)
