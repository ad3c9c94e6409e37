"""Fixtures of the suite (docs/architecture.md "Suite fixtures").

Client modules are imported inside the fixtures: a run that never asks for a surface never
imports boto3, and never touches a target.
"""

from __future__ import annotations

import datetime as dt
import difflib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.model.targets import REFERENCE, Target
from conformance.plugin import account, cleanup, preflight, provision
from conformance.plugin.applicability import NA_PREFIX
from conformance.plugin.naming import Names
from conformance.plugin.state import get_state


class Expected:
    """Limits at the as-of date: `expected.delete_objects_max_keys` is `delete-objects-max-keys`."""

    def __init__(self, limits: dict[str, Any]) -> None:
        self._values = {key.replace("-", "_"): value for key, value in limits.items()}

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._values), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise AttributeError(f"no limit {name!r} in limits.yaml{hint}") from None

    def __repr__(self) -> str:
        return f"Expected({self._values!r})"


def use_surface(request: pytest.FixtureRequest, target: Target, name: str) -> dict[str, Any]:
    """The target's surface `name`: N/A when not offered, pre-flight checked on first use."""
    if not target.offers(name):
        pytest.skip(f"{NA_PREFIX}surface {name} not offered by target {target.name}")
    state = get_state(request.config)
    preflight.ensure(state, request.session, target, name)
    account.register_run(state)
    state.surfaces_used.add(name)
    return target.surface(name)


@pytest.fixture(scope="session")
def as_of(pytestconfig: pytest.Config) -> dt.date:
    """The date whose rules and limits apply to this run (--as-of)."""
    return get_state(pytestconfig).options.as_of


@pytest.fixture(scope="session")
def in_force(pytestconfig: pytest.Config, as_of: dt.date) -> Callable[[str], bool]:
    """Whether a catalog rule is in force at the as-of date: a test of one rule that leans on
    another operation (ListParts to see what a refused call stored) asks before it does."""
    catalog = get_state(pytestconfig).catalog(pytestconfig)
    return lambda rule_id: catalog.get(rule_id).in_force(as_of)


@pytest.fixture(scope="session")
def expected(pytestconfig: pytest.Config, as_of: dt.date) -> Expected:
    """Dated limits of limits.yaml at the as-of date."""
    catalog = get_state(pytestconfig).catalog(pytestconfig)
    return Expected(dict(catalog.limits_at(as_of)))


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> Target:
    """The target under test, with its resolved surfaces (the reference is launched here)."""
    return provision.current_target(request.session)


@pytest.fixture(scope="session")
def run_prefix(pytestconfig: pytest.Config) -> str:
    """`ec-<8 hex>`: every resource of this run starts with it (shared by xdist workers)."""
    return get_state(pytestconfig).run_prefix


@pytest.fixture
def names(pytestconfig: pytest.Config) -> Names:
    """Fresh prefixed names for buckets and keys."""
    state = get_state(pytestconfig)
    return Names(state.run_prefix, state.worker_id)


@pytest.fixture(scope="session")
def s3(request: pytest.FixtureRequest, target: Target, run_prefix: str) -> Iterator[Any]:
    """S3 client of the target; at the end removes this worker's leftover buckets."""
    surface = use_surface(request, target, "s3")
    from conformance.clients.s3 import S3Client

    client = S3Client.from_surface(surface, run_prefix)
    yield client
    cleanup.delete_prefixed(client, Names(run_prefix, get_state(request.config).worker_id)
                            .worker_prefix)  # fmt: skip


def _fresh_bucket(s3: Any, names: Names) -> Iterator[str]:
    name = names.bucket()
    s3.boto.create_bucket(Bucket=name)
    try:
        yield name
    finally:
        cleanup.delete_bucket(s3, name)


@pytest.fixture
def bucket(s3: Any, names: Names) -> Iterator[str]:
    """A fresh prefixed bucket, emptied and deleted after the test, pass or fail."""
    yield from _fresh_bucket(s3, names)


@pytest.fixture
def other_bucket(s3: Any, names: Names) -> Iterator[str]:
    """A second fresh bucket beside `bucket`, for what one bucket must not do to another."""
    yield from _fresh_bucket(s3, names)


@pytest.fixture(scope="session")
def rules_api(request: pytest.FixtureRequest, target: Target) -> Any:
    """Rules API client (area A) of the target; a named target's zone is journaled before the
    client is handed out (docs/safety.md), so no test changes it before the run can put it
    back. The launched reference needs none of it: its zone is created for the run."""
    surface = use_surface(request, target, "rules_api")
    from conformance.clients.rules_api import RulesApiClient

    client = RulesApiClient.from_surface(surface)
    if target.name != REFERENCE:  # the launched reference's zone is the run's own, thrown away
        account.engage_zone(request.session, get_state(request.config), client)
        client.journaled = True
        client.entrypoint_at_start = account.entrypoint_at_start(get_state(request.config), client)
    else:
        client.entrypoint_at_start = ""
    return client


@pytest.fixture(scope="session")
def mgmt(request: pytest.FixtureRequest, target: Target) -> Any:
    """Management API client (area C: R2 buckets, migration, audit log) of the target."""
    surface = use_surface(request, target, "mgmt")
    from conformance.clients.mgmt import MgmtClient

    return MgmtClient.from_surface(surface)


@pytest.fixture(scope="session")
def migration_source(request: pytest.FixtureRequest, target: Target) -> dict[str, Any]:
    """An S3 source the target can migrate from and the suite may create buckets in (optional:
    `{endpoint, access_key_id, secret_access_key, region}`); N/A when not offered."""
    return use_surface(request, target, "migration_source")


@pytest.fixture(scope="session")
def edge(request: pytest.FixtureRequest, target: Target) -> dict[str, Any]:
    """The edge surface (area A log records): `{"url": ...}`, the zone's traffic endpoint."""
    return use_surface(request, target, "edge")


@pytest.fixture(scope="session")
def gateway(request: pytest.FixtureRequest, target: Target) -> Any:
    """JSON-RPC gateway client (area B) of the target."""
    surface = use_surface(request, target, "gateway")
    from conformance.clients.gateway import GatewayClient

    return GatewayClient.from_surface(surface)


@pytest.fixture
def public(request: pytest.FixtureRequest, target: Target, bucket: str) -> Iterator[Any]:
    """`conformance.clients.public.PublicClient` of a custom domain linked to a fresh bucket.

    The domain (`<bucket>.public.example`) is created through the management API and removed
    after the test (a failed unlink is a cleanup warning); N/A unless the target offers both
    the public and the mgmt surfaces.
    """
    surface = use_surface(request, target, "public")
    if not target.offers("mgmt"):
        pytest.skip(f"{NA_PREFIX}surface mgmt not offered by target {target.name}")
    from conformance.clients.public import attached

    tls = target.surface("public_tls") if target.offers("public_tls") else None
    with attached(surface, target.surface("mgmt"), tls, bucket) as client:
        yield client
    cleanup.check_unlinked(client)


@pytest.fixture(scope="session")
def bindings(request: pytest.FixtureRequest, target: Target, run_prefix: str) -> Iterator[Any]:
    """Runtime bindings client (bridge protocol) at --compat-date / --compat-flag; at the end
    removes this worker's keys from the bound bucket."""
    surface = use_surface(request, target, "bindings")
    from conformance.clients.bindings import BindingsClient

    options = get_state(request.config).options
    client = BindingsClient.from_surface(
        surface, options.effective_compat_date, options.compat_flags
    )
    yield client
    worker_prefix = Names(run_prefix, get_state(request.config).worker_id).worker_prefix
    try:
        client.delete_prefixed(worker_prefix)
    except Exception as exc:
        warnings.warn(
            cleanup.CleanupWarning(f"cleanup: binding keys not deleted: {exc}"), stacklevel=2
        )


@pytest.fixture
def bucket_binding(request: pytest.FixtureRequest, target: Target, bucket: str) -> Any:
    """The target's binding bound to this test's fresh S3 bucket: one object seen through both
    surfaces (N/A without bindings)."""
    if not target.offers("bindings"):
        pytest.skip(f"{NA_PREFIX}surface bindings not offered by target {target.name}")
    return request.getfixturevalue("bindings").for_bucket(bucket)
