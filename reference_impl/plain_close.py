"""A whole plain-text answer that closes the connection: what an ASGI guard sends when it refuses
a request before the app sees it (body unread, so the connection cannot be kept)."""

from __future__ import annotations

from starlette.types import Send


async def send_plain_close(send: Send, status: int, body: bytes) -> None:
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
