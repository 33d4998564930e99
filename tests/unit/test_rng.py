"""The RNG reproduces the known-answer vectors published in docs/rng.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

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


@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 52, 104])
def test_shuffle_is_fisher_yates_over_below(size: int) -> None:
    """The inlined shuffle draws exactly what the spec says: below(i + 1) for i = n-1 .. 1."""
    for seed in range(0, 2**64, 2**58 + 12345):
        rng, ref_rng = Rng(seed, 3), Rng(seed, 3)
        got, expected = list(range(size)), list(range(size))
        rng.shuffle(got)
        for i in range(size - 1, 0, -1):
            j = ref_rng.below(i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        assert got == expected
        assert rng.next_u64() == ref_rng.next_u64()  # and the stream goes on from the same draw


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
