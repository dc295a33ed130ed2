"""Generate configs/data/leaderboard.csv: a synthetic 24-model leaderboard (run once; output committed).

Twenty-four models answer the same 400 questions of one benchmark; a model's answer is right (1) or wrong
(0) with probability sigmoid(ability - difficulty) (a Rasch model: the questions' difficulty is shared by
every model, so the scores are paired, as real per-item scores are). Abilities come in clusters, so that
some neighbours in the ranking are separable and many are not, as on public leaderboards.
"""

import csv
from pathlib import Path

import numpy as np

rng = np.random.default_rng(3136)
clusters = [(2.2, 3), (1.6, 5), (1.1, 6), (0.5, 6), (-0.3, 4)]  # (ability, models) of each cluster
abilities = np.concatenate([a + rng.normal(0, 0.08, k) for a, k in clusters])
names = [f"model-{chr(ord('a') + i)}" for i in range(len(abilities))]
order = rng.permutation(len(names))  # the table order is not the ranking
n_items = 400
difficulty = rng.normal(0.4, 1.3, n_items)
rows = []
for i in order:
    p = 1 / (1 + np.exp(-(abilities[i] - difficulty)))
    correct = (rng.random(n_items) < p).astype(int)
    rows += [(names[i], "bench", f"q{j + 1:03d}", "accuracy", int(correct[j])) for j in range(n_items)]
out = Path(__file__).with_name("leaderboard.csv")
with out.open("w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["system", "corpus", "item", "metric", "value"])
    w.writerows(rows)
print(f"wrote {out} ({len(rows)} rows)")
