"""Who is calling: the token book and the admin key. Authentication is written once, here.

Every game has one secret bearer token per human seat the creator holds, a spectator token, a
creator token (and a watch token when its table is public); a joiner gets its seat's token.
The server keeps only their SHA-256 digests (as the store does), each with its game and its
viewer (a seat number, ``spectator`` or ``creator``). The seat comes from the token, never from
the request. On a shared store (PostgreSQL) a token another server minted is looked up there
once and kept.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import Final

from cardcore.engine import Role, Viewer

from ..errors import Reason, ServiceError, Status
from ..signing import ServerKey
from ..store import EventStore, SharedStore, StoreError
from .outage import bounded, unavailable
from .requests import Gate, check_game_id, note

TOKEN_PREFIX: Final = "cct_"
INVITE_PREFIX: Final = "cci_"
MAX_TOKEN: Final = 128
"""No token this server mints is longer: a longer one is not looked up."""
CREATOR: Final = "creator"
"""The viewer of a creator token: may start and abort its table, sees what a spectator sees."""

Minter = Callable[[str], str]
"""What a creation mints by label: ``"game"`` (its id), ``"seat:N"``, ``"spectator"``,
``"creator"``, ``"watch"`` (tokens) and ``"invite:N"`` (invite codes)."""


def token_hash(token: str) -> str:
    """What the server keeps of a token or an invite code."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def parse_viewer(text: str) -> Viewer:
    """The viewer a token's viewer text names (the creator sees what a spectator sees)."""
    if text == CREATOR:
        return Role.SPECTATOR
    return Role(text) if not text.isdigit() else int(text)


class TokenBook:
    """The tokens of the games this server knows, by digest, and the admin key."""

    def __init__(
        self,
        store: EventStore,
        gate: Gate,
        admin_key: str | None,
        server_key: Callable[[], ServerKey | None],
    ) -> None:
        self._store = store
        self._shared = store if isinstance(store, SharedStore) else None
        self._gate = gate
        self._admin_key = admin_key
        self._server_key = server_key
        self._tokens: dict[str, tuple[str, str]] = {}
        self.known: set[str] = set()
        """The games this server knows exist: those it holds tokens of, has loaded or made."""

    async def load(self) -> None:
        """Every token the store holds (a shared store: the ones of this server's games)."""
        self._tokens = await self._store.tokens()
        self.known = {g for g, _ in self._tokens.values()}

    # ------------------------------------------------------------------ the book

    def remember(self, game_id: str, rows: list[tuple[str, str]]) -> None:
        """``(digest, viewer)`` rows of ``game_id``, just made durable."""
        for digest, viewer in rows:
            self._tokens[digest] = (game_id, viewer)
        self.known.add(game_id)

    def know(self, game_id: str) -> None:
        """``game_id`` exists (loaded, dealt here, or taken over from another server)."""
        self.known.add(game_id)

    def forget_game(self, game_id: str) -> None:
        """A game left the store (retention): its tokens are gone."""
        self.known.discard(game_id)
        for digest in [h for h, (g, _) in self._tokens.items() if g == game_id]:
            del self._tokens[digest]

    async def find(self, token: str) -> tuple[str, str] | None:
        """``(game_id, viewer text)`` of a token, or None."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > MAX_TOKEN:
            return None
        digest = token_hash(token)
        found = self._tokens.get(digest)
        if found is None and self._shared is not None:
            found = await bounded(self._shared_token(digest))
        return found

    async def _shared_token(self, digest: str) -> tuple[str, str] | None:
        """A token of a game another process created (kept once found)."""
        assert self._shared is not None
        try:
            found = await self._shared.find_token(digest)
        except StoreError:
            raise unavailable("the store could not be read") from None
        if found is not None:
            self._tokens[digest] = found
            self.known.add(found[0])
        return found

    async def authenticate(self, token: str | None, game_id: str, *, known: bool = False) -> str:
        """The viewer text of ``token``, which must be a token of ``game_id`` (``known``: a
        game this server does not know is ``GameNotFound`` before the token's game is
        compared)."""
        self._gate.check_open()
        if not token:
            raise ServiceError(
                Status.UNAUTHENTICATED, Reason.MISSING_TOKEN, "send `authorization: Bearer <token>`"
            )
        found = await self.find(token)
        if found is None:
            raise ServiceError(Status.UNAUTHENTICATED, Reason.INVALID_TOKEN, "unknown token")
        check_game_id(game_id)
        if known and game_id not in self.known:
            raise ServiceError(Status.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such game")
        if found[0] != game_id:
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.WRONG_GAME, "the token is for another game"
            )
        note(game_id=game_id, seat=found[1])
        return found[1]

    # ------------------------------------------------------------------ the admin key

    def admin_key_matches(self, given: str) -> bool:
        """``given`` is this server's admin key (none: no key matches)."""
        required = self._admin_key
        return required is not None and hmac.compare_digest(given.encode(), required.encode())

    def check_may_create(self, admin_key: str | None) -> None:
        """Creating a game needs the admin key on a server that has one."""
        if self._admin_key is None:
            return
        if not admin_key:
            raise ServiceError(
                Status.UNAUTHENTICATED,
                Reason.ADMIN_KEY_REQUIRED,
                "creating games needs the admin key",
            )
        if not self.admin_key_matches(admin_key):
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.ADMIN_KEY_REQUIRED, "wrong admin key"
            )

    # ------------------------------------------------------------------ minting

    def scope(self, admin_key: str | None, credential: str | None) -> str:
        """Whose idempotency key it is: a digest of the caller's credentials (the admin key,
        on a server that has one, and the caller's own), or "" for a caller with none. Keys of
        different scopes never meet: the same key sent by another caller makes another game,
        and tells nothing of this one."""
        parts = []
        if self._admin_key is not None and admin_key:
            parts.append("admin:" + admin_key)
        if credential:
            parts.append("own:" + credential)
        if not parts:
            return ""
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def minter(self, key: str = "", scope: str = "") -> Minter:
        """Tokens, invites and the game id of a creation: random, or — with an idempotency
        key — derived from it and its caller's ``scope`` under a secret of this server's
        (:meth:`.signing.ServerKey.derive`), so a retry mints exactly the same ones (and
        nothing new is stored)."""
        server_key = self._server_key()
        if not key or server_key is None:
            return _random
        # A key has no "|" (check_idempotency_key), so no key of one scope spells another's.
        base = f"create|{scope}|{key}" if scope else f"create|{key}"

        def derived(label: str) -> str:
            raw = server_key.derive(f"{base}|{label}")
            text = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            if label == "game":
                return raw.hex()
            if label.startswith("invite"):
                return INVITE_PREFIX + text[:32]
            return TOKEN_PREFIX + text

        return derived


def _random(label: str) -> str:
    if label.startswith("invite"):
        return INVITE_PREFIX + secrets.token_urlsafe(24)
    return new_token()
