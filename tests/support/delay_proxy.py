"""A TCP proxy on 127.0.0.1 that delays every byte by a fixed time in each direction.

It works below HTTP, so page loads, the kernel-channel websocket and everything else the
browser sends are delayed alike, in order (each chunk read is written ``delay_ms`` later;
chunks never overtake each other). Throughput is not limited, only latency is added: what a
JupyterHub, Colab or VS Code remote user has (docs/slow-links.md). Usage::

    proxy = DelayProxy(target_port)  # starts at 0 ms
    port = proxy.start()  # its own thread and event loop
    proxy.delay_ms = 400  # may change at any time (applies to bytes read after)
    proxy.stop()

Listens on and connects to 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

LOOPBACK = "127.0.0.1"


class DelayProxy:
    def __init__(self, target_port: int, delay_ms: float = 0.0) -> None:
        self.target_port = target_port
        self.delay_ms = delay_ms
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # The reader stamps each chunk with its due time; the writer releases it then (FIFO).
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def read() -> None:
            try:
                while data := await reader.read(65536):
                    queue.put_nowait((time.monotonic() + self.delay_ms / 1000, data))
            except OSError:
                pass
            finally:
                queue.put_nowait((time.monotonic() + self.delay_ms / 1000, b""))

        reading = asyncio.ensure_future(read())
        try:
            while True:
                due, data = await queue.get()
                if (wait := due - time.monotonic()) > 0:
                    await asyncio.sleep(wait)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            reading.cancel()
            with contextlib.suppress(Exception):
                if writer.can_write_eof():
                    writer.write_eof()
                else:
                    writer.close()

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(LOOPBACK, self.target_port)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(self._pipe(client_r, server_w), self._pipe(server_r, client_w), return_exceptions=True)
        for w in (client_w, server_w):
            with contextlib.suppress(Exception):
                w.close()

    def start(self) -> int:
        """Start listening on a free port; returns it."""
        ready = threading.Event()

        def run() -> None:
            loop = self._loop = asyncio.new_event_loop()
            self._server = loop.run_until_complete(asyncio.start_server(self._handle, LOOPBACK, 0))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True, name="delay-proxy")
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the delaying proxy did not start")
        return self.port

    def stop(self) -> None:
        loop, server = self._loop, self._server
        if loop is None or server is None:
            return

        def close() -> None:
            loop.set_exception_handler(lambda _loop, _context: None)  # pipes cancelled at shutdown
            server.close()
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.call_later(0.1, loop.stop)

        loop.call_soon_threadsafe(close)
        if self._thread is not None:
            self._thread.join(5)
