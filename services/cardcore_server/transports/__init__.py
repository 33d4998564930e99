"""The transports: gRPC (:mod:`.grpc`) and REST (:mod:`.rest`, with the web table's routes,
:mod:`.web`) over one :class:`~cardcore_server.app.Application`, run together by :mod:`.server`
under the connection bounds of :mod:`.connections`. They convert and delegate: no rules here."""
