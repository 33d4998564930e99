"""The RNG reproduces the known-answer vectors published in docs/rng.md."""

from __future__ import annotations

import json
import re
from collections import UserList
from pathlib import Path
from typing import Any

import pytest

from cardcore import rng as rng_module
from cardcore.cards import standard_deck
from cardcore.rng import ALGORITHM, Rng, shuffled, stream_key

DOC = Path(__file__).resolve().parents[2] / "docs" / "rng.md"


def vectors() -> dict[str, Any]:
    block = re.search(r"```json\n(.*?)\n```", DOC.read_text(), re.S)
    assert block, "docs/rng.md must hold a ```json block of vectors"
    data: dict[str, Any] = json.loads(block.group(1))
    return data


def test_algorithm_name_matches_doc() -> None:
    assert vectors()["algorithm"] == ALGORITHM


@pytest.mark.parametrize("case", vectors()["streams"])
def test_stream_outputs(case: dict[str, Any]) -> None:
    seed = int(case["seed"])
    assert f"{stream_key(seed, case['stream']):016x}" == case["key"]
    rng = Rng(seed, case["stream"])
    assert [f"{rng.next_u64():016x}" for _ in case["outputs"]] == case["outputs"]


@pytest.mark.parametrize("case", vectors()["below"])
def test_below(case: dict[str, Any]) -> None:
    rng = Rng(int(case["seed"]), case["stream"])
    assert [rng.below(case["n"]) for _ in case["values"]] == case["values"]


def test_shuffle_and_deals() -> None:
    data = vectors()
    for case in data["shuffles"]:
        assert shuffled(int(case["seed"]), case["stream"], list(range(10))) == case["output"]
    for case in data["deals"]:
        deck = shuffled(int(case["seed"]), case["stream"], standard_deck())
        assert " ".join(c.text for c in deck) == case["deck"]


def test_splitmix64_reference_first_output() -> None:
    # SplitMix64 seeded with 0 first yields 0xe220a8397b1dcdaf (the published reference).
    assert stream_key(0, 0) == 0xE220A8397B1DCDAF


def test_below_is_unbiased_enough_and_in_range() -> None:
    rng = Rng(5, 0)
    counts = [0] * 6
    for _ in range(6000):
        counts[rng.below(6)] += 1
    assert all(850 < c < 1150 for c in counts)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="seed"):
        Rng(-1)
    with pytest.raises(ValueError, match="seed"):
        Rng(2**64)
    with pytest.raises(ValueError, match="bound"):
        Rng(1).below(0)


@pytest.mark.parametrize("exact", [False, True], ids=["", "exact-limits"])
@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 52, 104])
def test_shuffle_is_fisher_yates_over_below(
    size: int, exact: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inlined shuffle draws exactly what the spec says: below(i + 1) for i = n-1 .. 1.
    ``exact``: with no draw taken as safely below the limit (rng._SAFE 0), so the exact limit,
    which a draw needs about once in 2**32, is what every draw is checked against."""
    if exact:
        monkeypatch.setattr(rng_module, "_SAFE", 0)
    for seed in range(0, 2**64, 2**58 + 12345):
        rng, ref_rng = Rng(seed, 3), Rng(seed, 3)
        got, expected = list(range(size)), list(range(size))
        rng.shuffle(got)
        for i in range(size - 1, 0, -1):
            j = ref_rng.below(i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        assert got == expected
        assert rng.next_u64() == ref_rng.next_u64()  # and the stream goes on from the same draw


def test_a_list_and_any_other_sequence_shuffle_alike() -> None:
    """The compiled build shuffles a list natively and any other mutable sequence through its
    generic methods: the same draws, the same order."""
    for seed in (0, 7, 2**64 - 1):
        as_list, as_other = list(range(52)), UserList(range(52))
        Rng(seed, 2).shuffle(as_list)
        Rng(seed, 2).shuffle(as_other)
        assert as_list == list(as_other) != list(range(52))


MASK = (1 << 64) - 1


def spec_mix(z: int) -> int:
    """docs/rng.md's SplitMix64 finaliser, with Python's integers."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def spec_output(seed: int, stream: int, k: int) -> int:
    """Output ``k`` (from 1) of a stream, written from docs/rng.md with Python's integers."""
    key = spec_mix((seed + 0x9E3779B97F4A7C15 * (stream + 1)) & MASK)
    return spec_mix((key + 0x9E3779B97F4A7C15 * k) & MASK)


EDGES = (0, 1, 2**62, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1)


@pytest.mark.parametrize("stream", EDGES)
@pytest.mark.parametrize("seed", EDGES)
def test_a_stream_key_is_the_spec_at_the_edges_of_a_word(seed: int, stream: int) -> None:
    """:func:`stream_key` and a stream's first draw (worked out in 64-bit words in the compiled
    build) are docs/rng.md's for seeds and streams at the edges of a signed word, the last
    stream too (whose ``stream + 1`` wraps to 0)."""
    assert stream_key(seed, stream) == spec_mix((seed + 0x9E3779B97F4A7C15 * (stream + 1)) & MASK)
    assert Rng(seed, stream).next_u64() == spec_output(seed, stream, 1)


BOUNDS = (1, 2, 3, 7, 52, 1000, 2**31 + 11, 2**62 + 1, 2**63 - 1, 2**63, 2**64 - 1)
"""Bounds of every size: the compiled build draws below 2**63 in 64-bit words (signed, so a
rejection and a remainder of a word at or past 2**63 are where it could go wrong), above it with
Python's integers."""


@pytest.mark.parametrize("n", BOUNDS)
def test_below_is_the_spec_rejection_in_either_build(n: int) -> None:
    """``below(n)`` is the spec's rejection sampling over the stream's outputs, draw for draw,
    for seeds whose keys have the top bit set and clear (in the compiled build a key and an
    output are signed 64-bit words), and the stream goes on from the same draw."""
    for seed in (0, 1, 2**63 - 1, 2**63, 2**64 - 1, 0xDEADBEEF12345678):
        for stream in (0, 7):
            rng, k = Rng(seed, stream), 0
            for _ in range(40):
                limit = 2**64 - 2**64 % n
                while True:
                    k += 1
                    x = spec_output(seed, stream, k)
                    if x < limit:
                        break
                assert rng.below(n) == x % n
            assert rng.next_u64() == spec_output(seed, stream, k + 1)


def test_a_rejected_draw_is_skipped_in_either_build() -> None:
    """A bound just over 2**63 rejects about half of all draws: the stream of seed 5 rejects
    some within its first 20, and below() moves past each one as the spec says."""
    n, rng, k, rejected = 2**63 + 1, Rng(5, 0), 0, 0
    for _ in range(20):
        while True:
            k += 1
            x = spec_output(5, 0, k)
            if x < 2**64 - 2**64 % n:
                break
            rejected += 1
        assert rng.below(n) == x % n
    assert rejected > 0


def derivation_vectors() -> dict[str, Any]:
    """The second ```json block of docs/rng.md: the deal seed of log format 2."""
    blocks = re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)
    data: dict[str, Any] = next(d for d in (json.loads(b) for b in blocks) if "derivation" in d)
    return data


def test_derivation_name_matches_doc() -> None:
    from cardcore.rng import DERIVATION

    assert derivation_vectors()["derivation"] == DERIVATION


@pytest.mark.parametrize("case", derivation_vectors()["vectors"])
def test_deal_seed_derivation(case: dict[str, Any]) -> None:
    import hashlib

    from cardcore.rng import derive_deal_seed

    contributions = [(c["seat"], bytes.fromhex(c["entropy"])) for c in case["contributions"]]
    hashed = bytes.fromhex(case["hashed_hex"])
    assert hashlib.sha256(hashed).hexdigest() == case["sha256"]
    seed = derive_deal_seed(int(case["server_seed"]), contributions)
    assert str(seed) == case["deal_seed"]
    assert seed == int(case["sha256"][:16], 16)
    deck = " ".join(str(c) for c in shuffled(seed, 0, standard_deck()))
    assert deck == case["deck"]


def test_deal_seed_derivation_refuses_bad_contributions() -> None:
    from cardcore.rng import derive_deal_seed

    with pytest.raises(ValueError, match="16 bytes"):
        derive_deal_seed(1, [(0, b"short")])
    with pytest.raises(ValueError, match="twice"):
        derive_deal_seed(1, [(0, bytes(16)), (0, bytes(16))])
    with pytest.raises(ValueError, match="server seed"):
        derive_deal_seed(2**64, [])
    # The order contributions are given in does not matter; the seat they came from does.
    a, b = bytes(range(16)), bytes(range(16, 32))
    assert derive_deal_seed(5, [(0, a), (1, b)]) == derive_deal_seed(5, [(1, b), (0, a)])
    assert derive_deal_seed(5, [(0, a), (1, b)]) != derive_deal_seed(5, [(0, b), (1, a)])


def commitment_vectors() -> dict[str, Any]:
    """The ```json block of docs/rng.md that holds the entropy commitments."""
    blocks = re.findall(r"```json\n(.*?)\n```", DOC.read_text(), re.S)
    data: dict[str, Any] = next(d for d in (json.loads(b) for b in blocks) if "commitment" in d)
    return data


@pytest.mark.parametrize("case", commitment_vectors()["vectors"])
def test_entropy_commitment(case: dict[str, Any]) -> None:
    from cardcore.rng import entropy_commitment

    tag = bytes.fromhex(commitment_vectors()["tag_hex"])
    assert tag.decode() == commitment_vectors()["commitment"]
    assert entropy_commitment(bytes.fromhex(case["entropy"])) == case["commitment"]


def test_entropy_commitment_refuses_a_short_value() -> None:
    from cardcore.rng import entropy_commitment

    with pytest.raises(ValueError, match="16 bytes"):
        entropy_commitment(bytes(15))
