"""``iceberg-udf serve``: a warehouse through the Iceberg REST catalog's function endpoints.

A thin layer over :func:`translator.server.serve`: open the warehouse as the reading commands
do (same ``--catalog``, ``--no-cache`` and ``--latest-by-log-timestamp``), say where it is
served, and run until interrupted (Ctrl-C: exit 130, as every command).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from translator.cli.args import EXIT_OK, UsageError, open_warehouse, warehouse_parent
from translator.warehouse.errors import UnsupportedStorageError

__all__ = ["register"]


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        from translator.server import DEFAULT_PREFIX, TOKEN_ENV, ServerSettings, serve
    except ImportError as e:
        raise UnsupportedStorageError(
            f"serve needs Starlette and uvicorn ({e.name} is missing): "
            "pip install 'iceberg-udf[server]'"
        ) from None
    from translator.warehouse import ResolveOptions
    from translator.warehouse.rest import is_rest_address

    where = args.warehouse or ""
    if is_rest_address(where):
        raise UsageError("serve a warehouse folder, URL or SQL catalog, not a REST catalog")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: not a port number")
    prefix = args.prefix or DEFAULT_PREFIX
    if "/" in prefix:
        raise UsageError(f"--prefix {prefix!r}: one path segment, without '/'")
    open_server = not os.environ.get(TOKEN_ENV)
    if args.allow_writes and open_server:
        raise UsageError(
            f"--allow-writes needs {TOKEN_ENV}: writes are taken only from callers with the "
            "bearer token (an unauthenticated write could replace any function's body)"
        )
    settings = ServerSettings(
        prefix=prefix,
        resolve=ResolveOptions(latest_by_log_timestamp=args.latest_by_log_timestamp),
        allow_writes=args.allow_writes,
    )
    with open_warehouse(args) as wh:

        def ready(url: str) -> None:
            print(
                f"serving {wh.store.location()} at {url}/v1/{prefix} (Iceberg REST catalog; "
                f"clients: --warehouse rest+{url}/{prefix}); Ctrl-C stops",
                file=sys.stderr,
                flush=True,
            )
            if args.allow_writes:
                print(
                    "writes allowed: createFunction and dropFunction (our reading of the "
                    "unmerged apache/iceberg PR #17966), for callers with the bearer token",
                    file=sys.stderr,
                    flush=True,
                )
            if open_server:
                print(
                    f"warning: {TOKEN_ENV} is not set: any client that reaches "
                    f"{args.host}:{args.port or 'the port'} can read every function; secure "
                    "functions are refused (403)",
                    file=sys.stderr,
                    flush=True,
                )

        serve(wh, host=args.host, port=args.port, settings=settings, on_ready=ready)
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add ``serve`` to ``iceberg-udf``'s subparsers."""
    p = subparsers.add_parser(
        "serve",
        parents=[warehouse_parent()],
        help="serve a warehouse as an Iceberg REST catalog (function endpoints)",
        description="Serve GET /v1/config and the REST catalog's namespace and function "
        "endpoints over a warehouse, read-only unless --allow-writes. With "
        "ICEBERG_UDF_SERVE_TOKEN set, every request needs 'Authorization: Bearer <token>'. "
        "Needs pip install 'iceberg-udf[server]'.",
    )
    p.add_argument(
        "--allow-writes",
        action="store_true",
        help="also serve createFunction and dropFunction (our reading of the unmerged "
        "apache/iceberg PR #17966); needs ICEBERG_UDF_SERVE_TOKEN",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8181, help="port (default: 8181; 0: a free one)")
    p.add_argument("--prefix", metavar="NAME", help="the {prefix} of the routes (default: udf)")
    p.add_argument(
        "--latest-by-log-timestamp",
        action="store_true",
        help="the current file is the one with the newest definition-log timestamp",
    )
    p.set_defaults(run=_cmd_serve)
