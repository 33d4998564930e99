"""The PostgreSQL backend several server processes share (needs psycopg: the service's
``postgres`` extra). :mod:`.backend` is the store; :mod:`.schema` its tables, :mod:`.notify`
the wake-ups between servers, :mod:`.presence` who streams where, :mod:`.connections` the
connections they all use."""

from .backend import LEASE_RENEW_S, LEASE_TTL_S, PostgresStore

__all__ = ["LEASE_RENEW_S", "LEASE_TTL_S", "PostgresStore"]
