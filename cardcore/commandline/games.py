"""``cardcore games``: the catalogue, every game with its rules version, seats and rule flags."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from .. import codec, registry
from ..engine import rule_flags, seats_phrase
from .common import EXIT_OK


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    if args.names:
        for g in registry.GAMES:  # every game: imported here, not when the CLI starts
            print(g.info.name, file=out)
        return EXIT_OK
    catalogue: list[dict[str, Any]] = [
        {
            "name": g.info.name,
            "title": g.info.title,
            "aliases": list(g.info.aliases),
            "rules_version": g.info.rules_version,
            "seats": [g.info.min_seats, g.info.max_seats],
            "realtime": g.info.realtime,
            "flags": [
                {"name": f.name, "default": f.default, "help": f.help}
                for f in rule_flags(g.rules_type)
            ],
        }
        for g in registry.GAMES
    ]
    if args.json:
        print(json.dumps(catalogue, indent=2, ensure_ascii=False), file=out)
        return EXIT_OK
    for entry in catalogue:
        aliases = f" (alias {', '.join(entry['aliases'])})" if entry["aliases"] else ""
        print(
            f"{entry['name']}{aliases} — {entry['title']}, rules_version {entry['rules_version']}, "
            f"{seats_phrase(*entry['seats'])}{', real-time' if entry['realtime'] else ''}",
            file=out,
        )
        for f in entry["flags"]:
            default = codec.canonical_text(f["default"])
            print(f"    {f['name']} = {default}    {f['help']}", file=out)
    return EXIT_OK
