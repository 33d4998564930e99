"""The ladder (docs/ladder.md): ``cardcore ladder run`` plays a schedule of duplicate deals with
every game signed, and ``cardcore ladder verify`` recomputes the table from the logs alone and
refuses a ladder with anything changed, naming what."""

from __future__ import annotations

import io
import json
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardcore import ed25519
from cardcore.arena.ladder_files import log_path, signed_manifest
from cardcore.arena.ladder_verify import LadderRefused, first_difference, verify_ladder
from cardcore.arena.ratings import ranks_of
from cardcore.arena.schedule import LadderConfig, Planner, deal_seed, default_rounds, swiss
from cardcore.cli import main
from cardcore.engine import Outcome, Termination
from cardcore.signatures import unb64

ROOT = Path(__file__).resolve().parents[2]
BOTS = [
    "--bot", "random=cardcore.bots:RandomBot",
    "--bot", "reaction=cardcore.bots:ReactionBot",
    "--bot", "slow=cardcore.arena.ladder_bots:SlowBot",
]  # fmt: skip
SMALL = ["--game", "ers", "--game", "palace", *BOTS, "--deals", "1", "--seed", "11", "--quiet"]
"""3 bots x 2 games x 1 deal x 2 seatings: 12 games."""


def cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out)
    return code, out.getvalue()


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The small ladder, played with two worker processes."""
    root = tmp_path_factory.mktemp("ladder") / "run"
    code, text = cli("ladder", "run", *SMALL, "--jobs", "2", "--out", str(root))
    assert code == 0, text
    yield root


@pytest.fixture
def copy(ladder: Path, tmp_path: Path) -> Path:
    """A copy of the ladder to tamper with."""
    return Path(shutil.copytree(ladder, tmp_path / "copy"))


def refusal(root: Path) -> str:
    code, text = cli("ladder", "verify", str(root))
    assert code == 1 and text.startswith("REFUSED: "), text
    return text


def test_a_ladder_writes_its_table_chart_logs_and_key(ladder: Path) -> None:
    results = json.loads((ladder / "results.json").read_text())
    assert results["games"] == 12 and len(list((ladder / "games").iterdir())) == 12
    table = results["table"]
    assert [r["rank"] for r in table] == [1, 2, 3]
    assert sorted(r["bot"] for r in table) == ["random", "reaction", "slow"]
    assert all(r["games"] == 8 and r["ordinal"] == r["mu"] - 3 * r["sigma"] for r in table)
    assert [r["ordinal"] for r in table] == sorted((r["ordinal"] for r in table), reverse=True)
    assert table[-1]["bot"] == "random"  # false slaps and random cards: last
    for game in ("ratscrew", "palace"):
        h2h = results["head_to_head"][game]
        for a in h2h:
            for b, met in h2h[a].items():  # each pair met on 1 deal x 2 seatings
                assert met["games"] == 2 and met["wins"] + h2h[b][a]["wins"] <= 2
        assert sum(r["by_game"][game]["wins"] for r in table) == sum(
            met["wins"] for row in h2h.values() for met in row.values()
        )
    md = (ladder / "results.md").read_text()
    assert "| rank | bot | ordinal (μ − 3σ) |" in md and "ratscrew win rate" in md
    assert (ladder / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    key = ladder / "ladder.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    public = unb64((ladder / "ladder.pub").read_text().strip())
    assert ed25519.public_key(unb64(key.read_text().strip())) == public
    header = json.loads(log_path(ladder, "palace-r1-d1-slow-reaction").read_text().split("\n")[0])
    assert header["game_id"] == "palace-r1-d1-slow-reaction" and "signature" in header


def test_verify_recomputes_the_table(ladder: Path) -> None:
    code, text = cli("ladder", "verify", str(ladder))
    assert code == 0, text
    assert text.startswith("verified: 12 games, 12 logs verified with key ")
    assert "(24 log signatures and the manifest's), schedule recomputed, ratings identical" in text
    pub = (ladder / "ladder.pub").read_text().strip()
    assert cli("ladder", "verify", str(ladder), "--key", pub)[0] == 0
    other = ed25519.public_key(bytes(32)).hex()
    code, text = cli("ladder", "verify", str(ladder), "--key", other, "--json")
    assert code == 1 and "not signed by the key" in json.loads(text)["text"]


def test_one_changed_byte_in_a_log_is_refused_naming_the_game(copy: Path) -> None:
    path = log_path(copy, "ratscrew-r1-d1-reaction-slow")
    data = bytearray(path.read_bytes())
    at = data.index(b'"at_ms":', len(data) // 2) + len(b'"at_ms":')
    data[at] = ord("1") if data[at] != ord("1") else ord("2")
    path.write_bytes(bytes(data))
    text = refusal(copy)
    assert "games/ratscrew-r1-d1-reaction-slow.log (game ratscrew-r1-d1-reaction-slow)" in text
    assert "invalid log" in text


def test_a_log_in_another_games_place_is_refused(copy: Path) -> None:
    a = log_path(copy, "palace-r1-d1-random-slow")
    b = log_path(copy, "palace-r1-d1-slow-random")
    a_bytes = a.read_bytes()
    a.write_bytes(b.read_bytes())
    b.write_bytes(a_bytes)
    text = refusal(copy)
    assert "its signed header is game 'palace-r1-d1-slow-random', not" in text


def test_a_valid_log_of_another_run_with_the_same_key_is_refused(
    ladder: Path, copy: Path, tmp_path: Path
) -> None:
    """Same key, same seed, same game id, another reaction model: the log verifies on its own,
    but it is not the one the manifest signed."""
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(ladder / "ladder.key", other / "ladder.key")
    code, _ = cli("ladder", "run", *SMALL, "--reaction", "uniform:0-50", "--out", str(other))
    assert code == 0
    game = "ratscrew-r1-d1-random-reaction"
    assert log_path(other, game).read_bytes() != log_path(copy, game).read_bytes()
    shutil.copy(log_path(other, game), log_path(copy, game))
    text = refusal(copy)
    assert f"not the log the manifest signed for game {game}" in text


def test_a_changed_rating_in_results_json_is_refused_naming_the_field(copy: Path) -> None:
    path = copy / "results.json"
    results = json.loads(path.read_text())
    results["table"][1]["mu"] += 1e-9
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    text = refusal(copy)
    assert "results.json differs from the table recomputed from the logs: table[1].mu is " in text


def test_a_manifest_changed_and_signed_again_must_still_follow_the_schedule(copy: Path) -> None:
    """Whoever holds the key can sign anything; the schedule it claims must still be the one
    its configuration calls for."""
    doc = json.loads((copy / "manifest.json").read_text())
    body = doc["body"]
    body["games"][0], body["games"][1] = body["games"][1], body["games"][0]
    secret = unb64((copy / "ladder.key").read_text().strip())
    (copy / "manifest.json").write_bytes(signed_manifest(body, secret))
    text = refusal(copy)
    assert "manifest.json: games[0].id is" in text
    doc["signature"]["sig"] = doc["signature"]["sig"][::-1]
    (copy / "manifest.json").write_text(json.dumps(doc))
    assert "manifest.json" in refusal(copy)


def test_the_same_ladder_gives_the_same_results_with_any_jobs(ladder: Path, tmp_path: Path) -> None:
    """Ratings follow the schedule's order, never the workers': --jobs 1 and --jobs 2 (the
    fixture) give byte-identical results (another key, so other signatures in the logs)."""
    code, _ = cli("ladder", "run", *SMALL, "--jobs", "1", "--out", str(tmp_path / "one"))
    assert code == 0
    assert (tmp_path / "one" / "results.json").read_bytes() == (
        ladder / "results.json"
    ).read_bytes()
    assert (tmp_path / "one" / "results.md").read_bytes() == (ladder / "results.md").read_bytes()


def test_a_swiss_ladder_with_a_bye_verifies(tmp_path: Path) -> None:
    root = tmp_path / "swiss"
    code, text = cli(
        "ladder", "run", "--game", "slapjack", *BOTS, "--deals", "1", "--schedule", "swiss",
        "--rounds", "3", "--quiet", "--out", str(root),
    )  # fmt: skip
    assert code == 0, text
    rounds = json.loads((root / "results.json").read_text())["rounds"]
    assert [r["bye"] for r in rounds] == ["slow", *[r["bye"] for r in rounds[1:]]]
    assert len({r["bye"] for r in rounds}) == 3, "each bot sits out once in three rounds"
    assert all(len(r["pairings"]) == 1 for r in rounds)
    assert cli("ladder", "verify", str(root))[0] == 0


def test_bots_in_other_programs_take_seats_and_their_faults_are_signed(tmp_path: Path) -> None:
    """A protocol bot plays; one that crashes mid-game is forfeited, the game goes on, and the
    referee's fault is in the signed manifest (its stderr in bot-stderr/)."""
    root = tmp_path / "cmd"
    bots = ROOT / "examples" / "bots"
    code, text = cli(
        "ladder", "run", "--game", "palace", "--bot", "reaction=reaction",
        "--bot", f"program=cmd:{sys.executable} {bots / 'random_bot.py'}",
        "--bot", f"crash=cmd:{sys.executable} {bots / 'crash_bot.py'} 3",
        "--deals", "1", "--quiet", "--out", str(root),
    )  # fmt: skip
    assert code == 0, text
    games = json.loads((root / "manifest.json").read_text())["body"]["games"]
    assert [g["seats"] for g in games[:2]] == [["reaction", "program"], ["program", "reaction"]]
    faults = [(g["seats"][f["seat"]], f["kind"], f["action"]) for g in games for f in g["faults"]]
    assert faults == [("crash", "crash", "forfeit")] * 4, faults
    assert all(not g["faults"] for g in games if "crash" not in g["seats"])
    code, text = cli("ladder", "verify", str(root))
    assert code == 0 and "(4 referee faults listed, signed, not recomputable)" in text, text
    assert (root / "bot-stderr" / "palace-r1-d1-reaction-program.txt").is_file()


def test_usage_errors_name_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x")
    for bots, words in [
        (["--bot", "a-b=random", "--bot", "c=random"], "bot name 'a-b'"),
        (["--bot", "a=random", "--bot", "a=reaction"], "each name once"),
        (["--bot", "a"], "NAME=SPEC"),
    ]:
        assert cli("ladder", "run", "--game", "ers", *bots, "--out", out)[0] == 2
        assert words in capsys.readouterr().err
    code, _ = cli("ladder", "run", "--game", "ers", "--bot", "a=random", "--bot", "b=random",
                  "--reaction", "slowish", "--out", out)  # fmt: skip
    assert code == 2 and "reaction model" in capsys.readouterr().err


def test_a_spec_that_names_nothing_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for spec, words in [
        ("cardcore.bots:NoSuchBot", "cardcore.bots has no class 'NoSuchBot'"),
        ("cmd:no-such-program-here --x", "no program 'no-such-program-here' found"),
    ]:
        argv = ["--game", "ers", "--bot", "a=random", "--bot", f"b={spec}"]
        assert cli("ladder", "run", *argv, "--out", str(tmp_path / "x"))[0] == 2
        err = capsys.readouterr().err
        assert f"bot 'b' ({spec}): " in err and words in err
        assert not (tmp_path / "x").exists()


def test_without_the_extra_the_ladder_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    openskill_models = sys.modules["openskill.models"]
    monkeypatch.setitem(sys.modules, "openskill.models", None)  # import fails
    argv = ["--game", "ers", "--bot", "a=random", "--bot", "b=random", "--quiet"]
    assert cli("ladder", "run", *argv, "--out", str(tmp_path / "x"))[0] == 2
    assert "pip install 'cardcore[ladder]'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists(), "refused before the directory is made"
    monkeypatch.setitem(sys.modules, "openskill.models", openskill_models)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # the chart's, asked first too
    assert cli("ladder", "run", *argv, "--out", str(tmp_path / "x"))[0] == 2
    assert "pip install 'cardcore[ladder]'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_directory_that_holds_a_ladder_is_not_overwritten(
    ladder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = cli("ladder", "run", *SMALL, "--out", str(ladder))
    assert code == 2 and "already holds a ladder" in capsys.readouterr().err


# --------------------------------------------------------------------------- the parts


def test_a_palace_outcome_ranks_its_first_finisher_and_a_draw_ties() -> None:
    out = Termination.OUT_OF_CARDS
    assert ranks_of(Outcome(out, (1,), (0,)), 2) == [1, 0]
    assert ranks_of(Outcome(out, (2, 0), (1,)), 3) == [1, 1, 0]  # Palace: the first finisher
    assert ranks_of(Outcome(Termination.ALL_CARDS, (0,)), 2) == [0, 1]
    assert ranks_of(Outcome(Termination.ABORTED), 2) == [0, 0]
    assert ranks_of(None, 2) == [0, 0]


def test_duplicate_deals_are_shared_by_every_pairing_and_differ_by_deal() -> None:
    config = LadderConfig(
        ("ratscrew",), (("a", "random"), ("b", "random"), ("c", "random")),
        2, "round-robin", 1, "human", 5,
    )  # fmt: skip
    _, _, games = Planner(config).round(1, {})
    assert len(games) == 3 * 2 * 2
    seeds = {(g.deal, g.deal_seed) for g in games}
    assert seeds == {(1, deal_seed(5, "ratscrew", 1, 1)), (2, deal_seed(5, "ratscrew", 1, 2))}
    assert [g.seats for g in games[:4]] == [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a")]
    assert [g.deal for g in games] == [1] * 6 + [2] * 6
    assert len({g.id for g in games}) == len(games)
    assert deal_seed(5, "ratscrew", 1, 1) != deal_seed(5, "palace", 1, 1)


def test_swiss_pairs_by_standing_avoids_rematches_and_rotates_the_bye() -> None:
    names = ["a", "b", "c", "d", "e"]
    ordinals = {"a": 1.0, "b": 5.0, "c": 3.0, "d": 4.0, "e": 2.0}
    pairs, bye = swiss(names, ordinals, {}, {})
    assert pairs == [("b", "d"), ("c", "e")] and bye == "a"
    met = {frozenset(("b", "d")): 1}
    pairs, bye = swiss(names, ordinals, met, {"a": 1})
    assert pairs == [("b", "c"), ("d", "a")] and bye == "e"
    assert default_rounds("swiss", 5) == 3 and default_rounds("round-robin", 5) == 1


def test_first_difference_names_the_field() -> None:
    assert (
        first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]})
        == "a[1].b is 2 in the file, 3 recomputed"
    )
    assert first_difference({"a": 1}, {"a": 1.0}) == "a is 1 in the file, 1.0 recomputed"
    assert first_difference({"a": 1}, {}) == "a is only in the file"
    assert first_difference({"a": 1}, {"a": 1}).endswith(
        "only in its spelling (whitespace, key order or number format)"
    )


def test_verify_of_a_directory_without_a_ladder_says_so(tmp_path: Path) -> None:
    with pytest.raises(LadderRefused, match=r"ladder\.pub"):
        verify_ladder(tmp_path)
