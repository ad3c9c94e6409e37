"""A custom domain the `public` fixture could not unlink is a cleanup warning, not silence
(conformance/clients/public.py `attached`, conformance/plugin/cleanup.py `check_unlinked`).

The fixture unlinks the domain when the test ends, and the bucket is deleted next; an unlink
the service refused was ignored, so on a service that keeps a deleted bucket's domains the
run's domain stayed linked, listed under no bucket, and nothing said so.
"""

from __future__ import annotations

import pytest

from conformance.clients import public
from conformance.clients.rules_api import Reply
from conformance.plugin import cleanup

MGMT = {"base_url": "http://127.0.0.1:1", "account_id": "a", "email": "e", "api_key": "k"}
BUCKET = "ec-00000000-main-1abc"


def _unlinked(monkeypatch: pytest.MonkeyPatch, status: int) -> public.PublicClient:
    def reply(method: str, code: int) -> Reply:
        return Reply(method, "http://127.0.0.1:1", code, {}, '{"success": true, "errors": [], '
                     '"messages": [], "result": {}}')  # fmt: skip

    monkeypatch.setattr(public.CustomDomains, "create", lambda *a, **k: reply("POST", 200))
    monkeypatch.setattr(public.CustomDomains, "delete", lambda *a: reply("DELETE", status))
    with public.attached({"url": "http://127.0.0.1:1"}, MGMT, None, BUCKET) as client:
        assert client.unlinked is None
    return client


def test_a_refused_unlink_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    client = _unlinked(monkeypatch, 500)
    assert client.unlinked == 500
    with pytest.warns(cleanup.CleanupWarning, match=f"{BUCKET}.public.example.*not unlinked"):
        cleanup.check_unlinked(client)


@pytest.mark.parametrize("status", [200, 404])
def test_an_unlink_that_held_is_quiet(monkeypatch: pytest.MonkeyPatch, status: int) -> None:
    import warnings

    client = _unlinked(monkeypatch, status)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cleanup.check_unlinked(client)
