"""Targets: the built-in `reference` and those of a TOML targets file.

A target is a name plus resolved surfaces (docs/architecture.md "Targets"). In the file a secret
is only ever the name of an environment variable (`<key>_env = "ENV"`), so target files can be
committed and shared.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REFERENCE = "reference"  # the built-in target, launched by the suite
DEFAULT_TARGETS_FILE = "conformance.toml"  # read from the invocation directory when present
SURFACES = (
    "s3", "rules_api", "mgmt", "gateway", "public", "bindings", "edge",
    "public_tls",  # the public entrypoint again over TLS (HTTP/2); `verify`: CA bundle path
    "migration_source",  # optional: an S3 source bucket host for the migration (sippy) test
)  # fmt: skip
SECRET_KEYS = frozenset({"secret_access_key", "api_key", "password", "token"})
REQUIRED: dict[str, tuple[str, ...]] = {
    "s3": ("endpoint", "access_key_id", "secret_access_key"),
    "rules_api": ("base_url", "email", "api_key", "zone_id"),
    "mgmt": ("base_url", "email", "api_key", "account_id"),
    "gateway": ("url",),
    "public": ("url",),
    "public_tls": ("url",),
    "bindings": ("url",),
}
DEFAULTS: dict[str, dict[str, Any]] = {
    "s3": {"region": "auto", "vendor_prefix": "x-amz-", "ext_prefix": "cf-", "verify": True},
    # provider_gateway: the behaviours of the provider's gateway (not of JSON-RPC itself) that
    # the target offers; a plain node declares [] and those rules are N/A for it
    "gateway": {
        "networks": ["sepolia", "rinkeby"],
        "provider_gateway": ["method-allow-list", "network-routing"],
    },
}


class TargetError(Exception):
    """A targets file or target definition that cannot be used; the message says why."""


@dataclass(frozen=True)
class Target:
    name: str
    surfaces: dict[str, dict[str, Any]] = field(default_factory=dict)

    def offers(self, surface: str) -> bool:
        return surface in self.surfaces

    def surface(self, name: str) -> dict[str, Any]:
        return self.surfaces[name]


def targets_path(explicit: Path | None, cwd: Path | None = None) -> Path | None:
    """The targets file in use: --targets-file, else ./conformance.toml when present."""
    if explicit is not None:
        if not explicit.is_file():
            raise TargetError(f"targets file {str(explicit)!r} not found")
        return explicit
    default = (cwd or Path.cwd()) / DEFAULT_TARGETS_FILE
    return default if default.is_file() else None


def read_targets_file(path: Path) -> dict[str, dict[str, Any]]:
    """Raw target definitions of a TOML file: {name: {surface: table}}."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TargetError(f"targets file {str(path)!r}: {exc}") from None
    targets = data.get("targets", {})
    if not isinstance(targets, dict):
        raise TargetError(f"targets file {str(path)!r}: [targets] must be a table")
    if REFERENCE in targets:
        raise TargetError(f"targets file {str(path)!r}: {REFERENCE!r} is built in")
    return targets


def _resolve_table(where: str, table: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    resolved: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            resolved[key] = _resolve_table(f"{where}.{key}", value, env)
        elif key.endswith("_env"):
            name = key.removesuffix("_env")
            if not isinstance(value, str) or value not in env:
                raise TargetError(f"{where}.{key}: environment variable {value!r} is not set")
            resolved[name] = env[value]
        elif key in SECRET_KEYS:
            raise TargetError(
                f"{where}.{key}: secrets may not be written in a targets file; "
                f'use {key}_env = "ENV_VAR_NAME" and set that variable'
            )
        else:
            resolved[key] = value
    return resolved


def resolve(name: str, raw: dict[str, Any], env: dict[str, str] | None = None) -> Target:
    """A target from its file definition: secrets from `env`, defaults filled in."""
    environ = dict(os.environ) if env is None else env
    surfaces: dict[str, dict[str, Any]] = {}
    for surface, table in raw.items():
        where = f"targets.{name}.{surface}"
        if surface not in SURFACES or not isinstance(table, dict):
            raise TargetError(f"{where}: unknown surface; surfaces: {', '.join(SURFACES)}")
        values = {**DEFAULTS.get(surface, {}), **_resolve_table(where, table, environ)}
        missing = [key for key in REQUIRED.get(surface, ()) if key not in values]
        if missing:
            raise TargetError(f"{where}: missing {', '.join(missing)}")
        surfaces[surface] = values
    return Target(name, surfaces)


def load_target(name: str, path: Path | None, env: dict[str, str] | None = None) -> Target:
    """The named target of the targets file (not `reference`, which is launched)."""
    definitions = read_targets_file(path) if path else {}
    if name not in definitions:
        where = f"in {str(path)!r}" if path else "(no targets file)"
        raise TargetError(
            f"unknown target {name!r} {where}; known targets: "
            + ", ".join([REFERENCE, *sorted(definitions)])
        )
    return resolve(name, definitions[name], env)
