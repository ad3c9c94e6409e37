"""onlyIf: ETag and upload-time conditions, given as an R2Conditional or as HTTP headers.

Both forms reduce to one `Conditions` value. ETag strings may hold several strong, weak
(`W/"..."`) or wildcard (`*`) ETags (2023-06-16, `profile.bindings_etag_lists`). etagMatches
(If-Match) compares strongly, so a weak ETag never matches (RFC 9110 13.1.1, as miniflare's R2
does); etagDoesNotMatch (If-None-Match) compares by value, weak or not (13.1.2). When an ETag
condition is given and passes, the matching date condition is ignored, as RFC 9110 orders them.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

from reference_impl.bindings.errors import type_error
from reference_impl.wire.s3 import http_date


@dataclass(frozen=True)
class Conditions:
    # values without quotes, weak ones as `W/value`; "*" for the wildcard
    etag_matches: tuple[str, ...] | None = None
    etag_does_not_match: tuple[str, ...] | None = None
    uploaded_before: float | None = None  # POSIX seconds
    uploaded_after: float | None = None
    # Headers form: HTTP dates have whole seconds, so the upload time is compared in whole
    # seconds too (RFC 9110 13.1.3; miniflare's `secondsGranularity`); R2Conditional dates
    # in milliseconds, the precision of the `uploaded` a client sees
    seconds: bool = False


def parse_etags(text: str, lists: bool) -> tuple[str, ...]:
    """ETag values of a condition string; without list support the string is one strong ETag."""
    if not lists:
        return (text.strip().strip('"'),)
    values = []
    for item in text.split(","):
        item = item.strip()
        weak = item.startswith("W/")
        value = item.removeprefix("W/").strip('"')
        if value:
            values.append(f"W/{value}" if weak else value)
    return tuple(values)


def _time(operation: str, value: Any, header: bool) -> float:
    try:
        # an HTTP date is GMT in all three forms: asctime's zoneless one too (made UTC below)
        if header:
            parsed = http_date.parse(str(value))
        else:
            parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except (TypeError, ValueError, OverflowError, IndexError):
        raise type_error(operation, f"invalid date in onlyIf: {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


_LIST_HEADERS = frozenset({"if-match", "if-none-match"})


def _header_pairs(operation: str, headers: Any) -> list[tuple[Any, Any]]:
    """The (name, value) pairs of a Headers init: an object, or a list of [name, value] lists
    (the bridge's JSON form of a `Headers`). Anything else is a TypeError, as `new Headers()`
    throws; `dict()` of it was a 500 InternalError (hostile round 6)."""
    if isinstance(headers, dict):
        return list(headers.items())
    if isinstance(headers, list) and all(
        isinstance(pair, list) and len(pair) == 2 for pair in headers
    ):
        return [(pair[0], pair[1]) for pair in headers]
    raise type_error(operation, "onlyIf.headers must be a Headers object or [name, value] pairs")


def parse(operation: str, only_if: Any, lists: bool) -> Conditions | None:
    """The conditions of an `onlyIf` argument (None when absent)."""
    if only_if is None:
        return None
    if not isinstance(only_if, dict):
        raise type_error(operation, "onlyIf must be an object or a Headers object")
    headers = only_if.get("headers")
    if headers is not None:
        lower: dict[str, str] = {}
        for name, value in _header_pairs(operation, headers):
            key, text = str(name).lower(), str(value)
            # `new Headers(pairs)` appends: a list header named twice is one comma list
            # (`get` joins them); a dict kept the last line alone (review14)
            joins = key in lower and key in _LIST_HEADERS
            lower[key] = f"{lower[key]}, {text}" if joins else text
        before = lower.get("if-unmodified-since")
        after = lower.get("if-modified-since")
        return Conditions(
            etag_matches=parse_etags(lower["if-match"], lists) if "if-match" in lower else None,
            etag_does_not_match=(
                parse_etags(lower["if-none-match"], lists) if "if-none-match" in lower else None
            ),
            uploaded_before=_time(operation, before, True) + 1 if before else None,
            uploaded_after=_time(operation, after, True) if after else None,
            seconds=True,
        )
    matches, not_match = only_if.get("etagMatches"), only_if.get("etagDoesNotMatch")
    before, after = only_if.get("uploadedBefore"), only_if.get("uploadedAfter")
    return Conditions(
        etag_matches=parse_etags(str(matches), lists) if matches is not None else None,
        etag_does_not_match=parse_etags(str(not_match), lists) if not_match is not None else None,
        uploaded_before=_time(operation, before, False) if before is not None else None,
        uploaded_after=_time(operation, after, False) if after is not None else None,
    )


def _matches(etags: tuple[str, ...], etag: str | None, first_only: bool, strong: bool) -> bool:
    if etag is None:
        return False
    if first_only:  # deviation: the first ETag alone, strong and literal
        return etags[0] == etag
    if strong:  # a weak candidate keeps its `W/` and so never equals the stored (strong) ETag
        return any(candidate in ("*", etag) for candidate in etags)
    return any(candidate.removeprefix("W/") in ("*", etag) for candidate in etags)


def satisfied(
    cond: Conditions,
    etag: str | None,
    uploaded: float | None,
    first_only: bool,
    weak_if_match: bool,
) -> bool:
    """Whether an object (etag/uploaded None: no object) meets the conditions.

    `first_only` and `weak_if_match` are deviations (the profile's, always passed).

    No object: only etagMatches and uploadedAfter fail (nothing matches, nothing was uploaded
    after the date); etagDoesNotMatch and uploadedBefore hold, as the provider's conditional
    operations page says for If-(None-)Match / If-(Un)Modified-Since and as miniflare's R2
    does. The reference had both time conditions inverted there (hostile round 6).
    """
    if etag is None:
        return cond.etag_matches is None and cond.uploaded_after is None
    if uploaded is not None:  # If-Modified-Since its own Last-Modified: not modified since
        uploaded = math.floor(uploaded) if cond.seconds else math.floor(uploaded * 1000) / 1000
    if cond.etag_matches is not None:
        if not _matches(cond.etag_matches, etag, first_only, not weak_if_match):
            return False
    elif cond.uploaded_before is not None and (
        uploaded is None or uploaded >= cond.uploaded_before
    ):
        return False
    if cond.etag_does_not_match is not None:
        if _matches(cond.etag_does_not_match, etag, first_only, False):
            return False
    elif (
        cond.uploaded_after is not None and uploaded is not None and uploaded <= cond.uploaded_after
    ):
        return False
    return True
