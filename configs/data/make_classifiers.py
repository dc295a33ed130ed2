"""Generate configs/data/classifiers_predictions.csv and classifiers_annotations.csv (run once; output committed).

A realistic synthetic sentiment benchmark: four classifiers label product reviews and tweets as
negative < neutral < positive. Every item has a true label and a difficulty shared by all systems
(so their errors are correlated, as real systems' are); mistakes fall mostly on the neighbouring
class (ordinal labels). Two pairs of systems are close (lexicon / logreg, bert-base / roberta-large),
so some McNemar tests have few discordant items and use the exact test.

A reliability sample of each corpus was labelled by three annotators; ann3 skipped some items and
ann2 some others (missing ratings), and annotators also err mostly towards the neighbouring class.
"""

import csv
from pathlib import Path

import numpy as np
from scipy import stats

LABELS = ["negative", "neutral", "positive"]
rng = np.random.default_rng(20243)
corpora = {"reviews": (360, [0.35, 0.20, 0.45]), "tweets": (240, [0.28, 0.46, 0.26])}
systems = {"lexicon": 0.3, "logreg": 0.55, "bert-base": 1.5, "roberta-large": 1.65}
family = {"lexicon": 0, "logreg": 0, "bert-base": 1, "roberta-large": 1}  # similar systems err alike
annotators = {"ann1": 2.6, "ann2": 2.2, "ann3": 1.9}
sample = {"reviews": 120, "tweets": 100}


def neighbour(label: np.ndarray, u: np.ndarray) -> np.ndarray:
    """A wrong label, usually the neighbouring one: negative -> neutral (85%), neutral -> either side."""
    out = np.where(label == 1, np.where(u < 0.5, 0, 2), 1)
    far = (label != 1) & (u > 0.85)
    return np.where(far, 2 - label, out)


def noisy(true: np.ndarray, skill: float, difficulty: np.ndarray, common: np.ndarray | None = None,
          weight: float = 0.0, side: np.ndarray | None = None) -> np.ndarray:
    """Labels right with probability falling with difficulty; ``common`` item noise (with ``weight`` of
    the variance) makes errors correlated, and ``side`` (uniform per item) picks the wrong label."""
    p_right = 1 / (1 + np.exp(-(skill + 1.2 - 3.0 * difficulty)))
    z = rng.standard_normal(true.size)
    if common is not None:
        z = np.sqrt(weight) * common + np.sqrt(1 - weight) * z
    right = stats.norm.cdf(z) < p_right
    u = side if side is not None else rng.random(true.size)
    return np.where(right, true, neighbour(true, u))


pred_rows, ann_rows = [], []
for corpus, (n, shares) in corpora.items():
    true = rng.choice(3, size=n, p=shares)
    difficulty = rng.beta(2, 3, size=n) + (true == 1) * 0.15  # neutral is harder
    shared = rng.standard_normal(n)  # what makes an item hard for every system
    families = rng.standard_normal((2, n))  # ... and for one family of systems
    side = rng.random(n)  # which wrong label an item tempts systems into
    items = [f"{corpus[:3]}-{i + 1:04d}" for i in range(n)]
    for system, skill in systems.items():
        common = np.sqrt(0.6) * shared + np.sqrt(0.4) * families[family[system]]
        pred = noisy(true, skill, difficulty, common, 0.85, side)
        pred_rows += [(system, corpus, items[i], LABELS[true[i]], LABELS[pred[i]]) for i in range(n)]
    rated = np.sort(rng.choice(n, size=sample[corpus], replace=False))
    for name, skill in annotators.items():
        labels = noisy(true[rated], skill, difficulty[rated])
        skip = rng.random(rated.size) < {"ann1": 0.0, "ann2": 0.05, "ann3": 0.12}[name]
        ann_rows += [(corpus, items[i], name, LABELS[lab]) for i, lab, s in zip(rated, labels, skip) if not s]

here = Path(__file__).parent
with (here / "classifiers_predictions.csv").open("w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["system", "corpus", "item", "gold", "pred"])
    w.writerows(pred_rows)
ann_rows.sort(key=lambda r: (r[0], r[1], r[2]))
with (here / "classifiers_annotations.csv").open("w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["corpus", "item", "annotator", "label"])
    w.writerows(ann_rows)
print(f"wrote {len(pred_rows)} prediction rows and {len(ann_rows)} annotation rows")
