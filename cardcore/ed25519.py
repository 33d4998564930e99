"""Ed25519 signatures (RFC 8032, sections 5.1.5-5.1.7) in plain Python: verification, and
signing for a host without the ``cryptography`` package.

Why cardcore carries its own: the server's signatures on a log are checked by whoever holds the
log — the ``cardcore`` command, the web page and the Node verifier, the last two by running
cardcore's own Python under Pyodide, which has no ``cryptography`` package. One checker, in the
engine's standard-library-only code, gives the three the same verdict word for word.

:func:`sign` is here for hosts that sign their own logs without that package (the bot ladder,
``cardcore ladder``, signs every game it plays). Its arithmetic is NOT constant-time: the time
it takes depends on the secret key, so it is fit for a key on your own machine, never for a
key a remote party can time signatures of (the service signs with ``cryptography``).

It follows RFC 8032's reference verification: the key and ``R`` must decode to points of the
curve (canonical encodings only), ``S`` must be below the group order, and
``[S]B == R + [k]A`` with ``k = SHA-512(R ‖ A ‖ M) mod L`` — the same cofactorless equation
OpenSSL (and so ``cryptography``) checks; a test holds the two to the same answers.
"""

from __future__ import annotations

import hashlib
from typing import Final

P: Final = 2**255 - 19
"""The field's prime."""
L: Final = 2**252 + 27742317777372353535851937790883648493
"""The order of the base point's group."""
D: Final = -121665 * pow(121666, P - 2, P) % P
SQRT_M1: Final = pow(2, (P - 1) // 4, P)

Point = tuple[int, int, int, int]
"""Extended homogeneous coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, x*y = T/Z."""


def _add(p: Point, q: Point) -> Point:
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _multiply(s: int, p: Point) -> Point:
    q: Point = (0, 1, 1, 0)  # the neutral element
    while s:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _equal(p: Point, q: Point) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % P == 0 and (p[1] * q[2] - q[1] * p[2]) % P == 0


def _recover_x(y: int, sign: int) -> int | None:
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    return P - x if (x & 1) != sign else x


def _decode(data: bytes) -> Point | None:
    """A point from its 32-byte encoding, or None for a non-canonical or off-curve one."""
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


_BY: Final = 4 * pow(5, P - 2, P) % P
B: Final[Point] = (_recover_x(_BY, 0) or 0, _BY, 1, (_recover_x(_BY, 0) or 0) * _BY % P)
"""The base point."""


def verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` (64 bytes) is ``public_key``'s (32 bytes) on ``message``."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode(public_key)
    r = _decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little")
    return _equal(_multiply(s, B), _add(r, _multiply(k % L, a)))


def _encode(p: Point) -> bytes:
    """A point's 32-byte encoding: y, with the low bit of x in the top bit."""
    zinv = pow(p[2], P - 2, P)
    x, y = p[0] * zinv % P, p[1] * zinv % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def _expand(secret: bytes) -> tuple[int, bytes]:
    """The secret scalar ``s`` (clamped) and the nonce prefix of a 32-byte secret key."""
    if len(secret) != 32:
        raise ValueError("an Ed25519 secret key is 32 bytes")
    h = hashlib.sha512(secret).digest()
    s = int.from_bytes(h[:32], "little")
    s &= (1 << 254) - 8  # clear the three low bits and the top bit
    s |= 1 << 254
    return s, h[32:]


def public_key(secret: bytes) -> bytes:
    """The 32-byte public key of a 32-byte secret key (RFC 8032, 5.1.5)."""
    return SigningKey(secret).public


class SigningKey:
    """A 32-byte secret key ready to sign: its public key is worked out once, here, where
    :func:`sign` works it out for each signature (a scalar multiplication, half of a
    signature's cost: a signer of many messages, such as a ladder's, keeps one of these)."""

    __slots__ = ("_prefix", "_scalar", "public")

    def __init__(self, secret: bytes) -> None:
        self._scalar, self._prefix = _expand(secret)
        self.public: bytes = _encode(_multiply(self._scalar, B))
        """The 32-byte public key (RFC 8032, 5.1.5)."""

    def sign(self, message: bytes) -> bytes:
        """The 64-byte signature of ``message`` (RFC 8032, 5.1.6): deterministic, as Ed25519
        is. Not constant-time (the module docstring says where that matters)."""
        r = int.from_bytes(hashlib.sha512(self._prefix + message).digest(), "little") % L
        big_r = _encode(_multiply(r, B))
        k = int.from_bytes(hashlib.sha512(big_r + self.public + message).digest(), "little") % L
        return big_r + ((r + k * self._scalar) % L).to_bytes(32, "little")


def sign(secret: bytes, message: bytes) -> bytes:
    """The 64-byte signature of ``message`` by the 32-byte ``secret`` key (RFC 8032, 5.1.6):
    :meth:`SigningKey.sign`, for one message."""
    return SigningKey(secret).sign(message)
