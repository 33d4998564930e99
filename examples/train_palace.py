"""Train a maskable agent on Palace with cardcore's PettingZoo environment: plain NumPy, no deep
learning framework, on one core (3,000 games: about 20 minutes on a slow machine).

    pip install '.[rl,ladder]'   # from a clone: gymnasium, pettingzoo, numpy; matplotlib
    python examples/train_palace.py [--episodes 3000] [--seed 1] [--png palace-learning.png]

The agent is a small policy network (one hidden layer of 64 tanh units) over the seat's
observation (``obs["observation"]``, scaled by the layout's bounds), whose softmax is taken over
the legal actions only (``obs["action_mask"]``): an illegal action gets probability 0, so the
agent never has to learn the rules, only the play. It learns by REINFORCE with a running-mean
baseline from the game's one reward (+1 for a win, -1 for a loss), against an opponent that
plays uniformly at random among its legal actions, taking seat 0 and seat 1 in turn.

Every ``--eval-every`` episodes it plays ``--eval-games`` games against the same random opponent
with its current policy (no learning, sampled actions, fixed seeds), and the win rates are drawn
as the learning curve (docs/rl.md shows it). Everything is seeded: the same arguments give the
same curve.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure  # the object API: no pyplot, no display, no backend to pick

import cardcore.rl

GAME = "palace"
EVENT_LIMIT = 4000


@dataclass
class Policy:
    """A masked softmax policy: ``x -> tanh(W1 x + b1) -> W2 h + b2``, logits of illegal actions
    set to -inf; trained with Adam."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    lr: float = 3e-3
    _m: list[np.ndarray] = field(default_factory=list)
    _v: list[np.ndarray] = field(default_factory=list)
    _t: int = 0

    @classmethod
    def new(cls, n_in: int, n_out: int, rng: np.random.Generator, hidden: int = 64) -> Policy:
        return cls(
            rng.normal(0, 1 / np.sqrt(n_in), (hidden, n_in)),
            np.zeros(hidden),
            rng.normal(0, 0.01, (n_out, hidden)),
            np.zeros(n_out),
        )

    @property
    def params(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.w2, self.b2]

    def probs(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.tanh(self.w1 @ x + self.b1)
        logits = self.w2 @ h + self.b2
        logits = np.where(mask, logits, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum(), h

    def grads(self, steps: list[tuple[np.ndarray, np.ndarray, int]], advantage: float) -> list[Any]:
        """The gradient of ``advantage * sum(log pi(a | x))`` over one episode's decisions,
        all of them at once (one matrix product per layer)."""
        xs = np.array([x for x, _, _ in steps])
        masks = np.array([m for _, m, _ in steps])
        actions = np.array([a for _, _, a in steps])
        h = np.tanh(xs @ self.w1.T + self.b1)
        logits = np.where(masks, h @ self.w2.T + self.b2, -np.inf)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        dlogits = -p
        dlogits[np.arange(len(actions)), actions] += 1.0  # d log softmax(a) / d logits
        dlogits *= advantage
        dh = (dlogits @ self.w2) * (1 - h * h)
        return [dh.T @ xs, dh.sum(axis=0), dlogits.T @ h, dlogits.sum(axis=0)]

    def ascend(self, grads: list[np.ndarray]) -> None:
        """One Adam step up the gradient."""
        if not self._m:
            self._m = [np.zeros_like(p) for p in self.params]
            self._v = [np.zeros_like(p) for p in self.params]
        self._t += 1
        for p, g, m, v in zip(self.params, grads, self._m, self._v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p += self.lr * (m / (1 - 0.9**self._t)) / (np.sqrt(v / (1 - 0.999**self._t)) + 1e-8)


def play(
    env: Any,
    policy: Policy,
    learner: str,
    seed: int,
    *,
    rng: np.random.Generator,
    scale: np.ndarray,
) -> tuple[float, list[tuple[np.ndarray, np.ndarray, int]]]:
    """One game: the learner's reward and its decisions ``(x, mask, action)``."""
    env.reset(seed=seed)
    steps: list[tuple[np.ndarray, np.ndarray, int]] = []
    reward = 0.0
    for agent in env.agent_iter():
        obs, rew, terminated, truncated, _ = env.last()
        if agent == learner:
            reward = float(rew) if (terminated or truncated) else reward
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        if agent == learner:
            x = obs["observation"] / scale
            p, _ = policy.probs(x, mask)
            action = min(int(np.searchsorted(np.cumsum(p), rng.random())), len(p) - 1)
            action = action if mask[action] else int(np.flatnonzero(mask)[-1])  # rounding
            steps.append((x, mask, action))
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
    return reward, steps


def evaluate(env: Any, policy: Policy, games: int, scale: np.ndarray, seed: int) -> float:
    """The policy's win rate against the random opponent over ``games`` fixed deals."""
    rng = np.random.default_rng(seed)
    wins = 0
    for g in range(games):
        learner = env.possible_agents[g % 2]
        reward, _ = play(env, policy, learner, 10_000_000 + g, rng=rng, scale=scale)
        wins += reward > 0
    return wins / games


def train(episodes: int, seed: int, batch: int, eval_every: int, eval_games: int) -> list[Any]:
    # A game that has not ended after EVENT_LIMIT events is cut short (reward 0 for both): a
    # few random games run to thousands of turns, and they teach nothing but cost the most.
    env = cardcore.rl.env(GAME, seats=2, event_limit=EVENT_LIMIT)
    env.reset(seed=seed)
    space = env.observation_space(env.possible_agents[0])["observation"]
    scale = np.maximum(space.high.astype(float), 1.0)
    n_actions = int(env.action_space(env.possible_agents[0]).n)
    rng = np.random.default_rng(seed)
    policy = Policy.new(len(scale), n_actions, rng)
    baseline, pending, curve = 0.0, [], []
    curve.append((0, evaluate(env, policy, eval_games, scale, seed)))
    for episode in range(1, episodes + 1):
        learner = env.possible_agents[episode % 2]
        reward, steps = play(env, policy, learner, seed * 1_000_003 + episode, rng=rng, scale=scale)
        pending.append(policy.grads(steps, reward - baseline))
        baseline += 0.01 * (reward - baseline)
        if len(pending) == batch:
            policy.ascend([sum(gs) / batch for gs in zip(*pending, strict=True)])
            pending = []
        if episode % eval_every == 0:
            curve.append((episode, evaluate(env, policy, eval_games, scale, seed)))
            print(f"episode {episode}: win rate {curve[-1][1]:.3f} against random", flush=True)
    return curve


def draw(curve: list[Any], eval_games: int, png: Path) -> None:
    xs, ys = zip(*curve, strict=True)
    half = [1.96 * np.sqrt(y * (1 - y) / eval_games) for y in ys]
    fig = Figure(figsize=(6.4, 3.6), dpi=100)
    ax = fig.subplots()
    ax.errorbar(xs, ys, yerr=half, marker="o", capsize=3)
    ax.axhline(0.5, color="grey", linestyle=":", label="even with the random opponent")
    ax.set(xlabel="training games", ylabel=f"win rate ({eval_games} games)", ylim=(0.3, 1.0))
    ax.set_title("Palace, 2 seats: a masked policy gradient agent against random play")
    ax.legend(loc="lower right")
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, metadata={"Software": None})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--eval-every", type=int, default=500)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--png", type=Path, default=Path("palace-learning.png"))
    parser.add_argument("--json", type=Path, help="write the curve as JSON too")
    args = parser.parse_args()
    curve = train(args.episodes, args.seed, args.batch, args.eval_every, args.eval_games)
    draw(curve, args.eval_games, args.png)
    if args.json:
        args.json.write_text(json.dumps({"curve": curve, "args": vars(args)}, default=str) + "\n")
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
