"""xdist's `--dist load`, with the project's longest tests handed out first.

`pytest -n 2` hands tests out in collection order, in chunks that shrink as the queue drains.
The longest tests (the mutation sample, the main job's whole-suite runs, the safety tests'
signalled runs) sit near the end of the collection, so a session used to end with one worker
running one of them alone while the other had nothing left. Here they go first, longest
first, each to the worker with less estimated work (helpers/heavy_tests.yaml); every other
test follows in collection order exactly as `--dist load` schedules it. Only the order
changes: the same tests run, each once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from xdist.scheduler import LoadScheduling

COSTS = Path(__file__).with_name("heavy_tests.yaml")


def heavy_costs() -> dict[str, float]:
    """Node id prefix -> seconds it took, from heavy_tests.yaml."""
    data = yaml.safe_load(COSTS.read_text("utf-8")) or {}
    return {str(prefix): float(seconds) for prefix, seconds in data.items()}


def estimated_cost(nodeid: str, costs: dict[str, float]) -> float | None:
    """The cost of the longest prefix of `nodeid` listed, or None when none is."""
    matches = [p for p in costs if nodeid == p or nodeid.startswith((p + "[", p + "::"))]
    return costs[max(matches, key=len)] if matches else None


def heavy_first(collection: list[str], workers: int, costs: dict[str, float]) -> list[list[int]]:
    """Per worker, the indices of the listed tests it gets first: longest first, each to the
    worker with the least estimated work so far (ties: the first worker)."""
    heavy = [(cost, i) for i, nodeid in enumerate(collection)
             if (cost := estimated_cost(nodeid, costs)) is not None]  # fmt: skip
    heavy.sort(key=lambda item: (-item[0], item[1]))
    loads: list[float] = [0.0] * workers
    batches: list[list[int]] = [[] for _ in range(workers)]
    for cost, index in heavy:
        worker = loads.index(min(loads))
        batches[worker].append(index)
        loads[worker] += cost
    return batches


class HeavyFirstScheduling(LoadScheduling):
    """`--dist load` whose first batches are the listed long tests (see the module doc)."""

    def schedule(self) -> None:
        if self.collection is not None or not self._check_nodes_have_same_collection():
            super().schedule()
            return
        collection = list(next(iter(self.node2collection.values())))
        batches = heavy_first(collection, len(self.nodes), heavy_costs())
        first = {index for batch in batches for index in batch}
        if not first:
            super().schedule()
            return
        self.collection = collection
        self.pending[:] = [i for i in range(len(collection)) if i not in first]
        if self.maxschedchunk is None:
            self.maxschedchunk = len(collection)
        for node, batch in zip(self.nodes, batches, strict=True):
            if batch:
                self.node2pending[node].extend(batch)
                node.send_runtest_some(batch)
        # the rest as `--dist load` starts it: a chunk per worker, more as they finish
        if self.pending:
            chunk = max(2, min(len(self.pending) // len(self.nodes) // 4, self.maxschedchunk))
            for node in self.nodes:
                self._send_tests(node, chunk)
        if not self.pending:
            for node in self.nodes:
                node.shutdown()


def make_scheduler(config: Any, log: Any) -> LoadScheduling | None:
    """HeavyFirstScheduling for `--dist load` (what `-n N` means); None (xdist's own) else."""
    if config.getvalue("dist") != "load":
        return None
    return HeavyFirstScheduling(config, log)
