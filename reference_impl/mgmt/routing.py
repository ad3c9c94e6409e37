"""The management API's routing table, from `routes.yaml`.

The table is data: the paths are written out whole there, as the provider documents them,
rather than assembled from prefixes in code. Every handler it names is resolved at start, so
a route naming a missing handler stops the reference from starting instead of answering 500.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from typing import Any

from reference_impl import yaml_data

Handler = Callable[[dict[str, str], Any], Awaitable[Any]]
Route = tuple[str, "re.Pattern[str]", Handler]


def routing_table(owners: Mapping[str, object]) -> list[Route]:
    """Each route of routes.yaml with its path compiled (a trailing `/` allowed) and its
    handler bound to the owner object named before the dot."""
    text = (resources.files("reference_impl.mgmt") / "routes.yaml").read_text(encoding="utf-8")
    table: list[Route] = []
    for method, path, name in yaml_data.load(text)["routes"]:
        owner, _, attribute = name.partition(".")
        handler = getattr(owners[owner], attribute)  # KeyError/AttributeError: stop at start
        table.append((method, re.compile(rf"{path}/?\Z"), handler))
    return table
