"""Two releases of a small benchmark with engineered changes, for the release-notes tests.

Systems A, B, C, E in v1; in v2 E is removed and D and F are added. 20 items on one corpus, paired t tests
with Holm's correction over each metric's family, no omnibus test. Each change moves exactly one thing:

* m1 ("Fluency"): B's scores rise by 0.05 on every item in v2: B vs C flips from not significant to
  significant because B's data changed (A's and C's scores are the same in both releases).
* m2 ("Adequacy"): nobody's scores change, but the family grows from 6 pairs (A, B, C, E) to 10 (A, B, C,
  D, F): A vs B has raw p = 0.00672 (mean difference -0.0136, SD of the differences exactly 0.02, n = 20:
  t = -3.041, df = 19; R: 2 * pt(-3.041, 19) = 0.00672), the smallest p of its family while every other
  pair's p is above 0.6 (scipy.stats.ttest_rel on these scores), so its Holm-adjusted p is 6 * p = 0.0403
  in v1 (significant) and 10 * p = 0.0672 in v2 (not): a flip with the same estimate, caused by the
  family's size alone.
* the spec: v2 has another title, reads data/v2.csv instead of data/v1.csv and adds metric m3, so the
  spec changed but no setting that can move a decision of m1 or m2.

And the usual CI case, data updated in place (:func:`write_in_place`: one table, data/scores.csv, overwritten
for each release, the spec the same), with v1's scores and then one change: one system added
(:func:`one_added`: G) or one system's data changed (:func:`one_changed`: B).
"""

from __future__ import annotations

import math
from pathlib import Path

N = 20
SPEC = """title: {title}
seed: 0
data:
  scores: data/{data}
metrics:
  m1:
    label: Fluency
    higher_is_better: true
    decimals: 4
  m2:
    label: Adequacy
    higher_is_better: true
    decimals: 4
{extra}tests:
  pairwise: paired_t
  correction: holm
  omnibus: none
  posthoc: none
outputs:
  formats: [html, json]
"""
M3 = """  m3:
    label: Coverage
    higher_is_better: true
    decimals: 3
"""


def wave(i: int, k: int) -> float:
    """A fixed, irregular pattern in [-1, 1] (different for each k), standing in for noise."""
    return math.sin(1.7 * i * (k + 1) + 0.3 * k) * math.cos(0.9 * i + k)


def standardized(k: int) -> list[float]:
    """wave(., k) over the items, centred to mean 0 and scaled to SD 1 (n - 1 in the denominator)."""
    x = [wave(i, k) for i in range(N)]
    m = sum(x) / N
    sd = math.sqrt(sum((v - m) ** 2 for v in x) / (N - 1))
    return [(v - m) / sd for v in x]


def scores(release: int) -> dict[str, dict[str, list[float]]]:
    """metric -> system -> per-item scores of one release."""
    base = [0.5 + 0.01 * (i % 7) for i in range(N)]
    a = [b + 0.04 * w for b, w in zip(base, standardized(1))]
    out: dict[str, dict[str, list[float]]] = {}
    # m1: B 0.01 above C (t about 1: not significant); in v2 0.05 more on every item (t about 6)
    lift = 0.05 if release == 2 else 0.0
    out["m1"] = {"A": [v + 0.10 for v in a],
                 "B": [b + 0.01 + lift + 0.03 * w for b, w in zip(base, standardized(2))],
                 "C": [b + 0.03 * w for b, w in zip(base, standardized(3))]}
    # m2: B - A = -0.0136 + 0.02 * z, exactly mean -0.0136 and SD 0.02; the others far from significance
    out["m2"] = {"A": a, "B": [v - 0.0136 + 0.02 * z for v, z in zip(a, standardized(4))],
                 "C": [b - 0.003 + 0.08 * w for b, w in zip(base, standardized(5))]}
    extra = ["E"] if release == 1 else ["D", "F"]
    for k, s in enumerate(extra):
        for m in ("m1", "m2"):
            shift = -0.005 - 0.002 * (k + (1 if release == 2 else 0))
            out[m][s] = [b + shift + 0.08 * w for b, w in zip(base, standardized(6 + k + (3 if m == "m2" else 0)))]
    if release == 2:
        out["m3"] = {s: [0.3 + 0.01 * j + 0.05 * w for w in standardized(12 + j)]
                     for j, s in enumerate(("A", "B", "C", "D", "F"))}
    return out


def one_added() -> dict[str, dict[str, list[float]]]:
    """v1's scores and one more system, G, on m1 and m2 (everyone else's scores the same)."""
    out = scores(1)
    base = [0.5 + 0.01 * (i % 7) for i in range(N)]
    for k, m in enumerate(("m1", "m2")):
        out[m]["G"] = [b + 0.02 + 0.05 * w for b, w in zip(base, standardized(14 + k))]
    return out


def one_changed() -> dict[str, dict[str, list[float]]]:
    """v1's scores with B's changed: +0.05 on every item of m1 (B vs C becomes significant, as in v2), and
    +0.004 plus a varying 0.01 * z on m2 (so that its paired interval has a width)."""
    out = scores(1)
    out["m1"]["B"] = [v + 0.05 for v in out["m1"]["B"]]
    out["m2"]["B"] = [v + 0.004 + 0.01 * z for v, z in zip(out["m2"]["B"], standardized(16))]
    return out


def table(release: int) -> str:
    return table_of(scores(release))


def table_of(values: dict[str, dict[str, list[float]]]) -> str:
    rows = ["system,corpus,item,metric,value"]
    for metric, systems in values.items():
        for system, values in systems.items():
            rows += [f"{system},c,i{i:02d},{metric},{v:.6f}" for i, v in enumerate(values)]
    return "\n".join(rows) + "\n"


def spec(release: int) -> str:
    return SPEC.format(title="Release notes example" if release == 1 else "Release notes example, second round",
                       data=f"v{release}.csv", extra=M3 if release == 2 else "")


def write(root: Path, release: int) -> Path:
    """The project folder as it is when ``release`` is built: its spec and its data table."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / f"v{release}.csv").write_text(table(release), encoding="utf-8")
    (root / "spec.yaml").write_text(spec(release), encoding="utf-8")
    return root / "spec.yaml"


def write_in_place(root: Path, values: dict[str, dict[str, list[float]]]) -> Path:
    """The project folder with ``values`` in data/scores.csv (overwritten: the data updated in place)."""
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "data" / "scores.csv").write_text(table_of(values), encoding="utf-8")
    (root / "spec.yaml").write_text(SPEC.format(title="Data updated in place", data="scores.csv", extra=""),
                                    encoding="utf-8")
    return root / "spec.yaml"
