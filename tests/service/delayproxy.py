"""A TCP proxy that delays each direction's bytes (the play channel's tests and the race
benchmark: a seat further away, on the same machine)."""

from __future__ import annotations

import asyncio


class DelayProxy:
    """``127.0.0.1:<port>`` relaying to a local port, each direction's bytes delivered
    ``delay_s`` after they were read, in order: a seat further away, on the same machine."""

    def __init__(self, target_port: int, delay_s: float) -> None:
        self.target_port = target_port
        self.delay_s = delay_s
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> DelayProxy:
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if not data:
                    writer.close()
                    return
                writer.write(data)
                await writer.drain()

        delivering = asyncio.ensure_future(deliver())
        try:
            while data := await reader.read(65536):
                queue.put_nowait((loop.time() + self.delay_s, data))
        except ConnectionError:
            pass
        queue.put_nowait((loop.time() + self.delay_s, b""))
        await delivering
