"""The gRPC stubs under their old name, for programs written before they moved.

The stubs of ``proto/cardcore/v1`` are the package ``cardcore_proto`` (shipped by the client's
distribution, imported by the server and the clients). ``cardcore_server._pb`` was their name
before the repository was split into three distributions; the shared benchmark harness
(``../shared/bench/servers``, read-only here) still imports it. Nothing in this repository does:
a test keeps it that way.
"""

from cardcore_proto import game_service_pb2, game_service_pb2_grpc

__all__ = ["game_service_pb2", "game_service_pb2_grpc"]
