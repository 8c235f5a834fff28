"""``python -m nbacp.demo serve --port P --token T``: the demo agent on loopback over acpremote.

The ws URL is printed (flushed) on one line as soon as the server listens, so a notebook or
test that started this process can read it and connect; the server runs until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Sequence

from nbacp.demo.agent import demo_agent

READY_PREFIX = "nbacp demo agent listening on "


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m nbacp.demo", description="The nbacp demo ACP agent.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the demo agent over acpremote (websocket)")
    serve.add_argument("--port", type=int, default=0, help="TCP port (0: pick a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--token", default=None, help="bearer token clients must send (recommended)")
    serve.add_argument("--mount", default="/acp", help="mount path; the websocket is at <mount>/ws")
    return parser


async def serve(host: str, port: int, token: str | None, mount: str) -> None:
    from acpremote import TransportOptions, serve_acp

    server = await serve_acp(
        demo_agent(),
        host=host,
        port=port,
        mount_path=mount,
        bearer_token=token,
        options=TransportOptions(use_unstable_protocol=True),
    )
    bound = next(iter(server.sockets)).getsockname()
    shown = f"[{host}]" if ":" in host else host  # an IPv6 literal needs brackets in a URL
    print(f"{READY_PREFIX}ws://{shown}:{bound[1]}{mount.rstrip('/')}/ws", flush=True)
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
    if args.command == "serve":
        if args.host not in ("127.0.0.1", "localhost", "::1") and not args.token:
            print("Refusing to serve on a non-loopback address without --token.", file=sys.stderr)
            return 2
        asyncio.run(serve(args.host, args.port, args.token, args.mount))
    return 0


if __name__ == "__main__":
    sys.exit(main())
