"""Type I error of sacrebleu's paired bootstrap next to sigreport's, under a true null.

Why this exists: docs/methods.md ("Why might another tool give a different p-value?") says that
sacrebleu's paired bootstrap rejects a true null far more often than alpha while sigreport's holds it.
This script measures both on the same simulated data sets: two systems whose per-item scores are
``item_i + e_ai`` and ``item_i + e_bi`` with ``item_i, e ~ N(0, 1)`` (a mean metric; the paired
differences are N(0, 2), so the null "equal means" is true), B = 1000 resamples, alpha = 0.05.

* sacrebleu: its own ``sacrebleu.significance._paired_bs_test`` (the function ``sacrebleu
  --paired-bs`` calls), fed a mean metric through the three metric methods it uses. Its statistic is
  ``|d*| - mean(|d*|)`` (the absolute resampled differences centred at their mean) and its p-value
  ``(#{stat > |d|} + 1) / (B + 1)`` (strict exceedances).
* sigreport: ``paired_resampling(..., "bootstrap")`` (``p = (#{|d* - d| >= |d|} + 1) / (B + 1)``)
  and ``"bootstrap_t"`` (studentized) on the same data.

The rate is the share of data sets with p <= alpha; its Monte Carlo standard error is about
sqrt(0.05 * 0.95 / reps) = 0.007 at 1,000 data sets. sacrebleu is not a dependency of sigreport:
``pip install sacrebleu`` first. Usage::

    python benchmarks/sacrebleu_null.py --reps 1000 --n 20 50 100
"""

from __future__ import annotations

import argparse
import types
from typing import Any

import numpy as np

from sigreport.stats.resampling import mean_metric, paired_resampling


class MeanMetric:
    """The three methods of a sacrebleu Metric that ``_paired_bs_test`` calls, for a mean of per-item
    scores: statistics (score, 1) per item, score = sum / count."""

    def _extract_corpus_statistics(self, hyps: list[float], refs: Any) -> list[list[float]]:
        return [[float(h), 1.0] for h in hyps]

    def _aggregate_and_compute(self, stats: list[list[float]]) -> Any:
        return self._compute_score_from_stats(np.asarray(stats, dtype=float).sum(0))

    def _compute_score_from_stats(self, s: np.ndarray) -> Any:
        return types.SimpleNamespace(score=float(s[0] / s[1]))


def sacrebleu_p(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> float:
    """sacrebleu's paired bootstrap p-value of system a against the baseline b."""
    from sacrebleu.significance import _paired_bs_test

    m = MeanMetric()
    bl_stats = m._extract_corpus_statistics(list(b), None)
    baseline = types.SimpleNamespace(score=m._aggregate_and_compute(bl_stats).score)
    _, res = _paired_bs_test({"mean": (bl_stats, baseline)}, "a", list(a), None, {"mean": m}, n_boot, -1, seed)
    return float(res["mean"].p_value)


def sigreport_p(a: np.ndarray, b: np.ndarray, method: str, n_boot: int, seed: int) -> float | None:
    stats = np.stack([a, b], axis=1)[:, :, None]
    return paired_resampling(stats, mean_metric(), [(0, 1)], method, n_boot, seed).pairs[0].pvalue


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n", type=int, nargs="+", default=[20, 50, 100])
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    import sacrebleu

    print(f"sacrebleu {sacrebleu.__version__}, {args.reps} null data sets per n, B = {args.resamples}, "
          f"alpha = {args.alpha}")
    print("| n | sacrebleu paired bootstrap | sigreport bootstrap | sigreport bootstrap_t |")
    print("| ---: | ---: | ---: | ---: |")
    rng = np.random.default_rng(args.seed)
    for n in args.n:
        hits = {"sacrebleu": 0, "bootstrap": 0, "bootstrap_t": 0}
        for r in range(args.reps):
            item = rng.normal(size=n)
            a, b = item + rng.normal(size=n), item + rng.normal(size=n)
            hits["sacrebleu"] += sacrebleu_p(a, b, args.resamples, seed=r + 1) <= args.alpha
            for method in ("bootstrap", "bootstrap_t"):
                p = sigreport_p(a, b, method, args.resamples, seed=r + 1)
                hits[method] += p is not None and p <= args.alpha
        rates = " | ".join(f"{hits[k] / args.reps:.3f}" for k in ("sacrebleu", "bootstrap", "bootstrap_t"))
        print(f"| {n} | {rates} |", flush=True)


if __name__ == "__main__":
    main()
