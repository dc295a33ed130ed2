"""Type I error of the pairwise tests offered for corpus-level metrics (BLEU-like and F-like statistics).

A corpus-level metric is computed from summed per-item statistics (corpus BLEU from n-gram matches and
lengths, micro F1 from tp, fp, fn), so only resampling tests apply: the paired bootstrap (p-value from the
null-shifted replicates; or a decision by whether the percentile or BCa interval excludes zero) and
approximate randomization (per-item swaps). This script simulates data sets where the two systems'
per-item statistics are exchangeable given the item (both drawn from the same distribution around a shared
item difficulty), so the null "equal corpus values in expectation" holds and the randomization test is
exact, and counts how often each test rejects at alpha.

Every data set gets its own resamples (the engine is called once per data set, seed = base + index): the
Clopper-Pearson interval of a rate assumes independent data sets, which shared resamples would break.

Usage::

    python benchmarks/corpus_calibration.py --reps 2000 --n 20 50 100 200 --out docs/calibration_corpus.md
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy
import scipy.stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from sigreport.stats.resampling import CorpusMetric, f_beta_metric, paired_resampling  # noqa: E402

ORDERS = 4


def bleu_value(totals: np.ndarray, n_items: int) -> np.ndarray:
    """Corpus BLEU (Papineni et al. 2002) from totals of (m_1..m_4, t_1..t_4, hyp_len, ref_len): brevity
    penalty times the geometric mean of the n-gram precisions; 0 when a precision is 0 (no smoothing)."""
    m, t = totals[..., :ORDERS], totals[..., ORDERS:2 * ORDERS]
    hyp, ref = totals[..., 2 * ORDERS], totals[..., 2 * ORDERS + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.log(m / t).mean(axis=-1)
        bp = np.where(hyp < ref, np.exp(1 - ref / hyp), 1.0)
        return np.where((m > 0).all(axis=-1), bp * np.exp(logp), 0.0)


BLEU = CorpusMetric(name="bleu", n_stats=2 * ORDERS + 2, func=bleu_value)


def simulate_bleu(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 2, 10) statistics of two exchangeable systems: per sentence a reference length and a difficulty
    q shared by both; each system's hypothesis length and n-gram matches drawn independently given them."""
    ref = 5 + rng.poisson(20, n)
    q = rng.beta(4, 3, n)
    out = np.empty((n, 2, 2 * ORDERS + 2))
    for j in range(2):
        hyp = np.maximum(1, ref + np.rint(rng.normal(0, 3, n)).astype(int))
        for k in range(ORDERS):
            total = np.maximum(hyp - k, 0)
            out[:, j, k] = rng.binomial(total, q ** (1 + 0.6 * k))
            out[:, j, ORDERS + k] = total
        out[:, j, 2 * ORDERS] = hyp
        out[:, j, 2 * ORDERS + 1] = ref
    return out


def simulate_f(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 2, 3) tp, fp, fn of two exchangeable systems: per item a number of gold mentions and a
    recall probability shared by both; each system's found mentions and false alarms drawn independently."""
    gold = rng.poisson(3, n)
    recall = rng.beta(6, 3, n)
    noise = rng.gamma(2, 0.4, n)
    out = np.empty((n, 2, 3))
    for j in range(2):
        tp = rng.binomial(gold, recall)
        out[:, j, 0] = tp
        out[:, j, 1] = rng.poisson(noise)
        out[:, j, 2] = gold - tp
    return out


STATISTICS: dict[str, tuple[CorpusMetric, Callable[[np.random.Generator, int], np.ndarray]]] = {
    "BLEU-like": (BLEU, simulate_bleu),
    "F1-like": (f_beta_metric(1.0), simulate_f),
}
TESTS = ("bootstrap p", "percentile CI", "BCa CI", "permutation p")


@dataclasses.dataclass
class Cell:
    statistic: str
    test: str
    n: int
    reps: int = 0
    rejections: int = 0
    undefined: int = 0

    @property
    def rate(self) -> float:
        return self.rejections / self.reps

    def interval(self) -> tuple[float, float]:
        r, m = self.rejections, self.reps
        lo = 0.0 if r == 0 else float(sps.beta.ppf(0.025, r, m - r + 1))
        hi = 1.0 if r == m else float(sps.beta.ppf(0.975, r + 1, m - r))
        return lo, hi

    def verdict(self, alpha: float) -> str:
        lo, hi = self.interval()
        return "conservative" if hi < alpha else "liberal" if lo > alpha else "within"


def decisions(stats: np.ndarray, metric: CorpusMetric, alpha: float, resamples: int, seed: int
              ) -> dict[str, bool | None]:
    """Each test's rejection on one data set (None: no p-value or interval)."""
    out: dict[str, bool | None] = {}
    pair = [(0, 1)]
    for ci_method, name in (("percentile", "percentile CI"), ("bca", "BCa CI")):
        r = paired_resampling(stats, metric, pair, "bootstrap", resamples, seed, ci_level=1 - alpha,
                              ci_method=ci_method).pairs[0]
        if ci_method == "percentile":
            out["bootstrap p"] = None if r.pvalue is None else r.pvalue <= alpha
        out[name] = None if r.ci_low is None or r.ci_high is None else not (r.ci_low <= 0 <= r.ci_high)
    p = paired_resampling(stats, metric, pair, "permutation", resamples, seed).pairs[0].pvalue
    out["permutation p"] = None if p is None else p <= alpha
    return out


def run(reps: int, ns: list[int], alpha: float, resamples: int, seed: int) -> list[Cell]:
    cells: list[Cell] = []
    for si, (stat, (metric, simulate)) in enumerate(STATISTICS.items()):
        for n in ns:
            t0 = time.perf_counter()
            row = {t: Cell(stat, t, n) for t in TESTS}
            rng = np.random.default_rng([seed, si, n])
            for r in range(reps):
                got = decisions(simulate(rng, n), metric, alpha, resamples, seed=seed + 1_000_003 * si + r)
                for t, d in got.items():
                    c = row[t]
                    c.reps += 1
                    c.rejections += bool(d)
                    c.undefined += d is None
            cells += row.values()
            print(f"{stat} n={n}: {time.perf_counter() - t0:.1f} s "
                  + ", ".join(f"{t} {c.rate:.3f}" for t, c in row.items()), file=sys.stderr, flush=True)
    return cells


def markdown(cells: list[Cell], args: argparse.Namespace) -> str:
    lines = [
        "# Calibration of the tests for corpus-level metrics",
        "",
        f"Produced by `python benchmarks/corpus_calibration.py --reps {args.reps} --n {' '.join(map(str, args.n))} "
        f"--resamples {args.resamples} --seed {args.seed} --out {args.out}` (numpy {np.__version__}, scipy "
        f"{scipy.__version__}, Python {platform.python_version()}; alpha = {args.alpha}; every data set with its "
        "own resamples).",
        "",
        "Null data: two systems whose per-item statistics are drawn from the same distribution given the item "
        "(a shared sentence difficulty and reference length for BLEU-like; shared gold mentions and recall for "
        "F1-like), so their expected corpus values are equal and the per-item pairs are exchangeable.",
        "",
        "* BLEU-like: corpus BLEU (brevity penalty times the geometric mean of 1- to 4-gram precisions) from "
        "per-sentence matches, n-gram totals and lengths: reference length 5 + Poisson(20), difficulty "
        "q ~ Beta(4, 3), hypothesis length reference + round(N(0, 3)), k-gram matches Binomial(total, "
        "q^(1 + 0.6 (k - 1))).",
        "* F1-like: micro F1 from per-item tp, fp, fn: gold mentions Poisson(3), recall ~ Beta(6, 3), false "
        "alarms Poisson(Gamma(2, 0.4)).",
        "",
        "Tests: *bootstrap p*: the paired bootstrap's null-shifted p-value (sigreport's `pairwise: bootstrap`, "
        "p <= alpha); *percentile CI* / *BCa CI*: rejecting when the bootstrap interval at level 1 - alpha "
        "excludes 0; *permutation p*: approximate randomization (sigreport's `pairwise: permutation`). The 95% "
        "interval is Clopper-Pearson (Monte Carlo error); verdict as in docs/calibration.md.",
        "",
        "| statistic | test | n | rate | 95% MC interval | verdict |",
        "| --- | --- | ---: | ---: | --- | --- |",
    ]
    for c in cells:
        lo, hi = c.interval()
        undefined = f" ({c.undefined} undefined)" if c.undefined else ""
        lines.append(f"| {c.statistic} | {c.test} | {c.n} | {c.rate:.4f}{undefined} | [{lo:.4f}, {hi:.4f}] | "
                     f"{c.verdict(args.alpha)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n", type=int, nargs="+", default=[20, 50, 100, 200])
    ap.add_argument("--resamples", type=int, default=999)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    text = markdown(run(args.reps, args.n, args.alpha, args.resamples, args.seed), args)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
