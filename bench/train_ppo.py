"""Train a MaskablePPO policy on ``kaladan/Kaladan-v0`` and chart its win rate as it learns.

The agent plays one seat of a 2-player game (seat rotating by episode) against registry bots,
one token at a time under the legal mask; the reward is +1 / -1 at the end only. Every
``--eval-every`` timesteps the current policy plays ``--eval-games`` games against ``random``
and half as many against ``greedy`` (seats rotated, the same seeds at every evaluation) and
the win rates are recorded with Wilson 95% intervals. Stops at ``--minutes`` of wall-clock
time or ``--steps`` timesteps, whichever comes first, then evaluates once more.

    python bench/train_ppo.py --minutes 30                       # bench/results/ppo/
    python bench/train_ppo.py --opponents random,greedy --steps 200000 --out /tmp/ppo
    kaladan simulate --players ppo:path=bench/results/ppo/policy.zip,greedy --quick --seats rotate

Writes ``curve.csv``, ``curve.png`` and ``policy.zip`` (saved at every evaluation, with the
record of what it trained on that the ppo bot reads: ``kaladan.env.policy.save_policy``) in
``--out``.
Needs torch, sb3-contrib and matplotlib (``kaladan[train]``).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from kaladan.bots.registry import split_bot_list
from kaladan.env.gym_env import KaladanEnv
from kaladan.env.policy import predict_token, save_policy
from kaladan.sim.stats import wilson

FIELDS = ["timesteps", "minutes", "win_vs_random", "random_lo", "random_hi",
          "win_vs_greedy", "greedy_lo", "greedy_hi"]


def evaluate(model: Any, players: int, opponent: str, games: int, quick_setup: bool,
             seed: int) -> int:
    """Games won by the policy (deterministic) against ``opponent`` in the other seats; the
    policy's seat rotates, and the same ``seed`` gives the same games at every call."""
    env = KaladanEnv(players=players, opponents=[opponent], quick_setup=quick_setup)
    wins = 0
    obs, _ = env.reset(seed=seed)
    for game in range(games):
        if game:
            obs, _ = env.reset()  # no seed: the seat moves on (0, 1, 0, ...)
        while True:
            obs, reward, terminated, truncated, _ = env.step(
                predict_token(model, obs, env.action_masks()))
            if terminated or truncated:
                wins += reward > 0
                break
    return wins


class Trainer(BaseCallback):
    """Stops training at the time budget and evaluates every ``eval_every`` timesteps."""

    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        super().__init__()
        self.args = args
        self.out = out
        self.start = time.monotonic()
        self.eval_time = 0.0  # wall-clock seconds spent evaluating, not training
        self.next_eval = 0
        self.rows: list[dict[str, float]] = []
        with open(out / "curve.csv", "w", newline="") as f:
            csv.writer(f).writerow(FIELDS)

    def minutes(self) -> float:
        return (time.monotonic() - self.start) / 60

    def _on_training_start(self) -> None:
        self.evaluate()  # the untrained policy: where the curve starts
        self.next_eval = self.args.eval_every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.evaluate()
            self.next_eval += self.args.eval_every
        return self.minutes() < self.args.minutes

    def evaluate(self) -> None:
        began = time.monotonic()
        a = self.args
        row: dict[str, float] = {"timesteps": self.num_timesteps, "minutes": self.minutes()}
        text = []
        for opponent, games in (("random", a.eval_games), ("greedy", max(1, a.eval_games // 2))):
            wins = evaluate(self.model, a.players, opponent, games, a.quick_setup, a.seed + 1)
            lo, hi = wilson(wins, games)
            row |= {f"win_vs_{opponent}": wins / games, f"{opponent}_lo": lo,
                    f"{opponent}_hi": hi}
            text.append(f"vs {opponent} {wins}/{games} = {wins / games:.2f} [{lo:.2f}, {hi:.2f}]")
        self.rows.append(row)
        with open(self.out / "curve.csv", "a", newline="") as f:
            csv.DictWriter(f, FIELDS).writerow(
                {k: int(v) if k == "timesteps" else f"{v:.4f}" for k, v in row.items()})
        save_policy(self.model, self.out / "policy.zip")  # with what it trained on
        plot(self.rows, self.out / "curve.png")
        self.eval_time += time.monotonic() - began
        episodes = [e["r"] for e in self.model.ep_info_buffer or []]
        train = f"{np.mean(np.array(episodes) > 0):.2f}" if episodes else "-"
        print(f"{self.num_timesteps:>9} steps {row['minutes']:6.1f} min  training wins "
              f"(last {len(episodes)}) {train}  " + "  ".join(text), flush=True)


def plot(rows: list[dict[str, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    x = [r["timesteps"] for r in rows]
    for opponent, colour in (("random", "tab:blue"), ("greedy", "tab:red")):
        ax.plot(x, [r[f"win_vs_{opponent}"] for r in rows], color=colour, marker=".",
                label=f"vs {opponent}")
        ax.fill_between(x, [r[f"{opponent}_lo"] for r in rows],
                        [r[f"{opponent}_hi"] for r in rows], color=colour, alpha=0.2)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set(xlabel="timesteps (agent tokens)", ylabel="win rate (Wilson 95%)", ylim=(0, 1),
           title="MaskablePPO on kaladan/Kaladan-v0")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponents", default="random",
                   help="registry specs, comma-separated; training env i plays the i-th "
                        "(cycling) in every other seat")
    p.add_argument("--minutes", type=float, default=30.0, help="wall-clock budget")
    p.add_argument("--steps", type=int, default=None, help="max timesteps (default: no cap)")
    p.add_argument("--eval-every", type=int, default=20_000)
    p.add_argument("--eval-games", type=int, default=100,
                   help="games against random per evaluation (half as many against greedy)")
    p.add_argument("--out", type=Path, default=Path("bench/results/ppo"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick-setup", action=argparse.BooleanOptionalAction, default=True,
                   help="skip the setup decisions (realm, card, castle, start unit)")
    p.add_argument("--net", default="256,256", help="hidden sizes of policy and value nets")
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--n-steps", type=int, default=1024, help="rollout tokens per env")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    a = p.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(a.threads)
    specs = split_bot_list(a.opponents)

    def make_env(i: int) -> Any:
        return lambda: Monitor(KaladanEnv(players=a.players, opponents=[specs[i % len(specs)]],
                                          quick_setup=a.quick_setup))

    env = DummyVecEnv([make_env(i) for i in range(a.n_envs)])
    net = [int(h) for h in a.net.split(",")]
    batch = min(256, a.n_steps * a.n_envs)
    model = MaskablePPO("MlpPolicy", env, n_steps=a.n_steps, batch_size=batch, gamma=0.997,
                        gae_lambda=0.95, ent_coef=0.01, learning_rate=3e-4, n_epochs=10,
                        policy_kwargs={"net_arch": net}, seed=a.seed, device="cpu", verbose=0)
    print(f"MaskablePPO, {a.players} players, quick setup {'on' if a.quick_setup else 'off'}, "
          f"opponents {specs}, {a.n_envs} envs x {a.n_steps} steps, batch {batch}, net {net}, "
          f"{a.threads} thread(s); obs {env.observation_space.shape}, "
          f"actions {env.action_space.n}; budget {a.minutes} min"
          + (f" or {a.steps} steps" if a.steps else ""), flush=True)
    trainer = Trainer(a, a.out)
    model.learn(total_timesteps=a.steps or 10**12, callback=trainer)
    if trainer.rows[-1]["timesteps"] != model.num_timesteps:
        trainer.evaluate()  # the final policy
    train_seconds = trainer.minutes() * 60 - trainer.eval_time
    last = trainer.rows[-1]
    print(f"\n{model.num_timesteps} timesteps in {trainer.minutes():.1f} min "
          f"({model.num_timesteps / max(train_seconds, 1e-9):.0f} steps/s training, "
          f"{trainer.eval_time / 60:.1f} min evaluating)")
    for opponent in ("random", "greedy"):
        print(f"final win rate vs {opponent}: {last[f'win_vs_{opponent}']:.2f} "
              f"[{last[f'{opponent}_lo']:.2f}, {last[f'{opponent}_hi']:.2f}]")
    print(f"wrote {a.out / 'curve.csv'}, {a.out / 'curve.png'}, {a.out / 'policy.zip'}")


if __name__ == "__main__":
    main()
