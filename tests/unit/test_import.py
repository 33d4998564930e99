"""``import cardcore`` is lazy: it loads no game module (and no other cardcore module but the
version) until a game or a public name is first used, and the registry's hand-written name table
agrees with the games themselves.

Each check runs in a fresh interpreter: in this one, other tests have long since imported every
game, so ``sys.modules`` here proves nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cardcore import registry


def fresh(code: str) -> list[str]:
    """Run ``code`` in a new interpreter; it ends with the cardcore modules then loaded."""
    probe = (
        f"{code}\nimport json, sys\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'cardcore')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return list(json.loads(out.stdout.splitlines()[-1]))


def games_in(modules: list[str]) -> list[str]:
    """The games among ``modules``: a game package's modules (cardcore.games.spit.rules) count as
    their game, once."""
    games = {".".join(m.split(".")[:3]) for m in modules if m.startswith("cardcore.games.")}
    return sorted(games)


def test_import_cardcore_loads_no_game_module() -> None:
    loaded = fresh("import cardcore")
    assert games_in(loaded) == []
    # Nor any of the core: the public names are imported on first access.
    assert loaded == ["cardcore", "cardcore.version"]


def test_get_game_loads_only_that_game() -> None:
    loaded = fresh("import cardcore\nassert cardcore.get_game('ers').name == 'ratscrew'")
    assert games_in(loaded) == ["cardcore.games.ratscrew"]
    loaded = fresh("from cardcore.registry import get_game\nget_game('Shithead')")
    assert games_in(loaded) == ["cardcore.games.palace"]


def test_an_unknown_game_loads_none() -> None:
    loaded = fresh(
        "import cardcore\n"
        "try:\n    cardcore.get_game('poker')\n"
        "except cardcore.UnknownGame as e:\n    assert 'ratscrew, slapjack' in str(e)\n"
        "else:\n    raise SystemExit('no error')"
    )
    assert games_in(loaded) == []


def test_public_names_load_their_module_but_no_game() -> None:
    loaded = fresh("from cardcore import Match, Card, Rejected, Setup")
    assert games_in(loaded) == []
    assert "cardcore.match" in loaded


def test_games_loads_every_game_in_catalogue_order() -> None:
    code = (
        "import cardcore\n"
        "names = [g.name for g in cardcore.GAMES]\n"
        "assert names == ['ratscrew', 'slapjack', 'palace', 'spit', 'speed'], names\n"
        "assert type(cardcore.GAMES) is tuple\n"
        "from cardcore.registry import GAMES\n"
        "assert GAMES is cardcore.GAMES"
    )
    assert games_in(fresh(code)) == [
        f"cardcore.games.{m}" for m in ("palace", "ratscrew", "slapjack", "speed", "spit")
    ]


def test_the_name_table_matches_the_games() -> None:
    games = registry.GAMES
    assert tuple(g.name for g in games) == registry._NAMES
    assert tuple(type(g).__module__ for g in games) == ("cardcore.engine",) * len(games)
    table = {
        name: module
        for g, module in zip(games, registry._MODULES, strict=True)
        for name in (g.info.name, *g.info.aliases)
    }
    assert table == registry._MODULE_OF
    for g, module in zip(games, registry._MODULES, strict=True):
        assert sys.modules[f"cardcore.games.{module}"].GAME is g
        for name in (g.info.name, *g.info.aliases):
            assert registry.get_game(name) is g
            assert registry.get_game(name.upper()) is g


def test_public_names_still_resolve() -> None:
    import cardcore

    for name in cardcore.__all__:
        assert getattr(cardcore, name) is not None
    assert set(cardcore.__all__) <= set(dir(cardcore))
    assert cardcore.GAMES is registry.GAMES
    assert cardcore.get_game is registry.get_game
    with pytest.raises(AttributeError):
        _ = cardcore.no_such_name  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        _ = registry.no_such_name  # type: ignore[attr-defined]
