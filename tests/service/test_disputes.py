"""Disputes settled from a player's own copy, through a real server (issue 12): log format 2
(the deal seed derived from the server's committed seed and the seats' own entropy), the
server's signature on the header and the end line, and receipts (every entry a client was shown
carries its hash: the final log must hold exactly those entries)."""

from __future__ import annotations

import asyncio
import hmac
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardcore import codec, registry, signatures
from cardcore import log as clog
from cardcore.errors import CorruptLog
from cardcore.rng import DERIVATION, derive_deal_seed, entropy_commitment
from cardcore_client import Client, GameClient, Rejection
from cardcore_proto import game_service_pb2 as pb

from .helpers import ServerProcess


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def play(seats: dict[int, GameClient], moves: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        views = {s: await g.view() for s, g in seats.items()}
        if any(v.outcome for v in views.values()):
            return
        movers = [s for s, v in views.items() if v.legal_commands]
        if not movers:
            await asyncio.sleep(0.01)
            continue
        s = rng.choice(movers)
        try:
            await seats[s].submit(rng.choice(views[s].legal_commands))
        except Rejection:
            pass


def rehash_entry(line: dict[str, Any], salt: bytes) -> None:
    """What a dishonest server holding the salt would do: re-hash a changed entry."""
    body = {k: v for k, v in line.items() if k != "hash"}
    line["hash"] = hmac.digest(salt, codec.canonical_bytes(body), "sha256").hex()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardcore.cli", *args], capture_output=True, text=True, check=False
    )


def test_a_served_game_is_format_2_with_every_seats_entropy(server: ServerProcess) -> None:
    async def main() -> list[dict[str, Any]]:
        async with Client(server.target) as c:
            t = await c.create_game("ratscrew", ["human", "invite", "random"])
            joiner = await c.join(t.invites[1])
            me = c.game(t.game_id, t.seat_tokens[0])
            other = c.game(t.game_id, joiner.token)
            await play({0: me, 1: other}, 6, 1)
            await other.resign()
            await me.resign()
            data, complete = await me.log()
            assert complete
            return clog.loads(data)

    lines = run(main())
    header, end = lines[0], lines[-1]
    assert header["format"] == 2 and header["seed_derivation"] == DERIVATION
    seats = [c["seat"] for c in header["contributions"]]
    assert seats == [0, 1], "the two human seats contributed; the bot did not"
    assert all(len(c["entropy"]) == 32 for c in header["contributions"])
    # The end reveals the server's seed; the game dealt with the seed derived from it.
    entropy = [(c["seat"], bytes.fromhex(c["entropy"])) for c in header["contributions"]]
    deal = derive_deal_seed(end["seed"], entropy)
    assert deal != end["seed"]
    game = registry.get_game("ratscrew")
    dealt = game.deal(game.make_setup(3, deal))
    assert [codec.encode(e) for e in dealt] == lines[1]["events"]
    assert clog.verify(lines).revealed

    # A changed contribution: it no longer matches the commitment the seat made before the
    # start; changed with its commitment, the header no longer matches its hash; re-hashed too,
    # the deal no longer does.
    assert all("commitment" in c for c in header["contributions"])  # both clients commit
    forged = [dict(line) for line in lines]
    changed = {**header["contributions"][0], "entropy": "0" * 32}
    forged[0] = {**header, "contributions": [changed, *header["contributions"][1:]]}
    with pytest.raises(CorruptLog, match="does not match the commitment"):
        clog.verify(forged)
    changed["commitment"] = entropy_commitment(bytes(16))
    with pytest.raises(CorruptLog, match="header hash"):
        clog.verify(forged)
    forged[0]["hash"] = clog.header_hash(forged[0])
    with pytest.raises(CorruptLog):  # the chain starts from the header's hash, then the deal
        clog.verify(forged)
    # A changed server seed in the end line: the commitment catches it.
    forged = [dict(line) for line in lines]
    forged[-1] = {**end, "seed": (end["seed"] + 1) % 2**64}
    forged[-1]["hash"] = clog._plain_hash(forged[-1])
    with pytest.raises(CorruptLog, match="commitment"):
        clog.verify(forged)


def test_contributing_is_optional(server: ServerProcess) -> None:
    async def main() -> dict[str, Any]:
        async with Client(server.target) as c:
            t = await c.create_game("spit", ["human", "invite"], contribute=False)
            await c.join(t.invites[1], contribute=False)
            data, _ = await c.game(t.game_id, t.seat_tokens[0]).log()
            return clog.loads(data)[0]

    header = run(main())
    assert header["format"] == 2 and header["contributions"] == []


def test_logs_are_signed_by_the_key_the_server_publishes(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--collect-window-ms", "0").start()
    try:

        async def main() -> tuple[str, list[dict[str, Any]]]:
            async with Client(proc.target) as c:
                key = (await c.stub.ListGames(pb.ListGamesRequest())).server_key
                t = await c.create_game("speed", ["human", "human"])
                me = c.game(t.game_id, t.seat_tokens[0])
                copy, _ = await me.log()
                await me.resign()
                data, _ = await me.log()
                (tmp_path / "copy.jsonl").write_bytes(copy)
                return key, clog.loads(data)

        key, lines = run(main())
        rest_port = next(
            json.loads(ln)["rest_port"]
            for ln in proc.log_text().splitlines()
            if '"event": "listening"' in ln
        )
        served = httpx.get(f"http://127.0.0.1:{rest_port}/v1/server").json()
        assert served["server_key"] == key and served["algorithm"] == "ed25519"
        raw = signatures.parse_key(key)
        for line in (lines[0], lines[-1]):
            assert line["signature"]["key"] == key
        report = clog.verify(lines, server_key=raw)
        assert report.signatures_checked == 2 and report.signed_by == key
        path = tmp_path / "game.jsonl"
        path.write_bytes(clog.dumps(lines))
        ok = cli("verify", "--server-key", key, str(path))
        assert ok.returncode == 0 and ok.stdout.startswith("valid, signed by the server key:")
        assert "; header and end line signed by the server key" in ok.stdout, ok.stdout
        copy = cli("verify", "--server-key", key, str(tmp_path / "copy.jsonl"))
        assert copy.returncode == 3 and "; header signed by the server key" in copy.stdout

        # Signed by another key: refused, naming the line.
        other = Ed25519PrivateKey.generate()
        other_key = signatures.b64(other.public_key().public_bytes_raw())
        forged = [dict(line) for line in lines]
        for i in (0, -1):
            forged[i]["signature"] = {
                "alg": "ed25519",
                "key": other_key,
                "sig": signatures.b64(other.sign(signatures.message(forged[i]["hash"]))),
            }
        with pytest.raises(CorruptLog, match="another key"):
            clog.verify(forged, server_key=raw)
        assert clog.verify(forged, server_key=signatures.parse_key(other_key)).signatures_checked
        # A signature that does not match its line.
        forged = [dict(line) for line in lines]
        forged[-1]["signature"] = {**lines[-1]["signature"], "sig": lines[0]["signature"]["sig"]}
        with pytest.raises(CorruptLog, match="not the one the server signed"):
            clog.verify(forged, server_key=raw)
        bad = tmp_path / "bad.jsonl"
        bad.write_bytes(clog.dumps(forged))
        assert cli("verify", "--server-key", key, str(bad)).returncode == 1

        # The key survives a restart (it is kept with the store).
        proc.stop()
        proc.start()

        async def again() -> str:
            async with Client(proc.target) as c:
                return str((await c.stub.ListGames(pb.ListGamesRequest())).server_key)

        assert run(again()) == key
    finally:
        proc.stop()


def test_receipts_hold_the_server_to_what_it_showed(server: ServerProcess, tmp_path: Path) -> None:
    """A client keeps receipts as it streams; after the end they match the final log. A final
    log rewritten where the player saw it, or where it did not (a hidden card) but holds the
    hash, is caught, naming the seq."""
    receipts = tmp_path / "seat0.receipts.jsonl"

    async def main() -> list[dict[str, Any]]:
        async with Client(server.target) as c:
            t = await c.create_game("palace", ["human", "human"], seed=41)
            me = c.game(t.game_id, t.seat_tokens[0])
            other = c.game(t.game_id, t.seat_tokens[1])
            seen = []

            async def follow() -> None:
                async for entry in me.stream(receipts=receipts):
                    seen.append(entry.seq)

            follower = asyncio.create_task(follow())
            await play({0: me, 1: other}, 30, 2)
            await other.resign()
            await asyncio.wait_for(follower, 10)
            data, _ = await me.log()
            return clog.loads(data)

    final = run(main())
    mine = clog.loads(receipts.read_bytes())
    assert mine[0] == {"type": "receipts", "game_id": final[0]["game_id"], "viewer": "0"}
    # The receipts hold the header and the end line the stream sent: on their own they settle
    # the game (rebuilt from the revealed seed and the actions, every hash checked).
    assert mine[1]["type"] == "header" and mine[-1] == final[-1]
    own = clog.verify(mine)
    assert own.revealed and own.copy == "0" and own.outcome is not None
    settled = cli("verify", str(receipts))
    assert settled.returncode == 0, settled.stdout
    assert settled.stdout.startswith("valid from seat 0's own receipts:"), settled.stdout
    report = clog.check_copy(mine, final)
    assert report.entries == len(final) - 2 and report.source == "receipts"
    done = cli("verify", "--receipts", str(receipts), str(_write(tmp_path / "final.jsonl", final)))
    assert done.returncode == 0, done.stdout + done.stderr

    salt = bytes.fromhex(final[-1]["salt"])
    game = registry.get_game("palace")
    # 1. The server rewrites an entry the player saw (a visible event) and re-hashes it.
    seq = next(
        ln["seq"]
        for ln in final[2:-1]
        if ln["seat"] == 1 and ln["events"] and "Resign" not in str(ln["action"])
    )
    forged = _copy(final)
    forged[1 + seq]["at_ms"] += 1
    rehash_entry(forged[1 + seq], salt)
    with pytest.raises(CorruptLog) as caught:
        clog.check_copy(mine, forged)
    assert caught.value.seq == seq
    # 2. It changes a card seat 0 never saw (seat 1's dealt hand) and re-hashes the deal.
    forged = _copy(final)
    deal = forged[1]["events"]
    text = json.dumps(deal)
    hidden = _a_card_hidden_from(game, deal, 0)
    swapped = (
        text.replace(json.dumps(hidden[0]), '"@@"')
        .replace(json.dumps(hidden[1]), json.dumps(hidden[0]))
        .replace('"@@"', json.dumps(hidden[1]))
    )
    forged[1]["events"] = json.loads(swapped)
    rehash_entry(forged[1], salt)
    with pytest.raises(CorruptLog) as caught:
        clog.check_copy(mine, forged)
    assert caught.value.seq == 0


def _copy(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return json.loads(json.dumps(lines))


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_bytes(clog.dumps(lines))
    return path


def _a_card_hidden_from(game: Any, deal: list[Any], viewer: int) -> tuple[str, str]:
    """Two different card texts of the deal that ``viewer`` is shown as hidden."""
    shown = json.dumps([codec.encode(game.redact(game.decode_event(e), viewer)) for e in deal])
    cards = sorted({v for v in _strings(deal) if len(v) in (2, 3) and v not in shown})
    assert len(cards) >= 2, "the deal hides at least two of the other seat's cards"
    return cards[0], cards[1]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []
