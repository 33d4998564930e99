"""The REST transport's former path, kept for ``tools/docs_hooks.py`` (which builds the OpenAPI
document from :class:`RestApi`): the transport is :mod:`cardcore_server.transports.rest`."""

from .transports.rest import RestApi, openapi_document

__all__ = ["RestApi", "openapi_document"]
