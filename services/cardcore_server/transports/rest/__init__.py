"""The REST transport: Litestar on uvicorn, in the gRPC server's process and event loop."""

from .api import OPENAPI_PATH, RestApi, RestServer, openapi_document, start_rest

__all__ = ["OPENAPI_PATH", "RestApi", "RestServer", "openapi_document", "start_rest"]
