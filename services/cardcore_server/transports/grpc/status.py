"""Errors the gRPC way: the status code, and a ``google.rpc.Status`` in
``grpc-status-details-bin`` whose details are an ``ErrorInfo`` (domain ``cardcore``, reason = the
game's ``RejectCode`` or a service reason, and its metadata), a ``BadRequest`` naming the
fields at fault, and, for an error worth retrying, a ``RetryInfo`` saying when."""

from __future__ import annotations

from typing import Any, Final

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from ...errors import DOMAIN, ServiceError, Status

CODES: Final = {
    Status.INVALID_ARGUMENT: (grpc.StatusCode.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT),
    Status.NOT_FOUND: (grpc.StatusCode.NOT_FOUND, code_pb2.NOT_FOUND),
    Status.UNAUTHENTICATED: (grpc.StatusCode.UNAUTHENTICATED, code_pb2.UNAUTHENTICATED),
    Status.PERMISSION_DENIED: (grpc.StatusCode.PERMISSION_DENIED, code_pb2.PERMISSION_DENIED),
    Status.FAILED_PRECONDITION: (grpc.StatusCode.FAILED_PRECONDITION, code_pb2.FAILED_PRECONDITION),
    Status.RESOURCE_EXHAUSTED: (grpc.StatusCode.RESOURCE_EXHAUSTED, code_pb2.RESOURCE_EXHAUSTED),
    Status.UNAVAILABLE: (grpc.StatusCode.UNAVAILABLE, code_pb2.UNAVAILABLE),
    Status.INTERNAL: (grpc.StatusCode.INTERNAL, code_pb2.INTERNAL),
}
RETRY_AFTER_S: Final = 1
"""What an ``UNAVAILABLE`` answer tells a client to wait before it retries (``RetryInfo``),
unless it says otherwise (``retry_after_s``); REST says the same in ``Retry-After``."""


def status_details(err: ServiceError) -> bytes:
    rpc_code = CODES[err.status][1]
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=err.metadata)
    details = [any_pb2.Any()]
    details[0].Pack(info)
    if err.violations:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=v.field, description=v.description
                )
                for v in err.violations
            ]
        )
        extra = any_pb2.Any()
        extra.Pack(bad)
        details.append(extra)
    if err.status in (Status.UNAVAILABLE, Status.RESOURCE_EXHAUSTED):
        # Retryable: say when (google.rpc.RetryInfo), as REST's Retry-After does.
        seconds = int(err.metadata.get("retry_after_s", RETRY_AFTER_S))
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=seconds)))
        details.append(retry)
    status = status_pb2.Status(code=rpc_code, message=err.message, details=details)
    data: bytes = status.SerializeToString()
    return data


async def abort(context: grpc.aio.ServicerContext[Any, Any], err: ServiceError) -> None:
    """End the call with ``err`` (raises :class:`grpc.aio.AbortError`)."""
    grpc_code, _ = CODES[err.status]
    await context.abort(
        grpc_code,
        err.message,
        trailing_metadata=(("grpc-status-details-bin", status_details(err)),),
    )


def is_abort(exc: BaseException) -> bool:
    return isinstance(exc, grpc.aio.AbortError)
