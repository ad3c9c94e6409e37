"""The reference's own outgoing HTTP (log push batches, ownership challenges), time-bounded.

A per-read timeout alone never trips on a peer that answers one byte every few seconds: such a
collector held the old delivery lock for minutes (issue 26, MEDIUM 7). Every POST here has a
total deadline as well, on the event loop (no thread held), and a refusal names what happened.
"""

from __future__ import annotations

import asyncio


async def post(url: str, body: bytes, headers: dict[str, str], total: float) -> str | None:
    """POST `body`; None on a 2xx answer, else why not. Never longer than `total` seconds,
    and no shorter limit per read: a peer on a loaded machine (or a paused process, issue 22)
    may be silent a long while and still answer within the total."""
    import httpx  # on first use: kept off the reference's cold start

    timeout = httpx.Timeout(total)
    try:
        async with asyncio.timeout(total):
            async with httpx.AsyncClient(
                timeout=timeout, trust_env=False, follow_redirects=False
            ) as client:
                reply = await client.post(url, content=body, headers=headers)
    except TimeoutError:
        return f"the destination did not answer within {total:g} s"
    except httpx.TimeoutException:
        return f"the destination did not answer within {total:g} s"
    except httpx.HTTPError as exc:
        return f"cannot reach the destination: {type(exc).__name__}: {exc}"[:300]
    return None if reply.status_code < 300 else f"the destination answered {reply.status_code}"
