"""A corpus for the dispute tool: one genuine signed game, what its seat 0 holds, and forgeries of
its final log made as a dishonest host (or anyone, after the end) can make them — each rewritten
and resealed with the salt the end line reveals, the server's signatures left as they were.

Each case is a ``cardcore verify`` command line with its files, and the first line the evidence
it is given can show to be altered (``None``: none — a genuine input, or a forgery the evidence
cannot see). The Python tests, the Node verifier's and the page's all judge this same corpus
(tests/unit/test_verdicts.py), so the three can be held to the same words."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardcore import log, registry, signatures
from cardcore.bots import play_out, seat_bots
from cardcore.match import Match
from cardcore.rng import derive_deal_seed

Lines = list[dict[str, Any]]
SELF_CONSISTENT = "self-consistent"
"""What a forgery nothing can see is called without a key or receipts: never "valid"."""


@dataclass(frozen=True)
class Case:
    """``cardcore verify`` on ``files`` (``@name`` in ``argv`` is a file's path)."""

    name: str
    argv: list[str]
    files: dict[str, str]
    status: str
    """The verdict's first words: valid, self-consistent, consistent so far, INVALID, …"""
    at: int | str | None = None
    """INVALID: the first altered line the evidence can show (a seq, or "header")."""
    at_least: bool = False
    """``at`` is a lower bound: the rules alone see a dropped entry where it changes a decision."""
    notes: list[str] = field(default_factory=list)


def reseal(lines: Lines, start: int = 0) -> Lines:
    """What anyone holding the revealed salt can do: make every hash from line ``start`` on
    consistent again (each entry's keyed hash and link, the end line's plain hash)."""
    salt = bytes.fromhex(lines[-1]["salt"])
    for i in range(max(start, 1), len(lines)):
        line = lines[i]
        line["prev"] = lines[i - 1]["hash"]
        if line["type"] == "entry":
            line["hash"] = log._keyed_hash(salt, line)
        else:
            line["hash"] = log._plain_hash(line)
    return lines


@functools.cache
def genuine() -> tuple[Lines, str]:
    """A signed, format-2 game of Egyptian Ratscrew between two bots, and the key (base64url)."""
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    public = signatures.b64(key.public_key().public_bytes_raw())

    def sign(line_hash: str) -> dict[str, str]:
        sig = key.sign(signatures.message(line_hash))
        return {"alg": signatures.ALG, "key": public, "sig": signatures.b64(sig)}

    game = registry.get_game("ratscrew")
    entropy = [(0, bytes(range(16))), (1, bytes(range(16, 32)))]
    setup = game.make_setup(2, derive_deal_seed(80, entropy))
    match = Match(game, setup, game_id="g-forged", server_seed=80, contributions=entropy, sign=sign)
    play_out(match, seat_bots("reaction", 2, 2))  # 98 actions, seat 0 wins
    assert match.writer is not None and match.outcome is not None
    lines = log.loads(log.dumps(match.writer.lines))
    assert len(lines) > 40, "a game long enough to forge in its middle"
    return lines, public


def receipts(final: Lines, viewer: int = 0, *, header: bool = True) -> Lines:
    """What the client of ``viewer`` keeps while streaming: its first line, the game's header as
    its copy shows it, every entry as it was shown, and the end line."""
    shown = log.redact_log(final[:-1], viewer)
    head = {"type": log.RECEIPTS_TYPE, "game_id": final[0]["game_id"], "viewer": str(viewer)}
    return [head, *([shown[0]] if header else []), *shown[1:], final[-1]]


def _at_ms(lines: Lines, seq: int) -> Lines:
    lines[1 + seq]["at_ms"] += 1
    return reseal(lines, 1 + seq)


def _winner(lines: Lines) -> Lines:
    outcome = lines[-1]["outcome"]
    outcome["winners"] = [1 - outcome["winners"][0]]
    return reseal(lines, len(lines) - 1)


def _drop(lines: Lines, seq: int) -> Lines:
    del lines[1 + seq]
    for line in lines[1 + seq :]:
        line["seq"] -= 1
    return reseal(lines, 1 + seq)


def _deal(lines: Lines) -> Lines:
    dealt = lines[1]["events"]
    text = log.codec.canonical_text(dealt)
    a, b = next((c, d) for c, d in (("AS", "KH"), ("2C", "3D")) if c in text and d in text)
    swapped = text.replace(a, "\0").replace(b, a).replace("\0", b)
    lines[1]["events"] = log.codec.parse_json(swapped)
    return reseal(lines, 1)


def _reveal(lines: Lines) -> Lines:
    lines[-1]["seed"] ^= 1
    return reseal(lines, len(lines) - 1)


def forgeries(final: Lines) -> dict[str, tuple[Lines, int, int | str | None]]:
    """Each forgery, the first entry it alters, and what plain ``verify`` (the rules alone) sees
    first: None for what only a signature or receipts can see."""
    mid = (len(final) - 2) // 2
    end = len(final) - 2  # the end line's seq
    made: dict[str, tuple[Callable[[Lines], Lines], int, int | str | None]] = {
        "at_ms": (lambda ls: _at_ms(ls, mid), mid, None),
        "winner": (_winner, end, end),
        "dropped": (lambda ls: _drop(ls, mid), mid, mid),
        "deal": (_deal, 0, 0),
        "reveal": (_reveal, end, end),
    }
    return {
        name: (f(copy.deepcopy(final)), first, rules) for name, (f, first, rules) in made.items()
    }


def corpus() -> list[Case]:
    final, key = genuine()
    mid = (len(final) - 2) // 2
    files = {
        "final.jsonl": log.dumps(final).decode(),
        "seat0.receipts.jsonl": log.dumps(receipts(final)).decode(),
        "seat0.copy.jsonl": log.dumps(log.redact_log(final[: 1 + mid], 0)).decode(),
        "old.receipts.jsonl": log.dumps(receipts(final, header=False)).decode(),
    }
    mine = "seat0.receipts.jsonl"
    cases = [
        Case("final alone", ["verify", "@final.jsonl"], files, SELF_CONSISTENT),
        Case("final signed", ["verify", "--server-key", key, "@final.jsonl"], files, "valid"),
        Case("receipts alone", ["verify", f"@{mine}"], files, "valid"),
        Case("receipts signed", ["verify", "--server-key", key, f"@{mine}"], files, "valid"),
        Case("copy mid-game", ["verify", "@seat0.copy.jsonl"], files, "consistent so far"),
        Case(
            "receipts v final", ["verify", "--receipts", f"@{mine}", "@final.jsonl"], files, "valid"
        ),
        Case(
            "receipts v final signed",
            ["verify", "--server-key", key, "--receipts", f"@{mine}", "@final.jsonl"],
            files,
            "valid",
        ),
        Case("receipts without header", ["verify", "@old.receipts.jsonl"], files, "unsupported"),
    ]
    for name, (forged, first, rules) in forgeries(final).items():
        fname = f"forged-{name}.jsonl"
        these = {**files, fname: log.dumps(forged).decode()}
        end_seq = len(forged) - 2
        alone = SELF_CONSISTENT if rules is None else "INVALID"
        cases.append(
            Case(f"{name}: alone", ["verify", f"@{fname}"], these, alone, rules, name == "dropped")
        )
        signed_at = end_seq if rules is None else rules
        cases.append(
            Case(
                f"{name}: signed",
                ["verify", "--server-key", key, f"@{fname}"],
                these,
                "INVALID",
                signed_at,
                name == "dropped",
            )
        )
        for keyed in ([], ["--server-key", key]):
            cases.append(
                Case(
                    f"{name}: receipts{' signed' if keyed else ''}",
                    ["verify", *keyed, "--receipts", f"@{mine}", f"@{fname}"],
                    these,
                    "INVALID",
                    first,
                )
            )
    return cases
