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
from reference_impl.mgmt.envelope import ApiError
from reference_impl.profile import Profile

JOB_NAME = re.compile(r"^[a-zA-Z0-9\-.]{0,512}$")


@dataclass(frozen=True)
class Vocabulary:
    destination_schemes: frozenset[str]
    datasets: frozenset[str]
    custom_fields_dataset: str
    custom_field_names: frozenset[str]
    timestamp_formats: frozenset[str]
    logpull_option_keys: frozenset[str]
    http_requests_fields: frozenset[str]


@cache
def vocabulary() -> Vocabulary:
    text = (resources.files("reference_impl.mgmt") / "logpush.yaml").read_text(encoding="utf-8")
    raw = yaml_data.load(text)
    sets = {k: frozenset(v) for k, v in raw.items() if isinstance(v, list)}
    return Vocabulary(
        destination_schemes=sets["destination_schemes"],
        datasets=sets["datasets"],
        custom_fields_dataset=str(raw["custom_fields_dataset"]),
        custom_field_names=sets["custom_field_names"],
        timestamp_formats=sets["timestamp_formats"],
        logpull_option_keys=sets["logpull_option_keys"],
        http_requests_fields=sets["http_requests_fields"],
    )


def check_destination(profile: Profile, value: Any, pointer: str = "/destination_conf") -> str:
    if not isinstance(value, str) or not value:
        raise ApiError("destination_invalid", "destination_conf is required", pointer)
    if profile.deviate_accept_any_destination:
        return value
    parts = urlsplit(value)
    if parts.scheme not in vocabulary().destination_schemes:
        raise ApiError("destination_invalid", f"unsupported scheme {parts.scheme!r}", pointer)
    if not parts.netloc:
        raise ApiError("destination_invalid", "the destination names no bucket or host", pointer)
    if ".." in parts.path.split("/"):
        raise ApiError("destination_invalid", "'..' is not allowed in the path", pointer)
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
        value not in vocabulary().datasets and not profile.deviate_accept_any_dataset
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
    if profile.deviate_accept_any_logpull_options:
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
    if "sample" in seen and not _is_sample(seen["sample"]):
        raise ApiError("job_invalid", "sample takes a number in (0, 1]", at)
    return value


def _is_sample(text: str) -> bool:
    try:
        return 0 < float(text) <= 1
    except ValueError:
        return False
