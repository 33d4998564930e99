"""Signed logs without a server (cardcore.signatures, log.verify(server_key=), the CLI): a Match
signed through LogWriter's hook verifies against its key; another key, a signature that is not
the line's, a non-canonical spelling, an extra field or an unsigned line are each refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardcore import log, registry, signatures
from cardcore.bots import play_out, seat_bots
from cardcore.cli import main
from cardcore.errors import CorruptLog
from cardcore.match import Match
from cardcore.rng import derive_deal_seed


def signer(key: Ed25519PrivateKey) -> object:
    public = signatures.b64(key.public_key().public_bytes_raw())

    def sign(line_hash: str) -> dict[str, str]:
        return {
            "alg": signatures.ALG,
            "key": public,
            "sig": signatures.b64(key.sign(signatures.message(line_hash))),
        }

    return sign


def signed_log() -> tuple[list[dict[str, object]], bytes]:
    key = Ed25519PrivateKey.generate()
    game = registry.get_game("speed")
    entropy = [(0, bytes(range(16))), (1, bytes(range(16, 32)))]
    setup = game.make_setup(2, derive_deal_seed(99, entropy))
    match = Match(
        game,
        setup,
        game_id="g",
        server_seed=99,
        contributions=entropy,
        sign=signer(key),  # type: ignore[arg-type]
    )
    play_out(match, seat_bots("reaction", 2, 3))
    assert match.writer is not None
    return log.loads(log.dumps(match.writer.lines)), key.public_key().public_bytes_raw()


def test_a_signed_format_2_log_verifies_against_its_key() -> None:
    lines, key = signed_log()
    assert lines[0]["format"] == 2 and lines[-1]["seed"] == 99
    report = log.verify(lines, server_key=key)
    assert report.signatures_checked == 2 and report.signed_by == signatures.b64(key)
    assert log.verify(lines).signatures_checked == 0  # no key: said, not checked


def test_what_a_signature_check_refuses() -> None:
    lines, key = signed_log()
    other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    with pytest.raises(CorruptLog, match="another key"):
        log.verify(lines, server_key=other)
    sig = dict(lines[-1]["signature"])  # type: ignore[arg-type]
    for bad in (
        {**sig, "sig": lines[0]["signature"]["sig"]},  # type: ignore[index]
        {**sig, "sig": sig["sig"][:-1] + ("A" if sig["sig"][-1] != "A" else "B")},
        {**sig, "extra": 1},
    ):
        forged = [*lines[:-1], {**lines[-1], "signature": bad}]
        with pytest.raises(CorruptLog, match="end line"):
            log.verify(forged, server_key=key)
    unsigned = [*lines[:-1], {k: v for k, v in lines[-1].items() if k != "signature"}]
    with pytest.raises(CorruptLog, match="not signed"):
        log.verify(unsigned, server_key=key)
    with pytest.raises(ValueError):
        signatures.parse_key("not a key")
    with pytest.raises(ValueError):  # a second spelling of the same bytes
        signatures.unb64(signatures.b64(key)[:-1] + "=")


def test_the_cli_checks_signatures_with_receipts_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, key = signed_log()
    final = tmp_path / "final.jsonl"
    final.write_bytes(log.dumps(lines))
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(log.dumps(log.redact_log(lines[:10], 0)))
    good, bad = signatures.b64(key), "A" * 43
    assert main(["verify", "--server-key", good, str(final)]) == 0
    assert "; header and end line signed by the server key" in capsys.readouterr().out
    assert main(["verify", "--receipts", str(copy), str(final), "--server-key", good]) == 0
    assert "signed by the server key" in capsys.readouterr().out
    assert main(["verify", "--receipts", str(copy), str(final), "--server-key", bad]) == 1
    assert "another key" in capsys.readouterr().out
