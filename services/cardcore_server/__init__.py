"""The cardcore service: a durable, authenticated, resumable game server.

Layers, each importing only the ones before it:

* :mod:`.errors` — the service's error vocabulary (transport-neutral status names);
* :mod:`.store` — the event-store interface and its embedded SQLite backend (group commit);
* :mod:`.store_postgres` — the PostgreSQL backend several server processes share;
* :mod:`.redaction` — the single point every outgoing event, view, error and log passes through;
* :mod:`.live` — one running game: its sequencer, timers and server bots;
* :mod:`.app` — the application layer both transports call (gRPC now, REST next);
* :mod:`.grpc_api` — the ``grpc.aio`` transport: conversion, rich errors, the decode guard;
* :mod:`.cli` — ``cardcore serve`` and ``cardcore demo``.
"""

from .app import Application, ServiceConfig
from .errors import ServiceError, Status

__all__ = ["Application", "ServiceConfig", "ServiceError", "Status"]
