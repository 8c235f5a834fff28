"""``python -m nbacp.demo``: the example notebooks (``notebooks``, ``lab``) and the demo agent (``serve``).

``notebooks [DIR]`` copies the example notebooks into DIR (default ``./nbacp-examples``) and
``lab [DIR]`` then opens JupyterLab on the quickstart there (see ``nbacp.demo.workspace``).

``serve --port P``: the demo agent on loopback over acpremote.

The ws URL is printed (flushed) on one line as soon as the server listens, so a notebook or
test that started this process can read it and connect; the server runs until killed.

Exposure: the websocket always needs a bearer token. It comes from ``NBACP_DEMO_TOKEN`` (not
visible in ``ps``), ``--token``, or is generated and printed once on the line after the URL.
Empty or whitespace tokens are refused. A browser page can open a websocket to any local
port, so an upgrade whose ``Origin`` header is not loopback (or in ``--allow-origin``) is
refused with 403; clients that send no Origin (nbacp, command-line tools) are not browsers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import ipaddress
import os
import secrets
import signal
import sys
from collections.abc import Callable, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from nbacp.demo.agent import demo_agent
from nbacp.demo.workspace import DEFAULT_DIR, copy_examples, run_lab

READY_PREFIX = "nbacp demo agent listening on "
TOKEN_PREFIX = "nbacp demo agent token: "
TOKEN_ENV = "NBACP_DEMO_TOKEN"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
SERVE_NEEDS = ("acpremote", "pydantic_acp")
"""What ``serve`` imports beyond nbacp: the ``remote`` and ``demo`` extras (pip install 'nbacp[demo]')."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m nbacp.demo", description="The nbacp demo ACP agent.")
    commands = parser.add_subparsers(dest="command", required=True)
    copy_help = f"(created when missing; default: ./{DEFAULT_DIR}); your copies there are never overwritten"
    notebooks = commands.add_parser("notebooks", help="copy the example notebooks into a folder, outputs cleared")
    notebooks.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR, help=f"the folder {copy_help}")
    lab = commands.add_parser("lab", help="copy the example notebooks, then open JupyterLab on the quickstart")
    lab.add_argument("folder", nargs="?", type=Path, default=DEFAULT_DIR, help=f"the folder {copy_help}")
    lab.add_argument("--port", type=int, default=8888, help="JupyterLab's port on 127.0.0.1 (default: 8888)")
    serve = commands.add_parser("serve", help="serve the demo agent over acpremote (websocket)")
    serve.add_argument("--port", type=int, default=0, help="TCP port (0: pick a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument(
        "--token",
        default=None,
        help=f"bearer token clients must send (default: ${TOKEN_ENV}, else a generated one, printed once)",
    )
    serve.add_argument("--mount", default="/acp", help="mount path; the websocket is at <mount>/ws")
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser Origin allowed to open the websocket besides loopback ones (repeatable)",
    )
    return parser


def loopback_origin(origin: str) -> bool:
    """True for ``http(s)://localhost[:port]``, ``127.x.x.x`` and ``[::1]`` origins."""
    try:
        host = urlsplit(origin).hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin_check(allowed: Sequence[str]) -> Callable[[Any, Any], Any]:
    """A websockets ``process_request`` step refusing upgrades from non-loopback, non-allowed Origins."""
    from websockets.datastructures import Headers
    from websockets.http11 import Response

    allow = {a.rstrip("/").lower() for a in allowed}

    def check(connection: Any, request: Any) -> Any:
        origin = request.headers.get("Origin")
        if origin is None or loopback_origin(origin) or origin.rstrip("/").lower() in allow:
            return None
        body = b"origin not allowed\n"
        headers = Headers({"Content-Type": "text/plain; charset=utf-8", "Content-Length": str(len(body))})
        return Response(int(HTTPStatus.FORBIDDEN), HTTPStatus.FORBIDDEN.phrase, headers, body)

    return check


def _chain(first: Callable[[Any, Any], Any], then: Any) -> Callable[[Any, Any], Any]:
    async def process_request(connection: Any, request: Any) -> Any:
        refused = first(connection, request)
        if refused is not None or then is None:
            return refused
        result = then(connection, request)
        return await result if asyncio.iscoroutine(result) else result

    return process_request


async def serve(
    host: str, port: int, token: str, mount: str, allow_origins: Sequence[str] = (), *, show_token: bool = False
) -> None:
    from acpremote import TransportOptions, serve_acp

    server = await serve_acp(
        demo_agent(),
        host=host,
        port=port,
        mount_path=mount,
        bearer_token=token,
        options=TransportOptions(use_unstable_protocol=True),
    )
    # acpremote's own step (auth, metadata, health) runs after the Origin check; websockets
    # 16+ keeps this hook elsewhere, and acpremote 1.10 pins websockets<16 (docs/protocol.md, 'acpremote')
    if not hasattr(server, "process_request"):
        server.close()
        raise RuntimeError("serve needs websockets<16 (acpremote's own pin); pip install 'nbacp[demo]'")
    server.process_request = _chain(origin_check(allow_origins), server.process_request)
    bound = next(iter(server.sockets)).getsockname()
    shown = f"[{host}]" if ":" in host else host  # an IPv6 literal needs brackets in a URL
    print(f"{READY_PREFIX}ws://{shown}:{bound[1]}{mount.rstrip('/')}/ws", flush=True)
    if show_token:  # once, after the URL line (which callers read first)
        print(f"{TOKEN_PREFIX}{token}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows has no loop signal handlers
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        server.close()
        await server.wait_closed()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command in ("notebooks", "lab"):
        if not copy_examples(args.folder):
            return 2
        if args.command == "lab":
            run_lab(args.folder, args.port)
    elif args.command == "serve":
        missing = [name for name in SERVE_NEEDS if importlib.util.find_spec(name) is None]
        if missing:
            print(
                f"serve needs {' and '.join(missing)}, installed with nbacp's demo extra: pip install 'nbacp[demo]'",
                file=sys.stderr,
            )
            return 2
        token = args.token if args.token is not None else os.environ.get(TOKEN_ENV)
        if token is not None and not token.strip():
            print("Refusing an empty or whitespace token.", file=sys.stderr)
            return 2
        if args.host not in LOOPBACK_HOSTS and not token:
            print(f"Refusing to serve on a non-loopback address without --token or ${TOKEN_ENV}.", file=sys.stderr)
            return 2
        generated = token is None
        secret: str = secrets.token_urlsafe(24) if token is None else token
        asyncio.run(serve(args.host, args.port, secret, args.mount, args.allow_origin, show_token=generated))
    return 0


if __name__ == "__main__":
    sys.exit(main())
