"""The cardcore service: a durable, authenticated, resumable game server.

Layers, each importing only the ones before it (docs/architecture.md has them module by module,
and the path of one action through them; tests/unit/test_import_graph.py holds the code to it):

* :mod:`.errors`, :mod:`.config`, :mod:`.logs`, :mod:`.metrics`, :mod:`.sealing` — the service's
  vocabulary and plumbing; :mod:`.limits` — rate limits and sizes;
* :mod:`.redaction` — the single point every outgoing event, view, error and log passes through;
* :mod:`.store` — the event-store interface and its backends (SQLite, PostgreSQL);
* :mod:`.live` — one running game: its sequencer, catch-up, fan-out, timers and server bots;
* :mod:`.app` — the application layer every transport calls (typed values in and out);
* :mod:`.transports` — gRPC and REST (with the web table), and the server that runs them;
* :mod:`.cli` and :mod:`.demo` — ``cardcore serve``, ``cardcore demo`` and ``cardcore backup``.
"""

from .app import Application, ServiceConfig
from .errors import ServiceError, Status

__all__ = ["Application", "ServiceConfig", "ServiceError", "Status"]
