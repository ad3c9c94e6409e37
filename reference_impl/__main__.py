"""`python -m reference_impl`: start every surface of the reference implementation."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

try:
    import uvloop
except ImportError:  # pragma: no cover - platforms without uvloop (e.g. Windows)
    uvloop = None  # type: ignore[assignment]

from reference_impl.context import ServerContext
from reference_impl.identity import default_identity
from reference_impl.profile import Profile, ProfileError, parse_overrides
from reference_impl.server import serve
from reference_impl.storage.engine import Store


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m reference_impl", description=__doc__)
    parser.add_argument("--data-dir", type=Path, help="persisted state (default: a temp dir)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="first port; surfaces take consecutive ports (0: ephemeral ports)",
    )
    parser.add_argument("--ready-file", type=Path, help="JSON written once every surface listens")
    parser.add_argument(
        "--behaviour-date",
        type=dt.date.fromisoformat,
        default=dt.date.today(),
        help="date whose behaviour the reference shows (default: today)",
    )
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one behaviour profile field (repeatable)",
    )
    parser.add_argument(
        "--durable",
        action="store_true",
        help="send a reply only once the changes it reports survive a power loss (one shared "
        "WAL fsync per batch of replies); without it, acknowledged changes survive a crash of "
        "the process (docs/reference-choices.md)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the surfaces")
    parser.add_argument(
        "--no-tls",
        dest="tls",
        action="store_false",
        help="do not serve the S3 API over TLS as well (surface s3_tls)",
    )
    return parser


def _announce(doc: dict[str, Any]) -> None:
    print("edge-conformance reference implementation is up:", flush=True)
    print(json.dumps(doc["surfaces"], indent=2), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        profile = Profile(args.behaviour_date, parse_overrides(args.profile))
    except ProfileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="reference-data-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    ctx = ServerContext(
        data_dir=data_dir,
        profile=profile,
        identity=default_identity(),
        behaviour_date=args.behaviour_date,
        store=Store(data_dir / "storage", defer_removals=args.durable),
        durable_replies=args.durable,
    )
    announce = None if args.quiet else _announce
    main_coro = serve(ctx, args.host, args.port, args.ready_file, announce, tls=args.tls)
    if uvloop is not None:  # measured faster for every small-object op (docs/benchmarks.md)
        uvloop.run(main_coro)
    else:
        asyncio.run(main_coro)
    return 0


if __name__ == "__main__":
    sys.exit(main())
