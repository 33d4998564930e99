"""The cardcore service: a durable, authenticated, resumable game server.

Layers, each importing only the ones before it:

* :mod:`.errors` — the service's error vocabulary (transport-neutral status names);
* :mod:`.store` — the event-store interface and its backends (SQLite, PostgreSQL);
* :mod:`.redaction` — the single point every outgoing event, view, error and log passes through;
* :mod:`.live` — one running game: its sequencer, timers and server bots;
* :mod:`.app` — the application layer every transport calls (typed values in and out);
* :mod:`.transports` — gRPC and REST (with the web table), and the server that runs them;
* :mod:`.cli` — ``cardcore serve``, ``cardcore demo`` and ``cardcore backup``.
"""

from .app import Application, ServiceConfig
from .errors import ServiceError, Status

__all__ = ["Application", "ServiceConfig", "ServiceError", "Status"]
