"""Validation of log push job members: destination, dataset, logpull_options, name.

The vocabulary (schemes, datasets, field names, timestamp formats) is data in logpush.yaml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from reference_impl import yaml_data
from reference_impl.profile import Profile
from reference_impl.wire.mgmt.envelope import ApiError

JOB_NAME = re.compile(r"\A[a-zA-Z0-9\-.]{0,512}\Z")
PRINTABLE = re.compile(r"\A[\x21-\x7e]+\Z")
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
# a DNS name or bucket (dot-separated labels), or a bracketed IPv6 literal; optional port
HOST = re.compile(rf"\A(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{{1,5}})?\Z")


@dataclass(frozen=True)
class Vocabulary:
    destination_schemes: frozenset[str]
    destination_max_chars: int
    destination_segment_max_chars: int
    datasets: frozenset[str]
    custom_fields_dataset: str
    custom_field_names: frozenset[str]
    timestamp_formats: frozenset[str]
    logpull_option_keys: frozenset[str]
    redaction_option_keys: frozenset[str]
    http_requests_fields: frozenset[str]


@cache
def vocabulary() -> Vocabulary:
    text = (resources.files("reference_impl.mgmt") / "logpush.yaml").read_text(encoding="utf-8")
    raw = yaml_data.load(text)
    sets = {k: frozenset(v) for k, v in raw.items() if isinstance(v, list)}
    return Vocabulary(
        destination_schemes=sets["destination_schemes"],
        destination_max_chars=int(raw["destination_max_chars"]),
        destination_segment_max_chars=int(raw["destination_segment_max_chars"]),
        datasets=sets["datasets"],
        custom_fields_dataset=str(raw["custom_fields_dataset"]),
        custom_field_names=sets["custom_field_names"],
        timestamp_formats=sets["timestamp_formats"],
        logpull_option_keys=sets["logpull_option_keys"],
        redaction_option_keys=sets["redaction_option_keys"],
        http_requests_fields=sets["http_requests_fields"],
    )


def check_destination(profile: Profile, value: Any, pointer: str = "/destination_conf") -> str:
    """A destination URI the reference can name a challenge file after: printable ASCII, a
    known scheme, a host or bucket name (never `..` or user info) and path segments a file
    system takes; anything else is a 400 in the envelope, never an OSError or encode error."""
    if not isinstance(value, str) or not value:
        raise ApiError("destination_invalid", "destination_conf is required", pointer)
    if profile.deviations.accept_any_destination:
        return value
    vocab = vocabulary()
    if len(value) > vocab.destination_max_chars:
        limit = vocab.destination_max_chars
        raise ApiError("destination_invalid", f"longer than {limit} characters", pointer)
    if not PRINTABLE.match(value):
        message = "only printable ASCII without spaces (percent-encode the rest)"
        raise ApiError("destination_invalid", message, pointer)
    parts = urlsplit(value)
    if parts.scheme not in vocab.destination_schemes:
        raise ApiError("destination_invalid", f"unsupported scheme {parts.scheme!r}", pointer)
    if not parts.netloc:
        raise ApiError("destination_invalid", "the destination names no bucket or host", pointer)
    if not HOST.match(parts.netloc):
        message = f"{parts.netloc!r:.80} is not a host or bucket name"
        raise ApiError("destination_invalid", message, pointer)
    segments = parts.path.split("/")
    if "." in segments or ".." in segments:
        raise ApiError("destination_invalid", "'.' and '..' are not allowed in the path", pointer)
    if any(len(segment) > vocab.destination_segment_max_chars for segment in segments):
        limit = vocab.destination_segment_max_chars
        raise ApiError("destination_invalid", f"a path segment is over {limit} characters", pointer)
    return value


def check_name(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not JOB_NAME.match(value):
        raise ApiError("job_invalid", "name takes letters, digits, '-' and '.'", "/name")
    return value


def check_dataset(profile: Profile, value: Any) -> str:
    if value is None:
        return vocabulary().custom_fields_dataset
    if not isinstance(value, str) or (
        value not in vocabulary().datasets and not profile.deviations.accept_any_dataset
    ):
        raise ApiError("job_invalid", f"unknown dataset {value!r}", "/dataset")
    return value


def check_logpull_options(profile: Profile, value: Any, dataset: str) -> str | None:
    """`fields=A,B&timestamps=rfc3339`: known keys, known field names, known formats."""
    if value is None:
        return None
    at = "/logpull_options"
    if not isinstance(value, str):
        raise ApiError("job_invalid", "logpull_options must be a string", at)
    if profile.deviations.accept_any_logpull_options:
        return value
    vocab = vocabulary()
    query = value.split("?", 1)[1] if "?" in value else value
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise ApiError("job_invalid", "logpull_options is not a query string", at) from None
    seen: dict[str, str] = {}
    for key, item in pairs:
        if key not in vocab.logpull_option_keys:
            raise ApiError("job_invalid", f"unknown option {key!r}", at)
        if key in seen:
            raise ApiError("job_invalid", f"option {key!r} given twice", at)
        seen[key] = item
    if "fields" not in seen:
        raise ApiError("job_invalid", "logpull_options must name fields=", at)
    fields = seen["fields"].split(",")
    custom = [f for f in fields if f in vocab.custom_field_names]
    if custom and dataset != vocab.custom_fields_dataset:
        raise ApiError(
            "job_invalid",
            f"{', '.join(custom)} need dataset {vocab.custom_fields_dataset}",
            "/dataset",
        )
    for name in fields:
        known = dataset != vocab.custom_fields_dataset or name in vocab.http_requests_fields
        if not name or not known or not name.isalnum():
            raise ApiError("job_invalid", f"unknown field {name!r}", at)
    if "timestamps" in seen and seen["timestamps"] not in vocab.timestamp_formats:
        formats = ", ".join(sorted(vocab.timestamp_formats))
        raise ApiError("job_invalid", f"timestamps takes one of {formats}", at)
    for key in vocab.redaction_option_keys & set(seen):
        if seen[key] not in ("true", "false"):
            raise ApiError("job_invalid", f"{key} takes true or false", at)
    if "sample" in seen and not _is_sample(seen["sample"]):
        raise ApiError("job_invalid", "sample takes a number in (0, 1]", at)
    return value


def _is_sample(text: str) -> bool:
    try:
        return 0 < float(text) <= 1
    except ValueError:
        return False
