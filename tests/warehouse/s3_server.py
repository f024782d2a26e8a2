"""moto's S3 API server in its own process, for the tests of ``s3://`` warehouses.

``python -m tests.warehouse.s3_server [--ignore-conditional-writes]`` binds a free port on
127.0.0.1, prints ``{"port": N}`` and serves until killed. Requests are handled one at a time:
moto checks ``If-None-Match: *`` and then stores the object in two steps without a lock, so a
threaded moto could itself let two conditional creates of one key both succeed (AWS S3 decides
them atomically). Served one at a time, each conditional create is atomic, as on S3.

``--ignore-conditional-writes`` drops the ``If-None-Match`` header before moto sees it: a store
that does not honour conditional writes (as S3-compatible stores did before supporting them),
which a warehouse must refuse instead of trusting.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any

from moto.moto_server.werkzeug_app import (  # type: ignore[import-untyped]
    DomainDispatcherApplication,
    create_backend_app,
)
from werkzeug.serving import make_server

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def ignoring_conditional_writes(app: WsgiApp) -> WsgiApp:
    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        environ.pop("HTTP_IF_NONE_MATCH", None)
        return app(environ, start_response)

    return wrapped


def main(argv: list[str]) -> None:
    app: WsgiApp = DomainDispatcherApplication(create_backend_app)
    if "--ignore-conditional-writes" in argv:
        app = ignoring_conditional_writes(app)
    server = make_server("127.0.0.1", 0, app, threaded=False)
    print(json.dumps({"port": server.server_port}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
