"""The dashboard path of Area A in a real browser (issue 5, item 4).

Headless Chromium (the Debian package) walks the reference's Custom Fields page the way a user
does: sign in, Edit Custom Fields > Set new Custom Field, pick a Field Type, type a Field Name,
Save; then delete one. The ruleset is then read back through the rules API, so the test shows
the page and the API are one configuration. Chromium is driven over the DevTools protocol
(a websocket, `websockets` sync client) rather than with a browser-automation package that
would download its own browser.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from conformance.clients.rules_api import RulesApiClient
from conformance.suite.logs.helpers import entrypoint_guard

sync_client = pytest.importorskip("websockets.sync.client")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian package chromium not installed (CI installs it)"
)
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1000,900",
)  # fmt: skip
TIMEOUT = 15.0
# a first Chromium start on a busy 2-core machine took over 15 s (a cold profile and fonts);
# a slow start says nothing about the dashboard, so it gets its own generous bound
START_TIMEOUT = 90.0


class Page:
    """One Chromium tab over CDP: commands, and the console/network errors it reported."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.console_errors: list[str] = []
        self.network_errors: list[str] = []
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = params.get("args", [])
            self.console_errors.append(" ".join(str(a.get("value", a)) for a in args))
        elif method == "Runtime.exceptionThrown":
            self.console_errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            target = (
                self.network_errors if entry.get("source") == "network" else self.console_errors
            )
            target.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self.ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=TIMEOUT))
            if message.get("id") == ident:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self._event(message)

    def js(self, expression: str) -> Any:
        """Evaluate in the page (promises awaited) and return the value."""
        reply = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in reply:
            raise AssertionError(f"{expression!r} threw: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def wait_for(self, expression: str, what: str) -> Any:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}: {self.js('document.body.innerText')}")

    def open(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for(
            "document.readyState === 'complete' && document.getElementById('app')"
            " && document.getElementById('app').dataset.state === 'idle'",
            f"{url} to load",
        )

    def click(self, element_id: str) -> None:
        self.js(f"document.getElementById({json.dumps(element_id)}).click()")

    def fill(self, element_id: str, value: str) -> None:
        """Set an input's or select's value the way typing would, with its input event."""
        self.js(
            f"(() => {{ const el = document.getElementById({json.dumps(element_id)});"
            f" el.value = {json.dumps(value)};"
            " el.dispatchEvent(new Event('input', {bubbles: true}));"
            " el.dispatchEvent(new Event('change', {bubbles: true})); })()"
        )

    def operation(self, action: str) -> None:
        """Run an action that calls the API and wait until the page has finished with it."""
        before = int(self.js("Number(document.getElementById('app').dataset.ops || 0)"))
        self.js(action)
        self.wait_for(
            f"Number(document.getElementById('app').dataset.ops || 0) > {before}"
            " && document.getElementById('app').dataset.state === 'idle'",
            "the API call to finish",
        )

    def shown_fields(self) -> list[tuple[str, str]]:
        rows = self.js(
            "[...document.querySelectorAll('#fields-body tr')]"
            ".map((r) => [r.dataset.type, r.dataset.name])"
        )
        return [(t, n) for t, n in rows]


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    """A fresh headless Chromium with its own profile dir; DevTools on an ephemeral port."""
    assert CHROMIUM is not None
    profile = tmp_path / "chromium-profile"
    proc = subprocess.Popen(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1",
         "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + START_TIMEOUT
        while not (port_file.exists() and port_file.read_text().strip()):
            assert proc.poll() is None and time.monotonic() < deadline, "chromium did not start"
            time.sleep(0.05)
        port = port_file.read_text().split()[0]
        targets = requests.get(f"http://127.0.0.1:{port}/json/list", timeout=TIMEOUT).json()
        ws_url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        with sync_client.connect(ws_url, max_size=None, open_timeout=TIMEOUT) as ws:
            yield Page(ws)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def zone(reference: Any) -> Iterator[tuple[RulesApiClient, str]]:
    """The rules API and the page URL, the zone's custom fields empty; restored afterwards."""
    surface = reference.ready["surfaces"]["rules_api"]
    api = RulesApiClient.from_surface(surface)
    mgmt = surface["base_url"].removesuffix("/client/v4")
    with entrypoint_guard(api):
        found = api.find_zone_ruleset()
        if found is not None:
            api.delete_ruleset(str(found["id"])).assert_no_content()
        yield api, f"{mgmt}/dashboard/zones/{surface['zone_id']}/logs/custom-fields"


def _add(page: Page, field_type: str, name: str) -> None:
    """Edit Custom Fields is open; Set new Custom Field > Field Type > Field Name > Save."""
    page.click("set-new-field")
    page.fill("field-type", field_type)
    page.fill("field-name", name)
    page.operation("document.getElementById('save-field').click()")


def test_dashboard_is_served_beside_the_api(zone: tuple[RulesApiClient, str]) -> None:
    """The page and its assets are served without credentials; other zones and names are 404."""
    api, url = zone
    page = requests.get(url, timeout=TIMEOUT)
    assert page.status_code == 200 and "Set new Custom Field" in page.text
    assert api.api_key not in page.text  # the page never carries the credentials
    assert "script-src 'self'" in page.headers["content-security-policy"]
    base = url.split("/dashboard/")[0]
    script = requests.get(f"{base}/dashboard/static/custom_fields.js", timeout=TIMEOUT)
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert requests.get(f"{base}/dashboard/static/app.py", timeout=TIMEOUT).status_code == 404
    other = url.replace(api.zone_id, "0" * 32)
    assert requests.get(other, timeout=TIMEOUT).status_code == 404
    posted = requests.post(url, timeout=TIMEOUT)  # not a page route: the API's envelope answers
    assert posted.json()["success"] is False


@pytest.mark.slow  # >3 s on its own: out of the fast tier (docs/testing.md)
@NEEDS_CHROMIUM
def test_dashboard_sets_and_deletes_custom_fields(
    page: Page, zone: tuple[RulesApiClient, str], tmp_path: Path
) -> None:
    """Fields added and deleted on the page are the ruleset the rules API returns."""
    api, url = zone
    page.open(url)
    assert page.js("document.getElementById('fields').hidden") is True  # signed out first
    page.fill("login-email", api.email)
    page.fill("login-key", api.api_key)
    page.operation("document.getElementById('login-submit').click()")
    assert page.js("document.getElementById('error').hidden"), page.js("document.body.innerText")
    assert page.shown_fields() == []

    page.click("edit-fields")
    _add(page, "request_fields", "x-dash-request")
    _add(page, "response_fields", "x-dash-response")
    _add(page, "cookie_fields", "DashSession")
    _add(page, "request_fields", "X-Upper-Case")  # refused by the API: its message is shown
    error = page.js("document.getElementById('error').textContent")
    assert "lower case" in error and "20101" in error, error
    # Chromium logs every 4xx fetch: the 404s of the entry point before the first Save (no
    # fields yet) and this 400; nothing else
    statuses = [code for line in page.network_errors for code in re.findall(r"of (\d{3})", line)]
    assert sorted(statuses) == ["400", "404", "404"], page.network_errors
    page.click("cancel-field")
    assert page.shown_fields() == [
        ("request_fields", "x-dash-request"),
        ("response_fields", "x-dash-response"),
        ("cookie_fields", "DashSession"),
    ]

    page.operation(
        "document.querySelector('#fields-body tr[data-name=\"x-dash-response\"] button').click()"
    )
    page.open(url)  # a reload shows what the API holds (signed in again from the tab's session)
    page.wait_for("document.querySelectorAll('#fields-body tr').length === 2", "the list")
    assert page.shown_fields() == [
        ("request_fields", "x-dash-request"),
        ("cookie_fields", "DashSession"),
    ]
    shot = page.send("Page.captureScreenshot", format="png")
    (tmp_path / "dashboard.png").write_bytes(base64.b64decode(shot["data"]))
    assert (tmp_path / "dashboard.png").stat().st_size > 5_000

    ruleset = api.get_entrypoint().assert_envelope_ok(200)
    params = [rule["action_parameters"] for rule in ruleset["rules"]]
    assert params == [
        {"request_fields": [{"name": "x-dash-request"}], "cookie_fields": [{"name": "DashSession"}]}
    ], ruleset
    assert page.console_errors == []
