"""The reference's own outgoing HTTP (log push batches, ownership challenges), time-bounded.

A per-read timeout alone never trips on a peer that answers one byte every few seconds: such a
collector held the old delivery lock for minutes (issue 26, MEDIUM 7). Every POST here has a
total deadline as well, on the event loop (no thread held), and a refusal names what happened.
"""

from __future__ import annotations

import asyncio

READ_TIMEOUT = 10.0  # seconds between two bytes of the peer's answer


async def post(
    url: str, body: bytes, headers: dict[str, str], total: float, read: float = READ_TIMEOUT
) -> str | None:
    """POST `body`; None on a 2xx answer, else why not. Never longer than `total` seconds."""
    import httpx  # on first use: kept off the reference's cold start

    timeout = httpx.Timeout(min(read, total), connect=min(read, total))
    try:
        async with asyncio.timeout(total):
            async with httpx.AsyncClient(
                timeout=timeout, trust_env=False, follow_redirects=False
            ) as client:
                reply = await client.post(url, content=body, headers=headers)
    except TimeoutError:
        return f"the destination did not answer within {total:g} s"
    except httpx.HTTPError as exc:
        return f"cannot reach the destination: {type(exc).__name__}: {exc}"[:300]
    return None if reply.status_code < 300 else f"the destination answered {reply.status_code}"
