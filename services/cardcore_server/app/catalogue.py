"""The catalogue: every registered game, its variant flags and the JSON Schemas of its
commands, events and views, made once from the registry as typed values. Each transport
renders them (gRPC as canonical JSON text, REST as JSON objects); none converts them again.
"""

from __future__ import annotations

import functools

from cardcore import codec, registry
from cardcore.engine import rule_flags

from ..live import AnyGame
from .values import CatalogueEntry, RuleFlag


def entry(game: AnyGame) -> CatalogueEntry:
    info = game.info
    return CatalogueEntry(
        name=info.name,
        title=info.title,
        rules_version=info.rules_version,
        min_seats=info.min_seats,
        max_seats=info.max_seats,
        realtime=info.realtime,
        aliases=tuple(info.aliases),
        flags=tuple(
            RuleFlag(f.name, f.default, f.schema, f.help) for f in rule_flags(game.rules_type)
        ),
        command_schema=codec.union_schema(game.command_types),
        event_schema=codec.union_schema(game.event_types),
        view_schema=codec.json_schema(game.view_type),
    )


@functools.cache
def catalogue() -> tuple[CatalogueEntry, ...]:
    """Every registered game, in the registry's order (made once: the registry is fixed)."""
    return tuple(entry(g) for g in registry.GAMES)
