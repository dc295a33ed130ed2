"""Writes configs/data/arena_votes.csv, the preference votes of configs/arena.yaml: synthetic and seeded.

Ten chat models with Davidson strengths (log-abilities) spread over about 2.5 log units, two pairs close
enough that their intervals overlap; 600 prompts (items), each voted on by 4 to 8 judges (people and one LLM
judge), 3,664 votes in all with ties (Davidson's nu = 0.4). Each prompt shifts the strengths a little
(prompt-level noise shared by its votes), so resampling prompts gives wider intervals than resampling votes.
Run from the repository: python configs/data/make_arena.py
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
MODELS = ("atlas-70b", "borealis-34b", "cirrus-13b", "delta-8b", "ember-8b", "fjord-7b", "glacier-3b", "harbor-3b",
          "isle-1b", "juniper-1b")
STRENGTH = (1.2, 1.1, 0.7, 0.35, 0.3, 0.0, -0.3, -0.6, -0.9, -1.3)
JUDGES = ("human-1", "human-2", "human-3", "human-4", "llm-judge")


def main(n_prompts: int = 600, nu: float = 0.4, seed: int = 31) -> None:
    rng = np.random.default_rng(seed)
    s = np.array(STRENGTH)
    k = len(MODELS)
    rows = []
    for p in range(n_prompts):
        shift = rng.normal(0, 0.35, k)  # the prompt's own taste, shared by its votes
        for _ in range(int(rng.integers(4, 9))):
            a, b = rng.choice(k, 2, replace=False)
            u = (s[a] + shift[a] - s[b] - shift[b]) / 2
            z = 2 * np.cosh(u) + nu
            r = rng.random()
            winner = "a" if r < np.exp(u) / z else "tie" if r < (np.exp(u) + nu) / z else "b"
            rows.append((f"p{p:04d}", MODELS[a], MODELS[b], winner, JUDGES[int(rng.integers(len(JUDGES)))]))
    with open(HERE / "arena_votes.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("prompt", "model_a", "model_b", "winner", "judge"))
        w.writerows(rows)


if __name__ == "__main__":
    main()
