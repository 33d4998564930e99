"""The ladder's chart, ``ratings.png`` (matplotlib, Agg backend: no display needed).

Left: each bot's ordinal (μ − 3σ) after every game rated, in the schedule's order — where the
ratings settled, and how fast. Right: the final μ of each bot with ±3σ as error bars, best
first — how far apart the bots are against how sure the model is.

matplotlib is the optional extra ``cardcore[ladder]``, imported only when a chart is drawn.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import CardcoreError
from .ratings import INSTALL_HINT


def _pyplot() -> Any:
    try:
        import matplotlib  # noqa: PLC0415 - the optional extra

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        raise CardcoreError(INSTALL_HINT) from None
    return plt


def check() -> None:
    """Raise :class:`~cardcore.errors.CardcoreError` now if matplotlib is missing (a ladder
    asks before its games, not after)."""
    _pyplot()


def draw(
    results: Mapping[str, Any],
    trajectory: Sequence[Mapping[str, tuple[float, float]]],
    played: Sequence[str] = (),
) -> bytes:
    """The PNG's bytes for ``results`` (:meth:`Ratings.results`), the ratings after each game
    (:attr:`Ratings.trajectory`) and what each game was (:attr:`Ratings.played`: a dotted
    line marks where each round starts)."""
    plt = _pyplot()
    names = [row["bot"] for row in results["table"]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), width_ratios=(3, 2))
    games = range(len(trajectory))
    for name in names:
        left.plot(
            games, [mu - 3 * sigma for mu, sigma in (t[name] for t in trajectory)], label=name
        )
    blocks = _blocks(played)
    for start, label in blocks if len(blocks) > 1 else []:
        left.axvline(start, color="grey", linestyle=":", linewidth=0.8)
        left.annotate(
            label,
            (start, 1),
            xycoords=("data", "axes fraction"),
            xytext=(3, -12),
            textcoords="offset points",
            fontsize="x-small",
            color="grey",
        )
    left.set_xlabel("games rated, in the schedule's order")
    left.set_ylabel("ordinal (μ − 3σ)")
    left.set_title("Ordinal after each game")
    left.grid(alpha=0.3)
    left.legend(loc="best", fontsize="small")
    rows = list(results["table"])
    ys = range(len(rows))[::-1]
    right.errorbar(
        [r["mu"] for r in rows],
        list(ys),
        xerr=[3 * r["sigma"] for r in rows],
        fmt="o",
        capsize=4,
        label="μ ± 3σ (left end: the ordinal)",
    )
    for r, y in zip(rows, ys, strict=True):
        right.annotate(
            f"{r['ordinal']:.1f}",
            (r["ordinal"], y),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            fontsize="x-small",
        )
    right.set_yticks(list(ys), [r["bot"] for r in rows])
    right.set_xlabel("rating")
    right.set_title("Final rating, best first")
    right.grid(alpha=0.3, axis="x")
    right.legend(loc="lower right", fontsize="small")
    ladder = results["ladder"]
    fig.suptitle(
        f"{', '.join(ladder['games'])}: {results['games']} games, {ladder['schedule']}, "
        f"reaction {ladder['reaction']}",
        fontsize="medium",
    )
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    return out.getvalue()


def _blocks(played: Sequence[str]) -> list[tuple[int, str]]:
    """Where each run of equal labels starts (x = games rated before it)."""
    return [(i, label) for i, label in enumerate(played) if i == 0 or played[i - 1] != label]
