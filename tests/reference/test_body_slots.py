"""BodySlots shares the body slots between clients (reference_impl/body_guard.py).

The socket-level proof is tests/reliability/test_body_slot_fairness.py; these pin the order in
which a freed slot is handed on, without a server.
"""

from __future__ import annotations

from reference_impl.body_guard import BodySlots


class Waiter:
    def __init__(self, client: str) -> None:
        self.slot_client = client
        self.granted = 0
        self.freed = 0

    def slot_granted(self) -> None:
        self.granted += 1

    def share_freed(self) -> None:
        self.freed += 1


def test_one_client_holds_at_most_its_share() -> None:
    slots = BodySlots(4, per_client=2)
    assert slots.take("a") and slots.take("a")
    assert not slots.take("a") and slots.at_share("a")
    assert slots.take("b") and slots.take("b")
    assert not slots.take("c")  # every slot held


def test_a_freed_slot_skips_waiters_of_a_client_at_its_share() -> None:
    slots = BodySlots(3, per_client=2)
    assert slots.take("a") and slots.take("a") and slots.take("b")
    a_waiter, b_waiter = Waiter("a"), Waiter("b")
    slots.wait(a_waiter)
    slots.wait(b_waiter)
    slots.give_back("b")  # "a" still holds its two: the later waiter of "b" is served
    assert (a_waiter.granted, b_waiter.granted) == (0, 1)
    slots.give_back("b")
    assert a_waiter.granted == 0 and slots.take("c")  # "a" waits for its own; "c" takes one
    slots.give_back("a")  # "a" under its share again: its waiter takes the freed slot
    assert a_waiter.granted == 1 and slots.used == 3


def test_waiters_of_a_client_time_their_wait_once_its_share_frees() -> None:
    slots = BodySlots(2, per_client=1)
    assert slots.take("a") and slots.take("b")
    first, second = Waiter("a"), Waiter("a")
    slots.wait(first)
    slots.wait(second)
    slots.give_back("a")  # the first takes the slot ("a" at its share again)
    assert (first.granted, second.granted, second.freed) == (1, 0, 0)
    slots.give_back("b")  # a free slot, but "a" holds its share: the second keeps waiting
    assert second.granted == 0 and slots.used == 1
    slots.give_back("a")
    assert second.granted == 1 and slots.used == 1


def test_share_freed_while_every_slot_is_taken() -> None:
    """A client's slot handed to another client's earlier waiter: the client's own waiter is
    no longer held back by its own bodies, so its wait is timed from then (share_freed)."""
    slots = BodySlots(3, per_client=2)
    assert slots.take("a") and slots.take("a") and slots.take("b")
    c_waiter, a_waiter = Waiter("c"), Waiter("a")
    slots.wait(c_waiter)
    slots.wait(a_waiter)
    slots.give_back("a")
    assert (c_waiter.granted, a_waiter.granted, a_waiter.freed) == (1, 0, 1)


def test_a_wait_behind_the_clients_own_bodies_runs_from_their_last_byte() -> None:
    """While a client holds its share, its waiters time their wait from the last byte its
    bodies got (they queue while those move, not behind a stalled flood); below its share,
    from their own start."""
    slots = BodySlots(4, per_client=1)
    assert slots.take("a")
    slots.moved("a", 10.0)
    slots.moved("a", 12.5)
    assert slots.waits_on_own("a") == 12.5
    assert slots.waits_on_own("b") is None
    slots.give_back("a")
    assert slots.waits_on_own("a") is None
    assert slots.take("a") and slots.waits_on_own("a") == 0.0  # no byte since: the wait's start


def test_a_freed_slot_goes_to_another_clients_waiter_first() -> None:
    """What the profile promises (max_body_streams_per_client: "a free slot goes to another
    client's body first"). Before, the freeing client's own waiter queued earlier took its slot
    back: a few clients at their share that keep bodies queued (an upload tool with 50 parts
    in flight) handed their slots round among themselves, and another client's body waited
    until its timer ran out, 503."""
    slots = BodySlots(2, per_client=1)
    assert slots.take("a") and slots.take("b")
    a_waiter, c_waiter = Waiter("a"), Waiter("c")
    slots.wait(a_waiter)
    slots.wait(c_waiter)
    slots.give_back("a")
    assert (a_waiter.granted, c_waiter.granted) == (0, 1)
    slots.give_back("b")  # no other client waits: the client's own waiter is served
    assert a_waiter.granted == 1 and slots.used == 2
