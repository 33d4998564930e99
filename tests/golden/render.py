"""Golden logs: one seeded bot game per preset, its log and a render of every step per viewer."""

from __future__ import annotations

from pathlib import Path

from cardcore import codec, log
from cardcore.bots import play_out, seat_bots
from cardcore.engine import Role, Viewer
from cardcore.fairness import play_raced
from cardcore.match import Match
from cardcore.registry import get_game
from cardcore.views import render_value, viewer_name

from .presets import Preset

HERE = Path(__file__).resolve().parent


def compact_view(view: object) -> str:
    data = codec.encode(view)
    del data["kind"]
    return "; ".join(f"{k}={render_value(getattr(view, k))}" for k in data)


def build(preset: Preset) -> tuple[bytes, bytes]:
    """The log bytes and the render bytes of one preset."""
    game = get_game(preset.game)
    setup = game.make_setup(preset.seats, preset.seed, preset.rules, preset.event_limit)
    match = Match(game, setup, game_id=preset.stem)
    bots = seat_bots("reaction", preset.seats, preset.seed)
    if preset.delays_ms:
        play_raced(match, bots, preset.delays_ms)
    else:
        play_out(match, bots)
    assert match.writer is not None
    lines = match.writer.lines
    viewers: list[Viewer] = [*range(preset.seats), Role.SPECTATOR]
    out = [f"# {preset.stem}: {game.info.title}, rules {codec.canonical_text(preset.rules)}"]
    start = None
    for step in log.replay(lines):
        entry = step.entry
        start = entry["at_ms"] if start is None else start
        action = codec.canonical_text(entry["action"])
        who = "deal" if entry["seat"] is None else f"seat {entry['seat']} {action}"
        out.append(f"seq {entry['seq']} +{entry['at_ms'] - start} ms {who}")
        for event in step.events:
            out.append(f"  {game.narrate(event)}")
        # Viewers who saw the same thing share a line; every viewer appears on each kind of line.
        saw = {v: "; ".join(game.narrate(game.redact(e, v)) for e in step.events) for v in viewers}
        seen = {v: compact_view(game.view(step.state, v)) for v in viewers}
        for label, texts in (("saw", saw), ("view", seen)):
            groups: dict[str, list[str]] = {}
            for v in viewers:
                groups.setdefault(texts[v], []).append(viewer_name(v))
            for text, names in groups.items():
                out.append(f"  [{', '.join(names)}] {label}: {text}")
    if lines[-1]["type"] == "end":
        out.append(f"end {codec.canonical_text(lines[-1]['outcome'])}")
    return log.dumps(lines), ("\n".join(out) + "\n").encode()


def paths(preset: Preset) -> tuple[Path, Path]:
    base = HERE / preset.stem
    return base.with_suffix(".jsonl"), base.with_suffix(".txt")
