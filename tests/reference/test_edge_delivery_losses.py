"""A job's error_message keeps lines dropped until a clean batch (CI failure at 8fff8d8).

Dropped lines were reported only with the batch that carried the count; the job's next batch,
failing without drops of its own, overwrote the message and the loss vanished from the job
(`test_slow_collector_delays_only_its_own_job` read "did not answer" without "dropped").
"""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any

from reference_impl.deviations import Deviations
from reference_impl.edge.delivery import Delivery

ZONE, JOB = "zone", "1"


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.job: dict[str, Any] = {"id": JOB, "enabled": True, "dataset": "http_requests",
                                    "destination_conf": "http://collector/", "error_message": None,
                                    "logpull_options": "fields=ClientRequestURI"}  # fmt: skip

    def jobs(self, zone_id: str) -> dict[str, dict[str, Any]]:
        return {JOB: self.job} if zone_id == ZONE else {}

    def save(self) -> None:
        pass


def _delivery(answers: list[str | None]) -> tuple[Delivery, _State]:
    state = _State()
    profile = SimpleNamespace(log_pending_max_lines=2, log_pending_max_bytes=1 << 20,
                              logpush_timeout_s=1.0, deviations=Deviations())  # fmt: skip
    ctx: Any = SimpleNamespace(
        profile=profile, shared=SimpleNamespace(mgmt_state=state), store=None
    )
    delivery = Delivery(ctx)

    async def deliver(destination: str, body: bytes) -> str | None:
        return answers.pop(0)

    delivery._deliver = deliver  # type: ignore[method-assign]
    return delivery, state


def _lines(delivery: Delivery, count: int) -> None:
    for i in range(count):
        delivery.add(ZONE, {"ClientRequestURI": f"/{i}", "EdgeStartTimestamp": 0})


def test_a_later_failure_keeps_the_drops_in_the_message() -> None:
    delivery, state = _delivery(["timed out", "timed out again", None, None])
    _lines(delivery, 5)  # bound of 2: 3 dropped
    asyncio.run(delivery.flush())
    assert "3 lines dropped" in state.job["error_message"]
    _lines(delivery, 1)  # no drop of its own, fails again
    asyncio.run(delivery.flush())
    assert "timed out again" in state.job["error_message"]
    assert "3 lines dropped" in state.job["error_message"], state.job
    _lines(delivery, 4)  # written, but 2 more dropped: the loss counts on
    asyncio.run(delivery.flush())
    assert state.job["error_message"].startswith("5 lines dropped"), state.job
    _lines(delivery, 1)  # a clean batch: the count starts again
    asyncio.run(delivery.flush())
    assert delivery.lost == {}


def test_a_deleted_job_leaves_nothing_behind() -> None:
    """Counters of a job that is gone are dropped with it: a zone that makes and deletes jobs
    all day must not grow the reference's memory."""
    delivery, state = _delivery(["timed out"])
    _lines(delivery, 5)
    asyncio.run(delivery.flush())
    assert delivery.lost and delivery._locks
    _lines(delivery, 1)
    state.job = {}  # deleted while its lines waited
    asyncio.run(delivery.flush())
    assert delivery.lost == {} and delivery._locks == {} and delivery.pending == {}


def test_the_message_names_both_bounds() -> None:
    delivery, state = _delivery([None])
    _lines(delivery, 3)
    asyncio.run(delivery.flush())
    message = state.job["error_message"]
    assert "log_pending_max_lines" in message and "log_pending_max_bytes" in message, message


def _delete(state: _State) -> None:
    """The job is gone from the zone, as the management API's delete leaves it."""
    state.jobs = lambda zone_id: {}  # type: ignore[method-assign]


def test_a_job_deleted_with_nothing_pending_leaves_nothing_behind() -> None:
    """The usual end of a job: its lines went out (here with a loss), then it was deleted with
    none waiting, so no batch of it ever runs again to drop its lock and loss count."""
    delivery, state = _delivery(["timed out"])
    _lines(delivery, 5)
    asyncio.run(delivery.flush())
    assert delivery.lost and delivery._locks and not delivery.pending
    _delete(state)
    asyncio.run(delivery.flush())
    assert delivery.lost == {} and delivery._locks == {}


def test_a_job_deleted_during_its_batch_leaves_nothing_behind() -> None:
    """Deleted while a failing batch was in flight: the batch records its loss after the check
    that the job exists; the next flush drops it."""
    delivery, state = _delivery([])

    async def deliver(destination: str, body: bytes) -> str | None:
        _delete(state)
        return "timed out"

    delivery._deliver = deliver  # type: ignore[method-assign]
    _lines(delivery, 5)
    asyncio.run(delivery.flush())
    asyncio.run(delivery.flush())
    assert delivery.lost == {} and delivery._locks == {}


def test_a_clean_batch_after_a_failure_clears_the_error() -> None:
    """The provider's job API: last_error (and error_message) is null when the job never failed
    or has run successfully since its last failure. A clean batch after a failed one left both
    set, so the job looked failing for good."""
    delivery, state = _delivery(["timed out", None])
    _lines(delivery, 1)
    asyncio.run(delivery.flush())
    assert state.job.get("last_error") and state.job["error_message"] == "timed out", state.job
    _lines(delivery, 1)
    asyncio.run(delivery.flush())
    assert state.job.get("last_complete"), state.job
    assert state.job.get("last_error") is None, state.job
    assert state.job.get("error_message") is None, state.job
