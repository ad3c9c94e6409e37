"""What a read handler uses of an S3 call: its request, address and decoded query.

`s3/call.py::Call` (the S3 surface's parsed, authenticated call) extends it with its signed
body; the public surface builds one for an anonymous read (services/object_reads.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request


@dataclass
class CallView:
    request: Request
    account: str
    bucket: str | None
    key: str | None
    query: dict[str, str] = field(default_factory=dict)  # decoded, auth parameters removed
    # header name -> first value, built on first use: handlers ask for several headers and
    # Starlette's Headers.get scans and decodes the whole list each time
    _headers: dict[str, str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def method(self) -> str:
        return self.request.method

    def header(self, name: str, default: str | None = None) -> str | None:
        """As `request.headers.get(name, default)`: the first value, names case-insensitive.
        List-valued conditions (If-Match, If-None-Match and their copy-source forms) are read
        with `joined`, every line of them; a singleton sent twice differently never gets here
        (s3/repeated_headers.py refuses it)."""
        headers = self._headers
        if headers is None:
            scope_headers = self.request.scope["headers"]
            raw = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope_headers]
            headers = self._headers = dict(reversed(raw))  # the first of repeated names wins
        return headers.get(name.lower(), default)

    def joined(self, name: str) -> str | None:
        """Every line of header `name` as one comma-joined value (RFC 9110 section 5.3), the
        value SigV4 signs; None when absent. For list headers (If-None-Match): the first line
        alone let `If-None-Match: "x"` then `If-None-Match: *` overwrite an object."""
        values = self.request.headers.getlist(name)
        return ",".join(values) if values else None
