"""Speed's rank-fitting table (docs/games/speed.md#playing, docs/games/speed.md#variant-flags):
the rules read a top's row as "the ranks that fit on it", which holds because the rule is
symmetric."""

from __future__ import annotations

import itertools

import pytest

from cardcore.games.speed.rules import _FIT_TABLES, RANKS, rank_fits


@pytest.mark.parametrize(("wrap", "equal"), list(itertools.product((False, True), repeat=2)))
def test_the_fit_table_is_the_rule_and_symmetric(wrap: bool, equal: bool) -> None:
    table = _FIT_TABLES[wrap, equal]
    for rank, top in itertools.product(RANKS, RANKS):
        assert table[rank][top] is rank_fits(rank, top, wrap, equal)
        assert table[rank][top] is table[top][rank], (rank, top)
