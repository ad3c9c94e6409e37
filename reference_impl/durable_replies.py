"""ASGI middleware: a reply leaves only once the changes it reports are on disk.

With `--durable`, every surface's app is wrapped (server.py). Just before the response starts,
it waits for the store's WAL barrier (storage/durability.py), which returns at once when the
request changed nothing, and otherwise shares one fsync with every reply waiting at the same
time. Off by default: on these VMs it halves small-PUT throughput (docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

from reference_impl.context import ServerContext

Message = dict[str, Any]


class DurableReplies:
    def __init__(self, app: Any, ctx: ServerContext) -> None:
        self.app = app
        self.ctx = ctx

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        store = self.ctx.store
        if scope["type"] != "http" or store is None:
            await self.app(scope, receive, send)
            return

        async def send_when_durable(message: Message) -> None:
            if message["type"] == "http.response.start":
                await store.durable()
            await send(message)

        await self.app(scope, receive, send_when_durable)
