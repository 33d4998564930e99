"""The gRPC transport (``grpc.aio``): ``cardcore.v1.GameService`` over the application."""

from .handlers import SERVICE_NAME, GameServiceHandlers, service_names

__all__ = ["SERVICE_NAME", "GameServiceHandlers", "service_names"]
