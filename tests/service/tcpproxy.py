"""A TCP proxy in front of PostgreSQL for outage tests: it relays until told otherwise, then
either holds every connection open and silent (a database cut off by the network: nothing is
refused, nothing answers, a query waits for TCP to give up) or resets them all and refuses
new ones (a database down). The real database is never touched, so tests beside this one on
the same server are not disturbed."""

from __future__ import annotations

import selectors
import socket
import struct
import threading
from typing import Literal, Self

Mode = Literal["relay", "silent", "down"]


class TcpProxy:
    """``127.0.0.1:<port>`` relaying to ``(host, port)``, on a thread of its own."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.mode: Mode = "relay"
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port = int(self._listener.getsockname()[1])
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._pairs: dict[socket.socket, socket.socket] = {}
        """Relayed sockets (both ends), each to the other."""
        self._held: list[socket.socket] = []
        """Sockets held open and unread (silent)."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tcp-proxy", daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        with self._lock:
            self._drop_all()
        self._listener.close()

    def set(self, mode: Mode) -> None:
        """``silent``: stop relaying and hold every connection (and each new one) open;
        ``down``: reset every connection and refuse new ones; ``relay``: relay new connections
        again (those held while silent are reset: the client reconnects, as after a real cut)."""
        with self._lock:
            self.mode = mode
            if mode != "silent":
                self._drop_all()
                return
            for sock in list(self._pairs):  # unread from now on: the bytes wait in the kernel
                self._selector.unregister(sock)
                self._held.append(sock)
            self._pairs.clear()

    def _drop_all(self) -> None:
        for sock in [*self._pairs, *self._held]:
            if sock in self._pairs:
                self._selector.unregister(sock)
            _reset(sock)
        self._pairs.clear()
        self._held.clear()

    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.05):
                with self._lock:
                    if key.fileobj is self._listener:
                        self._accept()
                    elif isinstance(key.fileobj, socket.socket):
                        self._pump(key.fileobj)

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except BlockingIOError:
            return
        if self.mode == "down":
            _reset(client)
            return
        if self.mode == "silent":
            self._held.append(client)  # accepted, never answered
            return
        try:
            server = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            _reset(client)
            return
        for a, b in ((client, server), (server, client)):
            a.settimeout(5)  # select says when to read; a send may wait for its peer a little
            self._pairs[a] = b
            self._selector.register(a, selectors.EVENT_READ)

    def _pump(self, sock: socket.socket) -> None:
        other = self._pairs.get(sock)
        if other is None:
            return
        try:
            data = sock.recv(65536)
            if data:
                other.sendall(data)
                return
        except OSError:
            pass
        for s in (sock, other):  # one end closed: close the other
            if self._pairs.pop(s, None) is not None:
                self._selector.unregister(s)
            s.close()


def _reset(sock: socket.socket) -> None:
    """Close with a reset (RST, SO_LINGER 0), as a database that went away."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()
