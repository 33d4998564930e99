"""cardcore's own Ed25519 verification (cardcore.ed25519): RFC 8032's test vectors, and the same
answer as OpenSSL (through ``cryptography``) on genuine signatures and on every kind of altered
one — a flipped bit anywhere, S not reduced, R or the key not a canonical point, small-order
points."""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given, settings

from cardcore import ed25519

# RFC 8032 §7.1, tests 1-3: (public key, message, signature)
RFC8032 = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
        "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]
SMALL_ORDER = [
    bytes(32),  # y = 0: order 4
    (1).to_bytes(32, "little"),  # the neutral element
    (ed25519.P - 1).to_bytes(32, "little"),  # y = -1: order 2
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # order 8
]


def openssl(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def test_rfc8032_vectors() -> None:
    for public, message, signature in RFC8032:
        pk, msg, sig = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
        assert ed25519.verify(pk, sig, msg)
        assert not ed25519.verify(pk, sig, msg + b"\0")
        assert not ed25519.verify(pk, sig[:63] + bytes([sig[63] ^ 0x10]), msg)


def test_s_not_reduced_and_wrong_lengths_are_refused() -> None:
    public, message, signature = (bytes.fromhex(x) for x in RFC8032[1])
    s = int.from_bytes(signature[32:], "little")
    unreduced = signature[:32] + (s + ed25519.L).to_bytes(32, "little")
    assert not ed25519.verify(public, unreduced, message)
    assert not openssl(public, unreduced, message)
    assert not ed25519.verify(public[:31], signature, message)
    assert not ed25519.verify(public, signature[:63], message)
    assert not ed25519.verify(public, signature + b"\0", message)


def test_non_canonical_and_small_order_points_agree_with_openssl() -> None:
    public, message, signature = (bytes.fromhex(x) for x in RFC8032[2])
    y_too_big = (ed25519.P + 1).to_bytes(32, "little")  # y >= p: not a canonical encoding
    for point in [*SMALL_ORDER, y_too_big, bytes([0xFF] * 32)]:
        for pk, sig in ((point, signature), (public, point + signature[32:])):
            assert ed25519.verify(pk, sig, message) == openssl(pk, sig, message), point.hex()


@settings(max_examples=40, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    message=st.binary(max_size=80),
    flip=st.one_of(st.none(), st.integers(0, 8 * (32 + 64) - 1)),
)
def test_same_answer_as_openssl(seed: bytes, message: bytes, flip: int | None) -> None:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    public = key.public_key().public_bytes_raw()
    signature = key.sign(message)
    if flip is not None:  # one bit flipped in the key or the signature
        blob = bytearray(public + signature)
        blob[flip // 8] ^= 1 << (flip % 8)
        public, signature = bytes(blob[:32]), bytes(blob[32:])
    expected = openssl(public, signature, message)
    assert expected or flip is not None, "a genuine signature checks"
    assert ed25519.verify(public, signature, message) == expected


# RFC 8032 §7.1, tests 1-3: the secret keys of RFC8032's public keys, in the same order.
RFC8032_SECRETS = [
    "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
]


def test_signing_gives_rfc8032_vectors() -> None:
    for secret, (public, message, signature) in zip(RFC8032_SECRETS, RFC8032, strict=True):
        sk, msg = bytes.fromhex(secret), bytes.fromhex(message)
        assert ed25519.public_key(sk).hex() == public
        assert ed25519.sign(sk, msg).hex() == signature
        key = ed25519.SigningKey(sk)  # one key, several messages: the same signatures
        assert key.public.hex() == public
        assert key.sign(msg).hex() == signature
        assert key.sign(msg + b"x") == ed25519.sign(sk, msg + b"x")


def test_signing_refuses_a_secret_of_the_wrong_length() -> None:
    for bad in (b"", bytes(31), bytes(33)):
        with pytest.raises(ValueError, match="32 bytes"):
            ed25519.sign(bad, b"m")
        with pytest.raises(ValueError, match="32 bytes"):
            ed25519.public_key(bad)


@settings(max_examples=25, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), message=st.binary(max_size=80))
def test_signing_gives_openssls_signature(seed: bytes, message: bytes) -> None:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    assert ed25519.public_key(seed) == key.public_key().public_bytes_raw()
    assert ed25519.sign(seed, message) == key.sign(message)  # Ed25519 is deterministic
