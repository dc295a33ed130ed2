"""Calibration of sigreport's significance tests: type I error under true nulls, and power.

For each null shape below, ``--reps`` data sets of ``--n`` items x ``--k`` systems are simulated
and every test available in ``sigreport.stats`` is run on each of them:

* pairwise, system 0 vs system 1: ``paired_t`` (pairwise.py), ``wilcoxon`` and ``sign_test``
  (rank.py), ``bootstrap``, ``bootstrap_t`` (studentized) and ``permutation`` (resampling.py, mean
  metric, B = ``--resamples``);
* omnibus, all ``--k`` systems: ``rm_anova`` with the seed's sphericity rule
  (``apply_sphericity(mode='auto')``), the sphericity-assumed F, ``friedman`` (tie-corrected
  chi-square) and its Iman-Davenport F.

The rejection rate at ``--alpha`` is shown with its Monte Carlo 95% interval (Clopper-Pearson) and a
verdict: *within* (the interval contains alpha), *conservative* (entirely below) or *liberal*
(entirely above). Under a fixed true difference (system 0 shifted by ``--effect`` standard
deviations of the paired difference) the power is reported. A module that is not present is
skipped with a printed note.

Which null each shape makes true (x_ij = item_i + e_ij, item_i ~ N(0, 1) shared by all systems):

normal
    e_ij iid N(0, 1). Differences are symmetric about 0: every null holds (mean 0 for paired t,
    bootstrap and permutation; symmetry about 0 for Wilcoxon; median 0 for the sign test; equal
    means for RM-ANOVA; exchangeable systems for Friedman).
lognormal
    e_ij iid LogNormal(0, 1): skewed scores, but the difference of two iid variables is symmetric,
    so every null holds.
skewed_diff (pairwise only)
    e_i0 = Exp(1) - 1, e_i1 = 0: the paired difference has mean 0 but median ln 2 - 1 < 0 and is
    asymmetric. Only the mean null (paired t, bootstrap, permutation) holds; for Wilcoxon and the
    sign test the null is false and their rate is shown for information, without a verdict.
heavy_t3
    e_ij iid Student t with 3 df (finite variance, heavy tails): every null holds.
correlated
    e_i ~ N(0, S) with S_jl = 0.7^|j-l| s_j s_l, s = 1, 1.5, 2, 3, ...: correlated systems with unequal
    variances. The pairwise difference 0 - 1 is normal with mean 0: pairwise nulls hold. RM-ANOVA's
    null (equal means) holds but sphericity is violated (the uncorrected F is expected to be
    liberal); Friedman's null (all within-item orderings equally likely) is strictly false with
    unequal variances, though each pair of systems is still equally likely to win.

The bootstrap and permutation tests are vectorised across data sets: batches of 20 data sets go
through one engine call as 20 system pairs with their own seed. Each p-value is valid on its own;
sharing the replicates within a batch correlates decisions only through the conditional size given
the replicates, which varies by about sqrt(alpha / B); with 20 data sets per batch this widens the
true Monte Carlo interval by about 1%.

Clustered items (``--clustered G ...``): two systems on G clusters of 5 to 10 items whose paired differences
have intraclass correlation ``--icc`` (0.3) under a true null; the unclustered paired t, the clustered paired t
(CR1, t on G - 1 df) and the cluster bootstrap and cluster permutation tests (:func:`run_clustered`).

Usage::

    python benchmarks/calibration.py --reps 2000 --n 20 50 100 --out docs/calibration.md
    python benchmarks/calibration.py --reps 2000 --n 0 --clustered 20 50 100
    python benchmarks/calibration.py --reps 2000 --n 0 --strata 5 20

Macro averages (``--strata S ...``): two systems on S strata of 5 to 60 items, with and without stratum offsets
that cancel in the macro average (:func:`run_strata`).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import os
import sys
import time
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

BATCH = 20  # data sets per resampling-engine call
RESAMPLING_METHODS = ("bootstrap", "bootstrap_t", "permutation")


# ----------------------------------------------------------------------------------------------
# null shapes
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Shape:
    name: str
    description: str
    nulls: str  # which nulls the shape makes true
    omnibus: bool  # the omnibus nulls hold (or are meaningful) for this shape
    rank_null_true: bool  # Wilcoxon / sign nulls hold
    friedman_null_true: bool


SHAPES = (
    Shape("normal", "e_ij iid N(0, 1)", "every null (differences symmetric about 0)", True, True, True),
    Shape("lognormal", "e_ij iid LogNormal(0, 1): skewed scores",
          "every null (the difference of two iid variables is symmetric about 0)", True, True, True),
    Shape("skewed_diff", "e_i0 = Exp(1) - 1, e_i1 = 0 (pairwise only)",
          "only the mean null (paired t, bootstrap; permutation approximately, its exact null is symmetry); "
          "Wilcoxon's and the sign test's nulls are false (median ln 2 - 1 < 0)", False, False, False),
    Shape("heavy_t3", "e_ij iid Student t, 3 df: heavy tails", "every null", True, True, True),
    Shape("correlated", "e_i ~ N(0, S), S_jl = 0.7^abs(j-l) s_j s_l, s = 1, 1.5, 2, 3",
          "every pairwise null; RM-ANOVA's equal means (sphericity violated); Friedman's null (all orderings "
          "equally likely) is strictly false with unequal variances", True, True, False),
)


def _errors(shape: str, rng: np.random.Generator, reps: int, n: int, k: int) -> np.ndarray:
    if shape == "normal":
        return rng.standard_normal((reps, n, k))
    if shape == "lognormal":
        return rng.lognormal(0.0, 1.0, (reps, n, k))
    if shape == "skewed_diff":
        e = np.zeros((reps, n, k))
        e[:, :, 0] = rng.exponential(1.0, (reps, n)) - 1.0
        return e
    if shape == "heavy_t3":
        return rng.standard_t(3, (reps, n, k))
    if shape == "correlated":
        sd = 1.0 + 0.5 * np.arange(k)
        lag = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
        cov = 0.7**lag * np.outer(sd, sd)
        return rng.standard_normal((reps, n, k)) @ np.linalg.cholesky(cov).T
    raise ValueError(shape)


def diff_sd(shape: str, k: int) -> float:
    """Standard deviation of e_0 - e_1 (used to express the power shift as an effect size)."""
    if shape in ("normal",):
        return math.sqrt(2.0)
    if shape == "lognormal":
        return math.sqrt(2.0 * (math.e - 1.0) * math.e)
    if shape == "skewed_diff":
        return 1.0
    if shape == "heavy_t3":
        return math.sqrt(2.0 * 3.0)
    if shape == "correlated":
        return math.sqrt(1.0 + 1.5**2 - 2 * 0.7 * 1.5)
    raise ValueError(shape)


def simulate(shape: str, rng: np.random.Generator, reps: int, n: int, k: int, shift: float = 0.0) -> np.ndarray:
    """Scores of shape (reps, n, k): item effect + errors; system 0 shifted by ``shift``."""
    x = rng.standard_normal((reps, n, 1)) + _errors(shape, rng, reps, n, k)
    x[:, :, 0] += shift
    return x


# ----------------------------------------------------------------------------------------------
# the tests
# ----------------------------------------------------------------------------------------------


def _optional(module: str, name: str) -> Callable | None:  # type: ignore[type-arg]
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def pairwise_tests(alpha: float) -> tuple[dict[str, Callable[[np.ndarray, np.ndarray], float | None]], list[str]]:
    tests: dict[str, Callable[[np.ndarray, np.ndarray], float | None]] = {}
    notes: list[str] = []
    paired_t = _optional("sigreport.stats.pairwise", "paired_t")
    wilcoxon = _optional("sigreport.stats.rank", "wilcoxon")
    sign_test = _optional("sigreport.stats.rank", "sign_test")
    if paired_t:
        tests["paired_t"] = lambda a, b: paired_t(a, b, alpha=alpha).pvalue
    else:
        notes.append("paired_t: sigreport.stats.pairwise.paired_t not found, skipped")
    if wilcoxon:
        tests["wilcoxon"] = lambda a, b: wilcoxon(a, b, alpha=alpha).pvalue
    else:
        notes.append("wilcoxon: sigreport.stats.rank.wilcoxon not found, skipped")
    if sign_test:
        tests["sign"] = lambda a, b: sign_test(a, b, alpha=alpha).pvalue
    else:
        notes.append("sign: sigreport.stats.rank.sign_test not found, skipped")
    return tests, notes


def omnibus_tests(alpha: float) -> tuple[dict[str, Callable[[np.ndarray], float | None]], list[str]]:
    tests: dict[str, Callable[[np.ndarray], float | None]] = {}
    notes: list[str] = []
    rm_anova = _optional("sigreport.stats.omnibus", "rm_anova")
    apply_sphericity = _optional("sigreport.stats.omnibus", "apply_sphericity")
    friedman = _optional("sigreport.stats.omnibus", "friedman")
    if rm_anova and apply_sphericity:
        tests["rm_anova (auto sphericity)"] = lambda x: apply_sphericity(rm_anova(x), "auto", alpha).pvalue_corrected
        tests["rm_anova (sphericity assumed)"] = lambda x: rm_anova(x).pvalue
    else:
        notes.append("rm_anova: sigreport.stats.omnibus.rm_anova/apply_sphericity not found, skipped")
    if friedman:
        tests["friedman"] = lambda x: friedman(x).pvalue
        tests["friedman (Iman-Davenport)"] = lambda x: friedman(x).iman_davenport.pvalue
    else:
        notes.append("friedman: sigreport.stats.omnibus.friedman not found, skipped")
    return tests, notes


def resampling_pvalues(x: np.ndarray, method: str, resamples: int, seed: int) -> np.ndarray:
    """p-values of system 0 vs 1 for every data set of x (reps, n, k), BATCH data sets per call."""
    from sigreport.stats.resampling import mean_metric, paired_resampling

    reps, n, _ = x.shape
    out = np.full(reps, np.nan)
    for start in range(0, reps, BATCH):
        blk = x[start : start + BATCH, :, :2]  # (m, n, 2)
        m = blk.shape[0]
        stats = blk.transpose(1, 0, 2).reshape(n, 2 * m)[:, :, None]  # systems 2r, 2r+1 = data set r
        res = paired_resampling(stats, mean_metric(), [(2 * r, 2 * r + 1) for r in range(m)], method, resamples,
                                seed=seed + start)
        out[start : start + m] = [np.nan if p.pvalue is None else p.pvalue for p in res.pairs]
    return out


# ----------------------------------------------------------------------------------------------
# running
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Row:
    kind: str  # 'pairwise' | 'omnibus'
    test: str
    shape: str
    n: int
    shift: float  # 0 under the null; the effect size (in sd of the paired difference) for power
    reps: int
    rejections: int
    undefined: int  # data sets where the test gave no p-value (counted as not rejecting)
    null_true: bool

    @property
    def rate(self) -> float:
        return self.rejections / self.reps

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Clopper-Pearson interval of the rejection rate."""
        a = (1 - level) / 2
        lo = 0.0 if self.rejections == 0 else float(sps.beta.ppf(a, self.rejections, self.reps - self.rejections + 1))
        hi = 1.0 if self.rejections == self.reps else float(
            sps.beta.ppf(1 - a, self.rejections + 1, self.reps - self.rejections))
        return lo, hi

    def verdict(self, alpha: float) -> str:
        if not self.null_true:
            return "n/a (null false)"
        lo, hi = self.interval()
        if hi < alpha:
            return "conservative"
        if lo > alpha:
            return "liberal"
        return "within"


def _count(pvals: list[float | None] | np.ndarray, alpha: float) -> tuple[int, int]:
    p = np.array([np.nan if v is None else v for v in pvals], dtype=float)
    return int(np.sum(p < alpha)), int(np.sum(~np.isfinite(p)))


def run(
    reps: int,
    ns: list[int],
    k: int = 4,
    alpha: float = 0.05,
    resamples: int = 999,
    seed: int = 20240601,
    effect: float = 0.3,
    shapes: tuple[str, ...] | None = None,
    power_shapes: tuple[str, ...] = ("normal", "heavy_t3"),
    log: Callable[[str], None] = print,
    only: tuple[str, ...] | None = None,
) -> tuple[list[Row], list[str]]:
    """Rejection counts for every (test, shape, n) under the null, and power rows for ``power_shapes``.

    ``only`` restricts the run to the named tests (e.g. the resampling ones); the data sets and the
    resampling seeds do not depend on it, so its rows equal those of a full run.
    """
    ptests, notes = pairwise_tests(alpha)
    otests, onotes = omnibus_tests(alpha)
    if only is not None:
        ptests = {k: v for k, v in ptests.items() if k in only}
        otests = {k: v for k, v in otests.items() if k in only}
    notes += onotes
    for note in notes:
        log(f"note: {note}")
    rows: list[Row] = []
    chosen = [s for s in SHAPES if shapes is None or s.name in shapes]
    jobs = [(s, n, 0.0) for n in ns for s in chosen]
    jobs += [(s, n, effect) for n in ns for s in chosen if s.name in power_shapes]
    for job_index, (shape, n, eff) in enumerate(jobs):
        t0 = time.perf_counter()
        rng = np.random.default_rng([seed, job_index])
        shift = eff * diff_sd(shape.name, k)
        x = simulate(shape.name, rng, reps, n, k, shift)
        null = eff == 0.0
        for name, fn in ptests.items():
            rej, und = _count([fn(x[r, :, 0], x[r, :, 1]) for r in range(reps)], alpha)
            truth = shape.rank_null_true if name in ("wilcoxon", "sign") else True
            rows.append(Row("pairwise", name, shape.name, n, eff, reps, rej, und, truth and null))
        for method in (m for m in RESAMPLING_METHODS if only is None or m in only):
            rej, und = _count(resampling_pvalues(x, method, resamples, seed=seed * 7 + job_index * 100_003), alpha)
            rows.append(Row("pairwise", method, shape.name, n, eff, reps, rej, und, null))
        if shape.omnibus:
            for name, fn in otests.items():
                rej, und = _count([fn(x[r]) for r in range(reps)], alpha)
                truth = shape.friedman_null_true if name.startswith("friedman") else True
                rows.append(Row("omnibus", name, shape.name, n, eff, reps, rej, und, truth and null))
        log(f"{shape.name:12s} n={n:4d} effect={eff:.2f}: {time.perf_counter() - t0:6.1f} s")
    return rows, notes


# ----------------------------------------------------------------------------------------------
# clustered items (data.columns.cluster)
# ----------------------------------------------------------------------------------------------

CLUSTER_SIZES = (5, 10)  # each cluster's size uniform on 5..10 items
CLUSTERED_TESTS = ("paired_t (items independent)", "paired_t (clustered, CR1, t on G - 1 df)",
                   "bootstrap (whole clusters)", "permutation (clusters sign-flipped)")


def simulate_clustered(rng: np.random.Generator, G: int, icc: float) -> tuple[np.ndarray, np.ndarray]:
    """One data set of two systems on G clusters of 5-10 items: x_ij = c_g + a_gj + item_i + e_ij with a cluster
    effect c_g ~ N(0, 1), a system-by-cluster effect a_gj ~ N(0, icc / 2) and e_ij ~ N(0, (1 - icc) / 2), so the
    paired differences have mean 0 (the null holds) and intraclass correlation ``icc``. Returns (x (n, 2), g)."""
    sizes = rng.integers(CLUSTER_SIZES[0], CLUSTER_SIZES[1] + 1, size=G)
    g = np.repeat(np.arange(G), sizes)
    n = g.size
    x = (rng.standard_normal((G, 1))[g] + rng.normal(0, math.sqrt(icc / 2), (G, 2))[g]
         + rng.standard_normal((n, 1)) + rng.normal(0, math.sqrt((1 - icc) / 2), (n, 2)))
    return x, g


def run_clustered(reps: int, Gs: list[int], icc: float = 0.3, alpha: float = 0.05, resamples: int = 999,
                  seed: int = 20240601, log: Callable[[str], None] = print) -> list[Row]:
    """Type I error of the pairwise tests on clustered items (system 0 vs 1, true null): the unclustered paired t,
    the clustered paired t (sigreport.stats.cluster) and the cluster bootstrap and permutation tests (the engine
    on cluster totals under the ratio metric, as the build runs them; BATCH data sets per engine call)."""
    from sigreport.stats import cluster, pairwise
    from sigreport.stats.resampling import paired_resampling, ratio_metric

    rows: list[Row] = []
    for job, G in enumerate(Gs):
        t0 = time.perf_counter()
        rng = np.random.default_rng([seed, 7_000 + job])
        data = [simulate_clustered(rng, G, icc) for _ in range(reps)]
        p = {t: np.full(reps, np.nan) for t in CLUSTERED_TESTS}
        for r, (x, g) in enumerate(data):
            p[CLUSTERED_TESTS[0]][r] = _nan(pairwise.paired_t(x[:, 0], x[:, 1], alpha=alpha).pvalue)
            p[CLUSTERED_TESTS[1]][r] = _nan(cluster.paired_t_family(x, [(0, 1)], g, G, alpha=alpha)[0].pvalue)
        for method, name in (("bootstrap", CLUSTERED_TESTS[2]), ("permutation", CLUSTERED_TESTS[3])):
            for start in range(0, reps, BATCH):
                batch = data[start : start + BATCH]
                stats = np.concatenate([cluster.cluster_stats(x[:, :, None], g, G) for x, g in batch], axis=1)
                res = paired_resampling(stats, ratio_metric(), [(2 * i, 2 * i + 1) for i in range(len(batch))],
                                        method, resamples, seed=seed * 11 + job * 100_003 + start)
                p[name][start : start + len(batch)] = [_nan(q.pvalue) for q in res.pairs]
        for name in CLUSTERED_TESTS:
            rej, und = _count(p[name], alpha)
            rows.append(Row("clustered", name, f"icc {icc:g}", G, 0.0, reps, rej, und, True))
        log(f"clustered    G={G:4d} icc={icc:.2f}: {time.perf_counter() - t0:6.1f} s")
    return rows


def _nan(v: float | None) -> float:
    return np.nan if v is None else float(v)


STRATA_SIZES = (5, 60)  # each stratum's size uniform on 5..60 items
STRATIFIED_TESTS = ("paired_t of the item mean (micro)", "paired_t of the macro average (Welch-Satterthwaite)",
                    "bootstrap within strata (macro average)", "permutation (macro average)")


def simulate_strata(rng: np.random.Generator, S: int, offsets: bool) -> tuple[np.ndarray, np.ndarray]:
    """One data set of two systems on S strata of 5-60 items whose per-item differences have a stratum SD
    uniform on 0.5..2 and, with ``offsets``, stratum means c_s ~ N(0, 0.3^2) centred so that their plain mean
    (the macro average's null) is 0 while the item mean (micro) is not; without, every stratum's mean is 0."""
    sizes = rng.integers(STRATA_SIZES[0], STRATA_SIZES[1] + 1, size=S)
    s = np.repeat(np.arange(S), sizes)
    sd = rng.uniform(0.5, 2.0, size=S)
    c = rng.normal(0, 0.3, size=S) if offsets else np.zeros(S)
    c -= c.mean()
    d = c[s] + sd[s] * rng.standard_normal(s.size)
    base = rng.standard_normal(s.size)
    return np.column_stack([base + d, base]), s


def run_strata(reps: int, Ss: list[int], alpha: float = 0.05, resamples: int = 999, seed: int = 20240601,
               log: Callable[[str], None] = print) -> list[Row]:
    """Type I error for the macro average's null (the mean of the per-stratum mean differences is 0), with and
    without stratum offsets: the item-mean paired t, the macro paired t, the stratified bootstrap and the
    permutation test on the macro weights (as the build runs them)."""
    from sigreport.stats import pairwise, strata
    from sigreport.stats.resampling import Resample, mean_metric, paired_resampling

    rows: list[Row] = []
    for job, (S, offsets) in enumerate((S, o) for S in Ss for o in (False, True)):
        t0 = time.perf_counter()
        rng = np.random.default_rng([seed, 9_000 + job])
        p = {t: np.full(reps, np.nan) for t in STRATIFIED_TESTS}
        for r in range(reps):
            x, s = simulate_strata(rng, S, offsets)
            p[STRATIFIED_TESTS[0]][r] = _nan(pairwise.paired_t(x[:, 0], x[:, 1], alpha=alpha).pvalue)
            p[STRATIFIED_TESTS[1]][r] = _nan(strata.paired_t_family(x, [(0, 1)], s, S, alpha=alpha)[0].pvalue)
            w = x[:, :, None] * strata.macro_weights(s, S)[:, None, None]
            boot_seed = seed * 13 + job * 100_003 + r
            W = strata.stratified_counts(s, S, resamples, boot_seed)
            p[STRATIFIED_TESTS[2]][r] = _nan(paired_resampling(
                w, mean_metric(), [(0, 1)], "bootstrap", resamples, boot_seed,
                resample=Resample(kind="bootstrap", seed=boot_seed, weights=W)).pairs[0].pvalue)
            p[STRATIFIED_TESTS[3]][r] = _nan(paired_resampling(w, mean_metric(), [(0, 1)], "permutation", resamples,
                                                               boot_seed).pairs[0].pvalue)
        shape = "stratum offsets (micro null false)" if offsets else "no offsets"
        for name in STRATIFIED_TESTS:
            rej, und = _count(p[name], alpha)
            truth = not (offsets and (name.startswith("paired_t of the item") or name.startswith("permutation")))
            rows.append(Row("strata", name, shape, S, 0.0, reps, rej, und, truth))
        log(f"strata       S={S:4d} offsets={offsets}: {time.perf_counter() - t0:6.1f} s")
    return rows


def strata_markdown(rows: list[Row], args: argparse.Namespace) -> list[str]:
    lines = ["", "## Macro averages over strata (metrics.M.average: macro), type I error", "",
             (f"Two systems on S strata of {STRATA_SIZES[0]} to {STRATA_SIZES[1]} items (uniform), per-item "
              "differences with a stratum SD uniform on 0.5 to 2; the macro average's null holds (the plain mean of the stratum "
              "mean differences is 0). Without offsets every stratum's mean difference is 0 (every null holds); with "
              "offsets the stratum means are N(0, 0.3^2) centred to a zero plain mean, so the item mean's null "
              "(micro) and the permutation test's exchangeability are false: their rates are shown for information "
              f"(verdict n/a). {args.reps} data sets per cell, B = {args.resamples}."), "",
             "| test | S | shape | rate | 95% MC interval | verdict |", "| --- | ---: | --- | ---: | --- | --- |"]
    for r in rows:
        lo, hi = r.interval()
        und = f" ({r.undefined} undefined)" if r.undefined else ""
        lines.append(f"| {r.test} | {r.n} | {r.shape} | {r.rate:.4f}{und} | [{lo:.4f}, {hi:.4f}] | "
                     f"{r.verdict(args.alpha)} |")
    return lines


def clustered_markdown(rows: list[Row], args: argparse.Namespace) -> list[str]:
    lines = ["", "## Clustered items (data.columns.cluster), type I error", "",
             (f"Two systems on G clusters of {CLUSTER_SIZES[0]} to {CLUSTER_SIZES[1]} items (uniform), the paired "
              f"differences with intraclass correlation {args.icc:g} within a cluster and mean 0 (x_ij = c_g + "
              f"a_gj + item_i + e_ij: a cluster effect, a system-by-cluster effect of variance icc/2, item and error "
              f"terms), {args.reps} data sets per G, B = {args.resamples}. The test that treats the items as "
              "independent is expected to be liberal (its standard error ignores the design effect, about 1 + "
              "(m - 1) icc = 3 at a mean cluster size m of 7.5); the clustered paired t (CR1 standard error, t on "
              "G - 1 df) and the resampling of whole clusters are expected to hold alpha."), "",
             "| test | G | rate | 95% MC interval | verdict |", "| --- | ---: | ---: | --- | --- |"]
    for r in rows:
        lo, hi = r.interval()
        und = f" ({r.undefined} undefined)" if r.undefined else ""
        lines.append(f"| {r.test} | {r.n} | {r.rate:.4f}{und} | [{lo:.4f}, {hi:.4f}] | {r.verdict(args.alpha)} |")
    return lines


# ----------------------------------------------------------------------------------------------
# report
# ----------------------------------------------------------------------------------------------


def markdown(rows: list[Row], notes: list[str], args: argparse.Namespace, command: str) -> str:
    import numpy
    import scipy

    alpha = args.alpha
    lines = [
        "# Calibration of sigreport's tests",
        "",
        (f"Produced by `{command}` (numpy {numpy.__version__}, scipy {scipy.__version__}, "
         f"{args.reps} simulated data sets per cell, alpha = {alpha}, {args.k} systems for the omnibus tests, "
         f"B = {args.resamples} resamples for bootstrap and permutation, seed {args.seed})."),
        "",
        ("Each cell simulates data sets where the test's null hypothesis is true and counts how often the test "
         f"rejects at alpha = {alpha}. A calibrated test rejects about {alpha:.0%} of the time. The 95% interval is "
         "the Clopper-Pearson interval of the rate (Monte Carlo error); the verdict is *within* when it contains "
         "alpha, *conservative* when it lies entirely below, *liberal* when entirely above. Data sets where a "
         "test gave no p-value (degenerate data) count as not rejected; their number is shown when not zero."),
        "",
        ("Shapes: x_ij = item_i + e_ij with item_i ~ N(0, 1) shared by the systems (the pairwise tests compare "
         "systems 0 and 1):"),
        "",
        "| shape | errors | nulls that hold |",
        "| --- | --- | --- |",
    ]
    for s in SHAPES:
        lines.append(f"| `{s.name}` | {s.description} | {s.nulls} |")
    lines += [
        "",
        ("Known behaviour to compare with: the sign test is discrete, so its size is at most alpha; the paired t "
         "test is conservative for heavy-tailed symmetric differences (Efron 1969) and liberal for skewed ones at "
         "small n; the null-shifted bootstrap test is liberal at small n (its null distribution is the plug-in "
         "one, variance s^2 (n-1)/n and normal-like tails: for normal data at n = 20 about P(|t_19| > 1.96 "
         "sqrt(19/20)) = 0.07); the studentized bootstrap (bootstrap-t) divides each replicate by its own standard "
         "error, which gives its null distribution t-like tails (second-order accurate: Hall 1992, sec. 3.5); the sphericity-assumed F is liberal without sphericity; Mauchly's test reacts to "
         "non-normal errors, which makes the automatic correction conservative for skewed data."),
    ]
    judged = [r for r in rows if r.shift == 0.0 and r.null_true]
    flagged = [r for r in judged if r.verdict(alpha) != "within"]
    lines += [
        "",
        (f"{len(judged)} cells are judged, each at 95%: even with every test exactly calibrated about "
         f"{0.05 * len(judged):.0f} of them would be flagged by chance; {len(flagged)} are flagged here. A verdict "
         "that recurs across n or shapes, or that theory predicts (above), is a property of the test; an isolated "
         "one near the edge is Monte Carlo noise."),
    ]
    if notes:
        lines += ["", "Skipped:", ""] + [f"- {n}" for n in notes]
    for kind in ("pairwise", "omnibus"):
        for n in args.n or ():
            sub = [r for r in rows if r.kind == kind and r.n == n and r.shift == 0.0]
            if not sub:
                continue
            title = "Pairwise tests (system 0 vs 1)" if kind == "pairwise" else f"Omnibus tests ({args.k} systems)"
            lines += ["", f"## {title}, n = {n} items, type I error", "",
                      "| test | shape | rate | 95% MC interval | verdict |", "| --- | --- | ---: | --- | --- |"]
            for r in sub:
                lo, hi = r.interval()
                und = f" ({r.undefined} undefined)" if r.undefined else ""
                lines.append(f"| {r.test} | {r.shape} | {r.rate:.4f}{und} | [{lo:.4f}, {hi:.4f}] | {r.verdict(alpha)} |")
    clustered = [r for r in rows if r.kind == "clustered"]
    if clustered:
        lines += clustered_markdown(clustered, args)
    stratified = [r for r in rows if r.kind == "strata"]
    if stratified:
        lines += strata_markdown(stratified, args)
    power = [r for r in rows if r.shift != 0.0]
    if power:
        lines += ["", "## Power under a fixed true difference", "",
                  (f"System 0 is shifted by {args.effect} standard deviations of the paired difference e_0 - e_1 "
                   "(the same shift for the omnibus tests). Rate = share of data sets rejected at alpha."), "",
                  "| kind | test | shape | n | power | 95% MC interval |", "| --- | --- | --- | ---: | ---: | --- |"]
        for r in power:
            lo, hi = r.interval()
            lines.append(f"| {r.kind} | {r.test} | {r.shape} | {r.n} | {r.rate:.4f} | [{lo:.4f}, {hi:.4f}] |")
    lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# 0/1 data: coverage of the proportion intervals (tests.proportion_ci) and of Newcombe's paired interval
# ----------------------------------------------------------------------------------------------

PROPORTION_NS = (20, 50, 100)
PROPORTION_PS = (0.05, 0.5, 0.9)
PAIRED_CASES = ((0.5, 0.5), (0.9, 0.85), (0.05, 0.05), (0.95, 0.9))  # (p_a, p_b); items correlated (phi = 0.5)


def t_interval_of_mean(x: np.ndarray, n: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The mean's t interval of n 0/1 scores with x ones (what sigreport gave a 0/1 metric before
    tests.proportion_ci): p +- t_{n-1} s / sqrt(n), s the sample SD; of zero width at x = 0 and x = n."""
    p = x / n
    sd = np.sqrt(np.maximum(p * (1 - p) * n / (n - 1), 0.0))
    half = sps.t.ppf(0.5 + level / 2, n - 1) * sd / np.sqrt(n)
    return p - half, p + half


def proportion_coverage(level: float) -> list[tuple[int, float, str, float, float]]:
    """(n, p, method, coverage, P(zero width)) of every declared proportion interval and the mean's t interval,
    exact: the sum over x = 0..n of the binomial probability of x where the interval of x contains p (no
    Monte Carlo error)."""
    from sigreport.stats import proportion

    out = []
    for n in PROPORTION_NS:
        x = np.arange(n + 1)
        for p in PROPORTION_PS:
            pmf = sps.binom.pmf(x, n, p)
            methods = {d.name: d.compute(x, n, level) for d in proportion.INTERVALS}
            methods["t (the mean's)"] = t_interval_of_mean(x, n, level)
            for name, (lo, hi) in methods.items():
                covered = (lo <= p) & (p <= hi)
                out.append((n, p, name, float(pmf[covered].sum()), float(pmf[hi - lo <= 0].sum())))
    return out


def paired_coverage(level: float, reps: int, seed: int) -> list[tuple[int, float, float, str, float, float]]:
    """(n, p_a, p_b, method, coverage, P(zero width)) of Newcombe's method 10 and the paired t interval of
    the mean difference, over ``reps`` simulated 2x2 tables (multinomial counts of both right, only a, only b,
    neither; the items' scores correlated with phi = 0.5)."""
    from sigreport.stats import proportion

    rng = np.random.default_rng(seed)
    out = []
    for n in PROPORTION_NS:
        for pa, pb in PAIRED_CASES:
            both = pa * pb + 0.5 * math.sqrt(pa * (1 - pa) * pb * (1 - pb))
            probs = np.array([both, pa - both, pb - both, 1 - pa - pb + both])
            counts = rng.multinomial(n, probs, size=reps).T.astype(float)
            nc = proportion.newcombe_paired_counts(*counts, level)
            d = (counts[1] - counts[2]) / n
            var = np.maximum((counts[1] + counts[2]) / n - d * d, 0.0) * n / (n - 1)
            half = sps.t.ppf(0.5 + level / 2, n - 1) * np.sqrt(var / n)
            truth = pa - pb
            for name, lo, hi in (("newcombe_paired", nc.low, nc.high), ("paired t", d - half, d + half)):
                out.append((n, pa, pb, name, float(np.mean((lo <= truth + 1e-12) & (truth - 1e-12 <= hi))),
                            float(np.mean(hi - lo <= 0))))
    return out


def proportion_markdown(level: float, reps: int, seed: int, command: str) -> str:
    """The 0/1 section of docs/calibration.md: coverage of each system's interval (exact) and of the pairs'
    (Monte Carlo, with its 95% interval)."""
    single = proportion_coverage(level)
    names = list(dict.fromkeys(r[2] for r in single))
    lines = [f"Produced by `{command}` (level {level:g}; single proportions exact, paired differences {reps} "
             f"simulated tables per cell, seed {seed}).", "",
             "Coverage of each system's interval (exact: the binomial sum over every count; in brackets the "
             "probability of a zero-width interval):", "",
             "| n | p | " + " | ".join(names) + " |", "| ---: | ---: | " + " | ".join("---:" for _ in names) + " |"]
    for n in PROPORTION_NS:
        for p in PROPORTION_PS:
            cells = []
            for name in names:
                cov, zero = next((r[3], r[4]) for r in single if r[:3] == (n, p, name))
                cells.append(f"{cov:.4f}" + (f" ({zero:.3f})" if zero >= 0.0005 else ""))
            lines.append(f"| {n} | {p:g} | " + " | ".join(cells) + " |")
    paired = paired_coverage(level, reps, seed)
    lines += ["", "Coverage of the interval of p_a \u2212 p_b on paired items (Monte Carlo; 95% Clopper-Pearson "
              "interval of the rate; in brackets the share of zero-width intervals):", "",
              "| n | p_a | p_b | method | coverage | 95% MC interval |", "| ---: | ---: | ---: | --- | ---: | --- |"]
    for n, pa, pb, name, cov, zero in paired:
        k = round(cov * reps)
        lo = sps.beta.ppf(0.025, k, reps - k + 1) if k > 0 else 0.0
        hi = sps.beta.ppf(0.975, k + 1, reps - k) if k < reps else 1.0
        lines.append(f"| {n} | {pa:g} | {pb:g} | {name} | {cov:.4f}" + (f" ({zero:.3f})" if zero >= 0.0005 else "")
                     + f" | [{lo:.4f}, {hi:.4f}] |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=2000, help="simulated data sets per (shape, n)")
    ap.add_argument("--n", type=int, nargs="+", default=[20, 100], help="items per data set (one or more)")
    ap.add_argument("--k", type=int, default=4, help="systems (omnibus tests)")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--resamples", type=int, default=999, help="B for bootstrap and permutation")
    ap.add_argument("--effect", type=float, default=0.3, help="power: shift in sd of the paired difference")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--out", default=None, help="write the markdown table here (e.g. docs/calibration.md)")
    ap.add_argument("--only", nargs="+", default=None, metavar="TEST",
                    help="run only these tests (names as in the table, e.g. bootstrap bootstrap_t)")
    ap.add_argument("--clustered", type=int, nargs="*", default=None, metavar="G",
                    help="also (or, with --n none given as --n 0, only) the clustered rows at these numbers of "
                    "clusters, e.g. 20 50 100")
    ap.add_argument("--strata", type=int, nargs="*", default=None, metavar="S",
                    help="also the macro-average rows at these numbers of strata, e.g. 5 20")
    ap.add_argument("--icc", type=float, default=0.3, help="clustered rows: intraclass correlation of the differences")
    ap.add_argument("--proportions", action="store_true",
                    help="only the 0/1 section: coverage of the proportion intervals and Newcombe's paired one")
    args = ap.parse_args(argv)
    command = "python benchmarks/calibration.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.proportions:
        print(proportion_markdown(1 - args.alpha, args.reps, args.seed, command.strip()))
        return
    t0 = time.perf_counter()
    args.n = [n for n in args.n if n > 0]
    rows, notes = run(args.reps, args.n, args.k, args.alpha, args.resamples, args.seed, args.effect,
                      only=None if args.only is None else tuple(args.only)) if args.n else ([], [])
    if args.clustered:
        rows += run_clustered(args.reps, args.clustered, args.icc, args.alpha, args.resamples, args.seed)
    if args.strata:
        rows += run_strata(args.reps, args.strata, args.alpha, args.resamples, args.seed)
    text = markdown(rows, notes, args, command.strip())
    print(text)
    print(f"total {time.perf_counter() - t0:.1f} s")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
