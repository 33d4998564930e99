"""The REST transport: Litestar on uvicorn, in the gRPC server's process and event loop
(:mod:`.api`: the routes, the errors, the event stream and the OpenAPI document)."""

from .api import RestApi
from .openapi import openapi_document
from .server import RestServer, start_rest
from .wire import OPENAPI_PATH

__all__ = ["OPENAPI_PATH", "RestApi", "RestServer", "openapi_document", "start_rest"]
