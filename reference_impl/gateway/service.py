"""Networks and their upstreams: which network answers, and where its calls go.

Network definitions are data (config.yaml); whether one is served at the behaviour date is a
profile field, so no handler compares dates. Upstreams are built on first use, which keeps the
server's cold start free of eth-tester's import.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from reference_impl import yaml_data
from reference_impl.context import ServerContext
from reference_impl.gateway import params as p
from reference_impl.gateway.chain import EmbeddedChain
from reference_impl.gateway.errors import METHOD_NOT_FOUND, RpcError
from reference_impl.gateway.format import Formatter
from reference_impl.gateway.jsonrpc import Envelope
from reference_impl.gateway.upstream import EmbeddedUpstream, HttpUpstream, Upstream


@cache
def load_config() -> dict[str, Any]:
    text = (resources.files("reference_impl.gateway") / "config.yaml").read_text("utf-8")
    config: dict[str, Any] = yaml_data.load(text)
    return config


@dataclass(frozen=True)
class Network:
    name: str
    chain_id: int
    served: bool
    replacement: str | None


class Gateway:
    def __init__(self, ctx: ServerContext) -> None:
        self.config = load_config()
        self.limits: dict[str, Any] = self.config["limits"]
        prof = ctx.profile
        self.profile = prof
        self.networks = {
            name: Network(
                name,
                int(body["chain_id"]),
                bool(getattr(prof, body["served_field"])),
                body.get("replacement"),
            )
            for name, body in self.config["networks"].items()
        }
        self.envelope = Envelope(
            drop_id=bool(prof.deviations.drop_id),
            version=prof.deviations.jsonrpc_version,
            result_with_error=bool(prof.deviations.result_with_error),
            error_code=prof.deviations.error_code,
            answer_notifications=bool(prof.deviations.answer_notifications),
            empty_batch_array=bool(prof.deviations.empty_batch_array),
            batch_first_only=bool(prof.deviations.batch_first_only),
        )
        self.formatter = Formatter(
            padded=bool(prof.deviations.padded_quantities),
            hashes_only=bool(prof.deviations.transaction_hashes_only),
        )
        self._upstreams: dict[str, Upstream] = {}
        self._chain_id_calls = 0  # for deviation chain_id_every_other

    def upstream(self, network: Network) -> Upstream:
        if network.name not in self._upstreams:
            url = (self.profile.gateway_upstreams or {}).get(network.name)
            if url:
                timeout = float(self.limits["upstream_timeout_s"])
                self._upstreams[network.name] = HttpUpstream(url, timeout)
            else:
                chain = EmbeddedChain(
                    network.chain_id,
                    str(self.config["client_version"]),
                    self.formatter,
                    gas_cap=int(self.profile.gateway_rpc_gas_cap),
                    evm_timeout_s=float(self.profile.gateway_evm_timeout_s),
                )
                pending = int(self.profile.gateway_max_pending_calls)
                self._upstreams[network.name] = EmbeddedUpstream(chain, pending)
        return self._upstreams[network.name]

    async def dispatch(
        self, network: Network, method: str, params: Any, deadline: float | None = None
    ) -> Any:
        """The result of one call; `deadline` (`time.monotonic()`) ends the batch's budget."""
        refused = self.profile.deviations.refused_methods or ()
        if method not in p.method_specs() or method in refused:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method[:80]}")
        p.check(method, params)  # before any upstream sees it, so bad input is always -32602
        override = self.profile.deviations.chain_id_override
        if self.profile.deviations.chain_id_every_other and method == "eth_chainId":
            self._chain_id_calls += 1
            override = 1 if self._chain_id_calls % 2 == 0 else override
        if override is not None and method in ("eth_chainId", "net_version"):
            return hex(int(override)) if method == "eth_chainId" else str(int(override))
        upstream = self.upstream(network)
        if isinstance(upstream, EmbeddedUpstream) and not upstream.chain.answers(method):
            # served by the provider, not by an embedded test chain (methods.yaml `embedded`)
            raise RpcError(
                METHOD_NOT_FOUND,
                f"{method} needs an upstream node (gateway_upstreams); the embedded chain "
                "cannot answer it",
            )
        return await upstream.request(method, params, deadline)
