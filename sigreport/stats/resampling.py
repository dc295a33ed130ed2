"""Paired bootstrap and approximate randomization over corpus-level metrics.

Every metric is held as per-item *sufficient statistics* whose column sums determine the corpus
value: a mean metric has one column (value = total / n), a ratio of sums two, micro-F_beta three
(tp, fp, fn), corpus BLEU its n-gram counts. Resampling therefore never recomputes a metric from
items: a bootstrap replicate is a multinomial count vector ``w`` over the items and its totals are
``w @ X``; a randomization replicate is a 0/1 vector ``s`` saying on which items the two systems'
statistics are swapped and the swapped totals follow from ``s @ X``.

Methods
-------
bootstrap
    Paired bootstrap over items (Efron & Tibshirani 1993, ch. 13-14; Koehn 2004;
    Berg-Kirkpatrick et al. 2012): the same resampled items are applied to every system.
    The p-value uses the null-shifted distribution ``delta* - delta`` (Boltužić's Zagreb seminar,
    after Berg-Kirkpatrick et al. 2012, counts ``delta* > 2 delta``; here ``>=`` and the +1 rule, never 0):

    * two-sided ``p = (#{|delta* - delta| >= |delta|} + 1) / (B + 1)``
    * greater   ``p = (#{delta* - delta >= delta} + 1) / (B + 1)`` (H1: a > b)
    * less      ``p = (#{delta* - delta <= delta} + 1) / (B + 1)`` (H1: a < b)

    Confidence intervals of the difference: percentile, or BCa (Efron 1987; Efron & Tibshirani
    1993 eq. 14.10 and 14.15, with the jackknife acceleration, as ``scipy.stats.bootstrap``; z0
    uses the "mean" percentile-of-score as scipy does). One-sided alternatives get one-sided
    bounds (the other bound is infinite, reported as ``None``), as scipy and R do.
permutation
    Approximate randomization (Noreen 1989; Riezler & Maxwell 2005): under H0 the two systems'
    per-item statistics are exchangeable, so each item's pair is swapped with probability 1/2
    (for a mean metric this is a sign flip of the paired difference). The test is exact when
    the per-item pairs are exchangeable (symmetric differences); for a mean difference with
    skewed differences it is only approximately valid (see docs/calibration.md).

    * two-sided ``p = (#{|delta_perm| >= |delta|} + 1) / (B + 1)``
    * greater ``(#{delta_perm >= delta} + 1) / (B + 1)``, less ``(#{delta_perm <= delta} + 1) / (B + 1)``

    When ``2**n <= n_resamples`` all ``2**n`` assignments are enumerated instead and
    ``p = count / 2**n`` (``extra['exact'] = True``). A randomization test gives no confidence
    interval: ``ci_low``/``ci_high`` are ``None`` by design (no warning); run ``bootstrap`` for an
    interval. The effect size is ``None`` for both methods: a corpus-level metric has no per-item
    standard deviation to standardise by (``paired_t`` reports d_z for mean metrics).
bootstrap_t
    Studentized paired bootstrap ("bootstrap-t"; Efron & Tibshirani 1993, ch. 12.5 and 16.4;
    Hall 1992, sec. 3.5), mean metric only. With paired differences d_i = a_i - b_i, mean ``d`` and
    standard error ``se = sd(d) / sqrt(n)``, each replicate gives ``t* = (d* - d) / se*`` with its
    own ``se*`` (the replicate's standard deviation of the differences, ddof 1), compared with the
    observed ``t = d / se``:

    * two-sided ``p = (#{|t*| >= |t|} + 1) / (B + 1)``
    * greater ``(#{t* >= t} + 1) / (B + 1)``, less ``(#{t* <= t} + 1) / (B + 1)``

    The interval is the studentized one, ``[d - q*_(1-a/2) se, d - q*_(a/2) se]`` with ``q*`` the
    quantiles of ``t*`` (one-sided alternatives get one bound). Replicates use the same count
    matrices as ``bootstrap`` (same seed, same resamples); ``se*`` for every replicate and pair comes
    from the same single matmul, of the counts with ``[x | d - d_bar | (d - d_bar)^2]``, because
    ``sum w_i (d_i - d*)^2 = sum w_i (d_i - d_bar)^2 - n (d* - d_bar)^2``. A replicate whose
    differences are all equal (``se* = 0``) gives ``t* = +-inf`` when ``d* != d`` (it is as extreme
    as can be) and is left out (0/0) when ``d* = d``. Corpus-level metrics (ratio, F_beta, BLEU,
    user metrics) are refused with a ValueError: their value is not a mean of per-item differences,
    so there is no per-item variance to studentize by. Studentizing them would need a standard
    error per replicate, by the jackknife (n metric evaluations per replicate: O(n^2 B)) or by the
    delta method (the replicate's second moments of the sufficient statistics, a different
    formula per metric and none for a user's black-box function); they stay on ``bootstrap``,
    whose percentile and BCa intervals are transformation-respecting.

Ties and floating point
-----------------------
Resampled values equal to the observed one count as "at least as extreme" (``>=``), so two
identical systems get ``p = 1``. Equality is judged with a tolerance: ``1e-10`` times the larger
absolute metric value of the pair (about ten significant digits), plus, when the matmul runs in
float32 on real-valued data, ``1e-4`` times the standard deviation of the resampling distribution
(float32 rounding of a replicate, about 1e-6 of that SD, is well inside it; replicates that are
truly within 1e-4 SD of the observed value carry about 4e-5 of the probability, so counting them as
ties moves a p-value by at most that much).

Arithmetic
----------
Integer statistics (counts, 0/1 correctness) are multiplied exactly: float32 when every possible
total is below 2**24, float64 (exact below 2**53) otherwise. Real-valued statistics are
*item-centred* (each item's mean over systems is taken out, which removes the shared item
difficulty that dominates the scale when systems are correlated) and column-centred, then
multiplied in float32 for large problems (``n * k * s >= 2**20``) and float64 otherwise.

Randomness and parallelism
--------------------------
Replicates are generated in fixed blocks of ``_STREAM_BLOCK`` (32); block ``j`` draws from
``numpy.random.Generator(PCG64(SeedSequence(seed).spawn(n_blocks)[j]))``. Chunks (a whole number
of blocks) are computed one after the other (parallelism is across analyses, in worker processes: see
``sigreport.execute``). Because streams belong to blocks, results do not depend on ``chunk_size``. A bootstrap
count matrix is exact Multinomial(n, 1/n) per row, drawn fast: iid Poisson(lambda) counts with
lambda = 1 - 3/sqrt(n) by inversion of 16-bit uniforms (see ``_PoissonPlan``: cells that straddle
a CDF step are resolved with a fresh float64 uniform, so the inversion is exact to float64), rows
whose sum exceeds n are redrawn, and the remaining ``n - sum`` balls are thrown uniformly. Given
its sum m, an iid Poisson vector is Multinomial(m, 1/n), and adding an independent
Multinomial(n - m, 1/n) gives Multinomial(n, 1/n) whatever the distribution of m. This is about
5x faster than ``integers`` + ``bincount`` and 50x faster than ``Generator.multinomial``; small n
(< 1024) uses ``integers`` + ``bincount``. Randomization replicates are raw random bits.

The replicates depend on (kind, B, n, seed) only, never on the data, so several metrics measured
on the same items can share them: :func:`draw_resample` draws the rows once (compact, uint8) and
``paired_resampling(..., resample=...)`` uses them instead of drawing its own, with results
identical to drawing them itself. Drawing is about half of a mean metric's bootstrap, so sharing one draw across m metrics removes most of that from m - 1 of them.

Validated (tests/stats/test_resampling.py) against ``scipy.stats.permutation_test``
(``permutation_type='samples'``), ``scipy.stats.bootstrap`` (percentile and BCa), a plain per-pair
Python loop and brute-force enumeration of all sign assignments.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import threading
from collections.abc import Callable, Sequence

import numpy as np

from sigreport.stats.result import PairedTestResult, finite_or_none

ALTERNATIVES = ("two-sided", "greater", "less")
METHODS = ("bootstrap", "permutation", "bootstrap_t")
CI_METHODS = ("percentile", "bca", "studentized")

_STREAM_BLOCK = 32  # replicates per random stream: results are identical for any chunking
_POISSON_MIN_N = 1024  # below this, bootstrap counts come from integers + bincount
_FLOAT32_MIN_ELEMENTS = 1 << 20  # real-valued data use float32 from this many n*k*s elements
_TARGET_CHUNK_BYTES = 48 << 20  # size of one chunk's weight matrix
_JACKKNIFE_BLOCK_ELEMENTS = 1 << 21
_RTOL = 1e-10
_F32_SD_TOL = 1e-4


# --------------------------------------------------------------------------------------------
# Corpus-level metrics
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class CorpusMetric:
    """A corpus-level metric computed from column totals of per-item sufficient statistics.

    ``func(totals, n_items)`` maps totals of shape ``(..., n_stats)`` to values of shape ``(...)``.
    :meth:`value` turns every non-finite value (0/0, x/0) into NaN; the engine reports NaN as a
    warning, never silently.
    """

    name: str
    n_stats: int
    func: Callable[[np.ndarray, int], np.ndarray] = dataclasses.field(repr=False, compare=False)
    stat_names: tuple[str, ...] = ()

    def value(self, totals: np.ndarray, n_items: int) -> np.ndarray:
        """Metric values for totals of shape ``(..., n_stats)`` over ``n_items`` items."""
        totals = np.asarray(totals, dtype=np.float64)
        if totals.shape[-1:] != (self.n_stats,):
            raise ValueError(f"metric {self.name!r} needs {self.n_stats} statistics, got shape {totals.shape}")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.asarray(self.func(totals, n_items), dtype=np.float64)
        if out.shape != totals.shape[:-1]:
            raise ValueError(
                f"metric {self.name!r} returned shape {out.shape} for totals of shape {totals.shape}; "
                f"expected {totals.shape[:-1]}"
            )
        return np.where(np.isfinite(out), out, np.nan)


def _mean_value(totals: np.ndarray, n_items: int) -> np.ndarray:
    return totals[..., 0] / n_items if n_items > 0 else np.full(totals.shape[:-1], np.nan)


def _ratio_value(totals: np.ndarray, n_items: int) -> np.ndarray:
    num, den = totals[..., 0], totals[..., 1]
    return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


def mean_metric() -> CorpusMetric:
    """Mean of one per-item score: value = total / n_items."""
    return CorpusMetric(name="mean", n_stats=1, func=_mean_value, stat_names=("score",))


def ratio_metric() -> CorpusMetric:
    """Ratio of two sums, sum(num) / sum(den) (e.g. micro-averaged accuracy over tokens); 0/0 -> NaN."""
    return CorpusMetric(name="ratio", n_stats=2, func=_ratio_value, stat_names=("num", "den"))


def f_beta_metric(beta: float = 1.0) -> CorpusMetric:
    """Micro F_beta from summed tp, fp, fn: (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp).

    Van Rijsbergen's (1979) F_beta = (1 + b^2) P R / (b^2 P + R) (Matos et al. 2009, their formula 5 corrected)
    is this expression after multiplying through by the counts. tp = fp = fn = 0 gives 0/0 -> NaN.
    """
    beta = float(beta)
    if not math.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    b2 = beta * beta

    def _value(totals: np.ndarray, n_items: int) -> np.ndarray:
        tp, fp, fn = totals[..., 0], totals[..., 1], totals[..., 2]
        num = (1.0 + b2) * tp
        den = num + b2 * fn + fp
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)

    return CorpusMetric(name=f"f_beta(beta={beta:g})", n_stats=3, func=_value, stat_names=("tp", "fp", "fn"))


def user_metric(
    func: Callable[[np.ndarray, int], np.ndarray], n_stats: int, name: str | None = None
) -> CorpusMetric:
    """A user's corpus metric: ``func(totals[..., n_stats], n_items) -> values[...]``, vectorised."""
    if int(n_stats) < 1:
        raise ValueError("n_stats must be at least 1")
    label = name or getattr(func, "__qualname__", None) or "user"
    return CorpusMetric(name=str(label), n_stats=int(n_stats), func=func)


# --------------------------------------------------------------------------------------------
# Result
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class ResamplingResult:
    """All pairwise resampling tests of one metric, from one shared set of replicates.

    ``pairs`` follow the order of the ``pairs`` argument, each a minus b. ``system_ci`` has one
    ``(value, low, high)`` per system: the observed metric and its bootstrap percentile interval
    at ``ci_level`` (``low``/``high`` are ``None`` for ``method='permutation'``, which draws no
    bootstrap replicates). ``n_resamples`` is the number requested; each pair's
    ``extra['n_resamples']`` is the number actually used (2**n for exact enumeration, fewer when
    replicates with an undefined metric were left out).
    """

    method: str
    n: int
    n_resamples: int
    seed: int
    alternative: str
    ci_level: float
    ci_method: str | None
    pairs: tuple[PairedTestResult, ...]
    system_ci: tuple[tuple[float | None, float | None, float | None], ...]
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Resample:
    """One drawn set of replicates: rows ``0 .. n_rows - 1`` of the ``kind`` stream of ``seed`` over ``n`` items.

    ``weights[r, i]`` is the count of item i in bootstrap replicate r (``kind='bootstrap'``) or 1 when
    permutation replicate r swaps item i (``kind='permutation'``), held compactly (uint8 unless a count
    exceeds 255). They are exactly the rows :func:`paired_resampling` generates from ``seed`` by
    itself, so passing a Resample changes speed, never results: every metric measured on the same
    items can be resampled with one draw (:func:`draw_resample`) instead of one draw each.
    """

    kind: str
    seed: int
    weights: np.ndarray = dataclasses.field(repr=False)

    @property
    def n_rows(self) -> int:
        return int(self.weights.shape[0])

    @property
    def n(self) -> int:
        return int(self.weights.shape[1])


def resample_kind(method: str, n: int, n_resamples: int) -> str | None:
    """The replicates ``method`` draws on ``n`` items: 'bootstrap' (also for ``bootstrap_t``: the same
    count matrices), 'permutation', or None when none are drawn (exact enumeration of the 2**n
    assignments, or fewer items than any test needs)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    if n < (3 if method == "bootstrap_t" else 2):
        return None
    if method == "permutation":
        return None if n < 63 and 2**n <= n_resamples else "permutation"
    return "bootstrap"


def draw_resample(kind: str, n_rows: int, n: int, seed: int) -> Resample:
    """Draw ``n_rows`` replicates of ``kind`` over ``n`` items from ``seed`` (the engine's stream layout).

    Block j of 32 rows comes from ``SeedSequence(seed).spawn(...)[j]`` as in :func:`paired_resampling`,
    and is generated in float32 (counts are exact there, and the draw does not depend on the
    dtype) before it is stored in the smallest unsigned type that holds it.
    """
    if kind not in ("bootstrap", "permutation"):
        raise ValueError(f"unknown resample kind {kind!r}; known: bootstrap, permutation")
    if int(n_rows) < 1 or int(n) < 1:
        raise ValueError(f"a resample needs at least one row and one item, got {n_rows} x {n}")
    n_rows, n, seed = int(n_rows), int(n), int(seed)
    seeds = np.random.SeedSequence(seed).spawn(-(-n_rows // _STREAM_BLOCK))
    out = np.empty((n_rows, n), dtype=np.uint8)
    scratch = np.empty((_STREAM_BLOCK, n), dtype=np.float32)
    local = threading.local()
    for j, b0 in enumerate(range(0, n_rows, _STREAM_BLOCK)):
        rows = scratch[: min(n_rows, b0 + _STREAM_BLOCK) - b0]
        rng = np.random.Generator(np.random.PCG64(seeds[j]))
        if kind == "bootstrap":
            _multinomial_rows(rng, rows, local)
            top = float(rows.max())
            if top > np.iinfo(out.dtype).max:  # practically never (P < 1e-500 per cell for n >= 256)
                out = out.astype(np.uint16 if top <= np.iinfo(np.uint16).max else np.uint32)
        else:
            _swap_rows(rng, rows)
        np.copyto(out[b0 : b0 + rows.shape[0]], rows, casting="unsafe")
    return Resample(kind=kind, seed=seed, weights=out)


def _check_resample(resample: Resample | None, method: str, n: int, n_resamples: int, seed: int) -> None:
    """A given resample must be the one ``method`` would draw itself, else the result would lie about its seed."""
    if resample is None:
        return
    kind = resample_kind(method, n, n_resamples)
    if kind is None:
        raise ValueError(f"method {method!r} draws no replicates on {n} item(s) with B = {n_resamples}; "
                         "pass resample=None")
    got = (resample.kind, resample.n_rows, resample.n, resample.seed)
    if got != (kind, n_resamples, n, seed):
        raise ValueError(f"resample {got} (kind, rows, items, seed) does not match this call "
                         f"{(kind, n_resamples, n, seed)}")


# --------------------------------------------------------------------------------------------
# Random count matrices
# --------------------------------------------------------------------------------------------


_PURE_MAX_COUNT = 5  # counts 0..5 come from comparisons; rarer cells are resolved exactly


@dataclasses.dataclass(frozen=True, kw_only=True)
class _PoissonPlan:
    """Inversion plan for Poisson(lam) counts from 16-bit uniforms, with relabelled cells.

    Cell j covers u in [j, j+1) / 65536. Cells wholly inside one step of the CDF ("pure") with
    count <= 5 are relabelled so that count c occupies the contiguous range
    ``thresholds[c-1] <= v < thresholds[c]``; the count of a relabelled v is then
    ``sum(v >= thresholds)``, a handful of vectorised comparisons. Every other cell (one holding a
    CDF step, or a count above 5) is put at ``v >= special_start`` and resolved exactly: its
    original cell is ``special_cells[v - special_start]`` and a fresh float64 uniform inside that
    cell is inverted with ``searchsorted(cdf, u)``. Relabelling cells is a bijection of
    equally likely values, so the distribution is exactly the float64 inversion's.
    """

    lam: float
    cdf: np.ndarray
    thresholds: np.ndarray  # uint16 starts of counts 1..5 in relabelled space
    special_start: int
    special_cells: np.ndarray  # float64 original cell index of each special v


@functools.lru_cache(maxsize=16)
def _poisson_plan(n: int) -> _PoissonPlan:
    lam = 1.0 - 3.0 / math.sqrt(n)
    ks = np.arange(60)
    pmf = np.exp(-lam + ks * math.log(lam) - np.array([math.lgamma(k + 1.0) for k in range(60)]))
    cdf = np.cumsum(pmf)
    cdf = cdf[: int(np.searchsorted(cdf, 1.0 - 2.0**-60)) + 1]
    cdf[-1] = 1.0
    edges = np.arange(65537, dtype=np.float64) / 65536.0
    lo = np.searchsorted(cdf, edges[:-1], side="right")  # #{F <= left edge}: the count at the left edge
    hi = np.searchsorted(cdf, edges[1:], side="left")  # #{F < right edge}
    pure = (lo == hi) & (lo <= _PURE_MAX_COUNT)
    n_per_count = np.bincount(lo[pure], minlength=_PURE_MAX_COUNT + 1)
    starts = np.cumsum(n_per_count)
    special_cells = np.flatnonzero(~pure).astype(np.float64)
    return _PoissonPlan(lam=lam, cdf=cdf, thresholds=starts[:-1].astype(np.uint16), special_start=int(starts[-1]),
                        special_cells=special_cells)


def _raw_uint16(rng: np.random.Generator, count: int) -> np.ndarray:
    raw = rng.bit_generator.random_raw((count + 3) // 4)
    return np.asarray(raw, dtype="<u8").view("<u2")[:count]


def _scratch(local: threading.local | None, name: str, size: int, dtype: type) -> np.ndarray:
    """A per-thread work array of at least ``size`` elements (fresh large arrays cost page faults)."""
    buf = getattr(local, name, None) if local is not None else None
    if buf is None or buf.size < size:
        buf = np.empty(size, dtype=dtype)
        if local is not None:
            setattr(local, name, buf)
    return buf[:size]


def _poisson_counts(
    rng: np.random.Generator, out: np.ndarray, plan: _PoissonPlan, local: threading.local | None = None
) -> None:
    """Fill the flat array ``out`` with iid Poisson(plan.lam) counts."""
    u = _raw_uint16(rng, out.size)
    hit = _scratch(local, "hit", u.size, np.bool_)
    acc = _scratch(local, "acc", u.size, np.int8)
    acc[...] = 0
    for t in plan.thresholds:  # count = number of thresholds <= v
        np.greater_equal(u, t, out=hit)
        np.add(acc, hit.view(np.int8), out=acc)
    out[...] = acc
    np.greater_equal(u, plan.special_start, out=hit)
    special_pos = np.flatnonzero(hit)
    if special_pos.size:
        cells = plan.special_cells[u[special_pos].astype(np.int64) - plan.special_start]
        uu = (cells + rng.random(special_pos.size)) / 65536.0
        out[special_pos] = np.searchsorted(plan.cdf, uu, side="right")


def _multinomial_rows(rng: np.random.Generator, out: np.ndarray, local: threading.local | None = None) -> None:
    """Fill ``out`` (rows x n) with independent Multinomial(n, 1/n) count vectors."""
    rows, n = out.shape
    if n < _POISSON_MIN_N:
        idx = rng.integers(0, n, size=(rows, n))
        idx += (np.arange(rows, dtype=np.int64) * n)[:, None]
        out[...] = np.bincount(idx.ravel(), minlength=rows * n).reshape(rows, n)
        return
    plan = _poisson_plan(n)
    # counts are small integers: float32 row sums are exact while they stay below 2**24
    sum_dtype = out.dtype if n < 2**23 else np.float64
    sums = np.empty(rows, dtype=np.float64)
    todo = np.arange(rows)
    while todo.size:  # rows whose Poisson total exceeds n are redrawn (rare: P(Z > 3) per row)
        block = out if todo.size == rows else np.empty((todo.size, n), dtype=out.dtype)
        _poisson_counts(rng, block.reshape(-1), plan, local)
        m = block.sum(axis=1, dtype=sum_dtype).astype(np.float64)
        ok = m <= n
        if block is not out:
            out[todo[ok]] = block[ok]
        sums[todo[ok]] = m[ok]
        todo = todo[~ok]
    # throw the remaining n - m balls uniformly: Multinomial(m) + Multinomial(n - m) = Multinomial(n)
    missing = n - sums.astype(np.int64)
    flat = np.repeat(np.arange(rows, dtype=np.int64) * n, missing) + rng.integers(0, n, size=int(missing.sum()))
    cells, counts = np.unique(flat, return_counts=True)
    out.reshape(-1)[cells] += counts.astype(out.dtype)


def _swap_rows(rng: np.random.Generator, out: np.ndarray) -> None:
    """Fill ``out`` (rows x n) with independent fair 0/1 swap indicators."""
    rows, n = out.shape
    raw = np.asarray(rng.bit_generator.random_raw((rows * n + 63) // 64), dtype="<u8")
    bits = np.unpackbits(raw.view(np.uint8), bitorder="little")[: rows * n]
    out[...] = bits.reshape(rows, n)


def _enumeration_rows(start: int, out: np.ndarray) -> None:
    """Rows ``start .. start + rows - 1`` of the 2**n assignment list: bit i of the row number."""
    rows, n = out.shape
    j = np.arange(start, start + rows, dtype=np.int64)[:, None]
    out[...] = (j >> np.arange(n, dtype=np.int64)[None, :]) & 1


# --------------------------------------------------------------------------------------------
# Design matrix
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Design:
    """``X`` is items x (k*s [+ s]) in ``dtype``; totals* = out[:, :k*s] (+ common) + rowsum * offset."""

    X: np.ndarray
    offset: np.ndarray  # (k, s) float64 column means removed from the system columns
    common_offset: np.ndarray | None  # (s,) mean removed from the common columns, or None
    exact: bool
    float32: bool


def _is_integral(x: np.ndarray) -> bool:
    if x.dtype.kind in "biu":
        return True
    flat = x.reshape(-1)
    step = 1 << 22
    for i in range(0, flat.size, step):
        blk = flat[i : i + step]
        if not np.array_equal(blk, np.round(blk)):
            return False
    return True


def _design(x: np.ndarray, with_common: bool) -> _Design:
    n, k, s = x.shape
    integral = _is_integral(x)
    maxabs = max(abs(float(x.max())), abs(float(x.min()))) if x.size else 0.0  # no |x| temporary
    bound = n * maxabs
    if integral and bound < 2.0**24:
        return _Design(X=np.ascontiguousarray(x.reshape(n, k * s), dtype=np.float32), offset=np.zeros((k, s)),
                       common_offset=None, exact=True, float32=True)
    if integral and bound < 2.0**53:
        return _Design(X=np.ascontiguousarray(x.reshape(n, k * s), dtype=np.float64), offset=np.zeros((k, s)),
                       common_offset=None, exact=True, float32=False)
    use32 = n * k * s >= _FLOAT32_MIN_ELEMENTS
    dtype = np.float32 if use32 else np.float64
    m = x.mean(axis=1, dtype=np.float64)  # (n, s): each item's mean over systems
    offset = x.mean(axis=0, dtype=np.float64) - m.mean(axis=0)[None, :]  # (k, s) column means of x - m
    cols = k * s + (s if with_common else 0)
    X = np.empty((n, cols), dtype=dtype)
    step = max(1, _JACKKNIFE_BLOCK_ELEMENTS // (k * s))
    for i in range(0, n, step):  # blocks of items keep float64 temporaries small
        blk = np.asarray(x[i : i + step], dtype=np.float64) - m[i : i + step, None, :] - offset[None]
        X[i : i + step, : k * s] = blk.reshape(-1, k * s)
    common_offset = None
    if with_common:
        common_offset = m.mean(axis=0)
        X[:, k * s :] = m - common_offset[None, :]
    return _Design(X=X, offset=offset, common_offset=common_offset, exact=False, float32=use32)


# --------------------------------------------------------------------------------------------
# Helpers on replicate matrices
# --------------------------------------------------------------------------------------------


def _quantile_ranks(n_cols: int, valid: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, ...]:
    """(ok, h, lo, hi) of :func:`_quantiles_sorted`: which columns have a quantile, its fractional rank h
    and the ranks lo <= h <= hi of the two order statistics it interpolates between."""
    q = np.broadcast_to(np.asarray(q, dtype=np.float64), (n_cols,))
    ok = (valid > 0) & np.isfinite(q)
    h = np.where(ok, (np.maximum(valid, 1) - 1) * np.clip(np.nan_to_num(q), 0.0, 1.0), 0.0)
    lo = np.floor(h).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(valid - 1, 0))
    return ok, h, lo, hi


def _interpolate(ok: np.ndarray, h: np.ndarray, lo: np.ndarray, xlo: np.ndarray, xhi: np.ndarray) -> np.ndarray:
    out = xlo + (h - lo) * (xhi - xlo)
    return np.where(ok, out, np.nan)


def _quantiles_sorted(sorted_cols: np.ndarray, valid: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Linear-interpolation quantile (numpy's default) per column of NaN-last sorted columns."""
    cols = np.arange(sorted_cols.shape[1])
    ok, h, lo, hi = _quantile_ranks(cols.size, valid, q)
    return _interpolate(ok, h, lo, sorted_cols[lo, cols], sorted_cols[hi, cols])


def _quantiles(cols: np.ndarray, valid: np.ndarray, qs: Sequence[np.ndarray], overwrite: bool = False
               ) -> list[np.ndarray]:
    """``[_quantiles_sorted(np.sort(cols, axis=0), valid, q) for q in qs]``, the same floats, by selection.

    A quantile reads two order statistics of each column, and selecting them (``partition``) costs a
    fraction of sorting 10,000 replicates of 190 pairs. The order statistics are the same values either
    way; the only thing selection could change is which of two equal values -0.0 and 0.0 lands at a rank,
    and the interpolation ``xlo + f (xhi - xlo)`` gives the same float for either (x + 0.0 and x - 0.0 are
    x, -0.0 + 0.0 is 0.0). Used when every column is complete (``valid`` = all rows, no NaN, which
    ``partition`` would also put last) and asks for the same ranks, the usual case (percentile intervals);
    otherwise the columns are sorted as before. tests/stats/test_resampling_quantiles.py compares both.
    ``overwrite``: ``cols`` may be reordered within each column when it is held column by column (its
    transpose C-contiguous), which saves a copy; its values are then only good for these quantiles.
    """
    n_rows, n_cols = cols.shape
    ranks = [_quantile_ranks(n_cols, valid, q) for q in qs]
    uniform = n_cols > 0 and bool(np.all(valid == n_rows)) and all(
        bool(ok.all()) and bool(np.all(lo == lo[0])) and bool(np.all(hi == hi[0])) for ok, _, lo, hi in ranks)
    if not uniform:
        srt = np.sort(cols, axis=0)
        return [_quantiles_sorted(srt, valid, q) for q in qs]
    wanted = sorted({int(r[2][0]) for r in ranks} | {int(r[3][0]) for r in ranks})
    # (columns, rows): each column's replicates contiguous to partition; a copy unless the caller gives them up
    work = cols.T if overwrite and cols.T.flags.c_contiguous else np.array(cols.T, order="C")
    at: dict[int, np.ndarray] = {}
    start = 0
    for k in wanted:  # ascending: rank k is selected among the values above the previous rank selected
        work[:, start:].partition(k - start, axis=1)
        at[k] = work[:, k].copy()
        start = k + 1
    return [_interpolate(ok, h, lo, at[int(lo[0])], at[int(hi[0])]) for ok, h, lo, hi in ranks]


def _pair_differences(theta_t: np.ndarray, pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """(P, B) replicate differences theta*_a - theta*_b of every pair from the (k, B) replicate values."""
    out = np.take(theta_t, pa, axis=0)
    return np.subtract(out, np.take(theta_t, pb, axis=0), out=out)


_PAIR_BLOCK = 16  # pairs per block of replicate differences in _percentile_pairs (16 x 10,000 doubles: 1.3 MB)


def _percentile_pairs(theta_t: np.ndarray, pa: np.ndarray, pb: np.ndarray, delta: np.ndarray, tol: np.ndarray,
                      alternative: str, qs: Sequence[np.ndarray]
                      ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]] | None:
    """The bootstrap p-value counts and percentile quantiles of every pair, a few pairs at a time.

    ``(counts, valid)`` of ``_count_p(D, delta, tol, alternative, shifted=True)`` and ``_quantiles(D, valid,
    qs)`` for the replicate differences ``D = (theta_t[pa] - theta_t[pb]).T``, without making D: each block
    of pairs' differences is made, counted and partitioned while it is in cache (D is 15 MB at 190 pairs x
    10,000 replicates, and making, shifting and copying it cost more in memory traffic than the counting
    and selecting). Counts are integers and the order statistics are the rows' own values, so the results
    are the ones of the whole-matrix functions (tests/stats/test_resampling_quantiles.py compares them).
    None when a replicate is undefined (NaN) or the quantile ranks differ between pairs: the caller then
    uses the whole matrix.
    """
    n_rows = theta_t.shape[1]
    n_pairs = pa.size
    if not np.isfinite(theta_t).all():
        return None
    valid = np.full(n_pairs, n_rows, dtype=np.int64)
    ranks = [_quantile_ranks(n_pairs, valid, q) for q in qs]
    if n_pairs == 0 or not all(bool(ok.all()) and bool(np.all(lo == lo[0])) and bool(np.all(hi == hi[0]))
                               for ok, _, lo, hi in ranks):
        return None
    wanted = sorted({int(r[2][0]) for r in ranks} | {int(r[3][0]) for r in ranks})
    at = {k: np.empty(n_pairs) for k in wanted}
    counts = np.empty(n_pairs, dtype=np.int64)
    buf = np.empty((min(_PAIR_BLOCK, n_pairs), n_rows))
    other = np.empty_like(buf)
    for s0 in range(0, n_pairs, _PAIR_BLOCK):
        s1 = min(n_pairs, s0 + _PAIR_BLOCK)
        d, e = buf[: s1 - s0], other[: s1 - s0]
        np.take(theta_t, pa[s0:s1], axis=0, out=d, mode="clip")  # indices checked by _validate; "raise" would
        np.take(theta_t, pb[s0:s1], axis=0, out=e, mode="clip")  # buffer the output
        np.subtract(d, e, out=d)  # row r: exactly theta*_a - theta*_b of pair s0 + r
        block_counts, block_valid = _count_p(d.T, delta[s0:s1], tol[s0:s1], alternative, shifted=True)
        if np.any(block_valid != n_rows):  # a difference overflowed to infinity: the whole-matrix path
            return None
        counts[s0:s1] = block_counts
        start = 0
        for k in wanted:  # as _quantiles: ascending ranks, each selected above the previous one
            d[:, start:].partition(k - start, axis=1)
            at[k][s0:s1] = d[:, k]
            start = k + 1
    return counts, valid, [_interpolate(ok, h, lo, at[int(lo[0])], at[int(hi[0])]) for ok, h, lo, hi in ranks]


_F32_PAIRS_MIN = 20_000
"""Pairs (a leaderboard of 200 systems and more) from which float32 replicates are counted and selected a block of
pairs at a time (:func:`_float32_pairs`) instead of from the whole (B, P) matrix: 4 GB at B = 1,000 and 499,500
pairs, and as much again for its copies."""
_F32_BLOCK = 2048


def _float32_pairs(theta_t: np.ndarray, pa: np.ndarray, pb: np.ndarray, delta: np.ndarray, tol: np.ndarray,
                   alternative: str, qs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """What :func:`_pvalues` and :func:`_pair_intervals` compute from float32 replicates (the tie tolerance widened
    by :data:`_F32_SD_TOL` of each pair's replicate SD, the counts, the percentile quantiles), :data:`_F32_BLOCK`
    pairs at a time: each is a function of its pair's column alone, reduced in the same order (a C-ordered block
    sums each column row by row, as the whole matrix does), so the same counts and floats."""
    n_pairs = pa.size
    counts = np.empty(n_pairs, dtype=np.int64)
    valid = np.empty(n_pairs, dtype=np.int64)
    out = [np.empty(n_pairs) for _ in qs]
    for s0 in range(0, n_pairs, _F32_BLOCK):
        s1 = min(n_pairs, s0 + _F32_BLOCK)
        stat = _pair_differences(theta_t, pa[s0:s1], pb[s0:s1]).T  # (B, p): the whole matrix's columns s0..s1
        with np.errstate(invalid="ignore"):
            sd = np.nanstd(np.ascontiguousarray(stat), axis=0)
        t = tol[s0:s1] + _F32_SD_TOL * np.where(np.isfinite(sd), sd, 0.0)
        counts[s0:s1], valid[s0:s1] = _count_p(stat, delta[s0:s1], t, alternative, shifted=True)
        for dst, got in zip(out, _quantiles(stat, valid[s0:s1], [q[s0:s1] for q in qs], overwrite=True)):
            dst[s0:s1] = got
    return counts, valid, out


def _count_p(
    stat: np.ndarray, observed: np.ndarray, tol: np.ndarray, alternative: str, shifted: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Counts of replicates at least as extreme as observed, and valid replicate counts, per column."""
    valid = np.isfinite(stat)
    all_valid = bool(valid.all())
    with np.errstate(invalid="ignore"):
        t = stat - observed[None, :] if shifted else stat
        if alternative == "two-sided":
            t = np.abs(t, out=t) if shifted else np.abs(t)
            hit = t >= np.abs(observed)[None, :] - tol[None, :]
        elif alternative == "greater":
            hit = t >= observed[None, :] - tol[None, :]
        else:
            hit = t <= observed[None, :] + tol[None, :]
    if all_valid:  # the usual case: no 0/0 replicate, so no mask to apply and every column counts all rows
        counts = hit.view(np.uint8).sum(axis=0, dtype=np.int64)
        return counts, np.full(stat.shape[1], stat.shape[0], dtype=np.int64)
    return np.count_nonzero(hit & valid, axis=0), np.count_nonzero(valid, axis=0)


# --------------------------------------------------------------------------------------------
# Engine
# --------------------------------------------------------------------------------------------


def _validate(
    stats: np.ndarray,
    metric: CorpusMetric,
    pairs: Sequence[tuple[int, int]],
    method: str,
    n_resamples: int,
    alternative: str,
    ci_level: float,
    ci_method: str,
    alpha: float,
    chunk_size: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; known: {', '.join(ALTERNATIVES)}")
    if ci_method not in CI_METHODS:
        raise ValueError(f"unknown ci_method {ci_method!r}; known: {', '.join(CI_METHODS)}")
    if not 0.0 < ci_level < 1.0:
        raise ValueError(f"ci_level must be in (0, 1), got {ci_level!r}")
    if int(n_resamples) < 1:
        raise ValueError("n_resamples must be at least 1")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if chunk_size is not None and int(chunk_size) < 1:
        raise ValueError("chunk_size must be at least 1")
    x = np.asarray(stats)
    if x.ndim != 3:
        raise ValueError(f"stats must have shape (n_items, k_systems, n_stats), got {x.shape}")
    if x.dtype.kind not in "biuf":
        raise ValueError(f"stats must be numeric, got dtype {x.dtype}")
    if x.shape[2] != metric.n_stats:
        raise ValueError(f"metric {metric.name!r} needs {metric.n_stats} statistics per item, stats has {x.shape[2]}")
    if x.dtype.kind == "f" and not np.all(np.isfinite(x)):
        raise ValueError("stats contain NaN or infinite values; drop or impute those items before resampling")
    k = x.shape[1]
    pa_list, pb_list = [], []
    for pair in pairs:
        a, b = (int(v) for v in pair)
        if not (0 <= a < k and 0 <= b < k):
            raise ValueError(f"pair {pair!r} refers to a system outside 0..{k - 1}")
        if a == b:
            raise ValueError(f"pair {pair!r} compares a system with itself")
        pa_list.append(a)
        pb_list.append(b)
    return x, np.asarray(pa_list, dtype=np.int64), np.asarray(pb_list, dtype=np.int64)


def _chunk_plan(n_rows: int, n_items: int, itemsize: int, chunk_size: int | None) -> list[tuple[int, int]]:
    if chunk_size is None:
        chunk_size = max(_STREAM_BLOCK, _TARGET_CHUNK_BYTES // max(1, n_items * itemsize))
    chunk = max(_STREAM_BLOCK, -(-int(chunk_size) // _STREAM_BLOCK) * _STREAM_BLOCK)
    return [(start, min(n_rows, start + chunk)) for start in range(0, n_rows, chunk)]


def _run(func: Callable[[tuple[int, int]], np.ndarray], plan: list[tuple[int, int]]) -> np.ndarray:
    return np.concatenate([func(c) for c in plan], axis=0)


_WORKSPACE = threading.local()
"""Each thread's weight matrix buffer (one chunk, about ``_TARGET_CHUNK_BYTES``), kept from one engine call to the
next: a report resamples every metric of every corpus, and a fresh buffer per call cost as much again in page
faults as filling it. A worker thread's buffer goes with the
thread; the calling thread keeps one chunk's worth. The buffer's contents never outlive a chunk."""


def release_workspace() -> None:
    """Free this thread's weight buffer (an executor calls it when a run's analyses are done, so that a long-lived
    process, or the rendering that follows, does not hold one chunk of replicates it no longer needs)."""
    _WORKSPACE.__dict__.clear()


def _weights(
    kind: str,
    start: int,
    stop: int,
    n: int,
    dtype: type,
    seeds: list[np.random.SeedSequence] | None,
    local: threading.local,
    drawn: Resample | None = None,
) -> np.ndarray:
    """Rows start..stop of the replicate weight matrix, generated per stream block (or copied from
    ``drawn``, the same rows drawn beforehand).

    The matrix lives in a per-thread buffer reused across chunks: a fresh tens-of-megabytes
    array per chunk costs as much in page faults as generating its contents.
    """
    buf = getattr(local, "buf", None)
    if buf is None or buf.shape[0] < stop - start or buf.shape[1] != n or buf.dtype != dtype:
        buf = np.empty((stop - start, n), dtype=dtype)
        local.buf = buf
    W = buf[: stop - start]
    if drawn is not None:
        np.copyto(W, drawn.weights[start:stop])
        return W
    if kind == "enumerate":
        _enumeration_rows(start, W)
        return W
    for b0 in range(start, stop, _STREAM_BLOCK):
        b1 = min(stop, b0 + _STREAM_BLOCK)
        assert seeds is not None
        rng = np.random.Generator(np.random.PCG64(seeds[b0 // _STREAM_BLOCK]))
        if kind == "bootstrap":
            _multinomial_rows(rng, W[b0 - start : b1 - start], local)
        else:
            _swap_rows(rng, W[b0 - start : b1 - start])
    return W


def _jackknife_acceleration(
    x: np.ndarray, totals: np.ndarray, metric: CorpusMetric, pa: np.ndarray, pb: np.ndarray, delta: np.ndarray
) -> np.ndarray:
    """BCa acceleration a = sum U^3 / (6 (sum U^2)^1.5) of every pair's delta, U = jackknife deviations.

    Leave-one-out totals are ``totals - x_i``; item blocks keep memory bounded. Moments are
    accumulated about the full-sample delta, then centred (Efron & Tibshirani 1993, eq. 14.15).
    """
    n, k, s = x.shape
    P = pa.size
    s1, s2, s3 = np.zeros(P), np.zeros(P), np.zeros(P)
    step = max(1, _JACKKNIFE_BLOCK_ELEMENTS // (k * s + P))
    for i in range(0, n, step):
        loo = totals[None] - np.asarray(x[i : i + step], dtype=np.float64)
        th = metric.value(loo, n - 1)
        e = th[:, pa] - th[:, pb] - delta[None, :]
        s1 += e.sum(axis=0)
        s2 += (e * e).sum(axis=0)
        s3 += (e * e * e).sum(axis=0)
    m = s1 / n
    c2 = s2 - n * m * m
    c3 = s3 - 3.0 * m * s2 + 2.0 * n * m**3
    with np.errstate(divide="ignore", invalid="ignore"):
        # U_i = mean - e_i, so sum U^3 = -sum (e - m)^3
        return np.where(c2 > 0, -c3 / (6.0 * c2**1.5), np.nan)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Options:
    """One call's settings of :func:`paired_resampling` (bootstrap or permutation), checked by ``_validate``."""

    method: str
    n_resamples: int
    seed: int
    alternative: str
    ci_level: float
    ci_method: str
    alpha: float
    chunk_size: int | None

    @property
    def result_ci_method(self) -> str | None:
        """The interval method the result names: only the bootstrap gives an interval."""
        return self.ci_method if self.method == "bootstrap" else None

    @property
    def tail_level(self) -> float:
        """The probability in each bounded tail of a pair's interval (one tail for a one-sided alternative)."""
        return 1.0 - self.ci_level if self.alternative != "two-sided" else (1.0 - self.ci_level) / 2.0


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Observed:
    """The full-data values every replicate is compared with."""

    totals: np.ndarray  # (k, s) column totals of the sufficient statistics
    theta: np.ndarray  # (k,) each system's metric value
    delta: np.ndarray  # (P,) each pair's difference theta_a - theta_b
    tol: np.ndarray  # (P,) tie tolerance: _RTOL times the larger |theta| of the pair


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Replicates:
    """One call's replicates: what the p-values and intervals are computed from."""

    n_rows: int  # B, or 2**n when every sign assignment is enumerated
    exact: bool  # every sign assignment enumerated (permutation only)
    design: _Design
    stat_b: np.ndarray  # (n_rows, P) each pair's replicate statistic; (n_rows, 0) when ``blocked`` holds its results
    theta_b: np.ndarray | None = None  # (B, k) bootstrap metric values per system; None for the permutation
    theta_t: np.ndarray | None = None  # (k, B) the same, held system by system
    blocked: tuple[np.ndarray, np.ndarray, list[np.ndarray]] | None = None  # _percentile_pairs' counts and quantiles


@dataclasses.dataclass(frozen=True, kw_only=True)
class _PairArrays:
    """Every pair's numbers, vectorised; :func:`_pair_result` turns one column into a result record."""

    valid: np.ndarray  # replicates counted (defined metric)
    pvals: np.ndarray
    mc_se: np.ndarray  # Monte Carlo standard error of the p-value
    ci_lo: np.ndarray
    ci_hi: np.ndarray
    accel: np.ndarray | None  # BCa acceleration, or None for a percentile interval


def paired_resampling(
    stats: np.ndarray,
    metric: CorpusMetric,
    pairs: Sequence[tuple[int, int]],
    method: str,
    n_resamples: int,
    seed: int,
    alternative: str = "two-sided",
    ci_level: float = 0.95,
    ci_method: str = "percentile",
    alpha: float = 0.05,
    chunk_size: int | None = None,
    resample: Resample | None = None,
) -> ResamplingResult:
    """Paired bootstrap or approximate randomization for many pairs of systems at once.

    ``stats`` has shape (n_items, k_systems, n_stats): per-item sufficient statistics of
    ``metric``. ``method`` is 'bootstrap', 'permutation' or 'bootstrap_t' (studentized, mean metric
    only: see the module docstring). ``pairs`` lists (a, b) system indices; each result is a minus b. All pairs share
    one set of replicates, generated from ``seed`` (see the module docstring for the formulas,
    tie rule, arithmetic and stream layout). ``alpha`` is only used to warn when a p-value lies
    within two Monte Carlo standard errors of it (the decision could flip with another seed).
    ``ci_method`` applies to the bootstrap only. ``chunk_size`` (replicates per chunk, rounded up
    to a multiple of 32) changes speed and memory, never results (up to
    float rounding of the interval ends; p-values are counts and identical). Data errors (NaN or
    infinite statistics, wrong shapes, unknown names) raise ValueError; degenerate data (fewer
    than 2 items, a metric that is 0/0) give ``None`` values and a sentence in ``warnings``;
    warnings name systems by their index in ``stats``. ``resample`` (from :func:`draw_resample` with
    this call's :func:`resample_kind`, ``n_resamples``, item count and ``seed``; checked) supplies the
    replicates instead of drawing them here: the same rows, so the same result, but one draw can
    serve every metric measured on the same items.

    The steps, each vectorised over replicates and pairs: the full-data values (:func:`_observe`), the
    replicates (:func:`_replicates`), p-values (:func:`_pvalues`), the pairs' intervals
    (:func:`_pair_intervals`), the systems' intervals (:func:`_system_intervals`), then one record per pair.
    """
    x, pa, pb = _validate(stats=stats, metric=metric, pairs=pairs, method=method, n_resamples=n_resamples,
                          alternative=alternative, ci_level=ci_level, ci_method=ci_method, alpha=alpha,
                          chunk_size=chunk_size)
    _check_resample(resample, method, x.shape[0], int(n_resamples), int(seed))
    if method == "bootstrap_t":
        return _paired_bootstrap_t(x=x, metric=metric, pa=pa, pb=pb, n_resamples=int(n_resamples), seed=int(seed),
                                   alternative=alternative, ci_level=ci_level, ci_method=ci_method, alpha=alpha,
                                   chunk_size=chunk_size, resample=resample)
    if ci_method == "studentized":
        raise ValueError("ci_method='studentized' is the interval of method='bootstrap_t'; "
                         f"method={method!r} takes 'percentile' or 'bca'")
    opt = _Options(method=method, n_resamples=int(n_resamples), seed=int(seed), alternative=alternative,
                   ci_level=ci_level, ci_method=ci_method, alpha=alpha, chunk_size=chunk_size)
    n = x.shape[0]
    if n < 2:
        return _too_few_items(x, metric, pa.size, opt)
    obs = _observe(x, metric, pa, pb)
    warnings = [f"the metric is undefined (0/0) for system {int(j)} on the full data"
                for j in np.flatnonzero(~np.isfinite(obs.theta))]
    reps = _replicates(x, metric, pa, pb, obs, opt, resample)
    valid, pvals, mc_se = _pvalues(reps, obs, opt)
    ci_lo, ci_hi, accel = _pair_intervals(x, metric, pa, pb, obs, reps, valid, opt)
    system_ci, system_warnings = _system_intervals(reps.theta_b, obs.theta, opt.ci_level)
    arrays = _PairArrays(valid=valid, pvals=pvals, mc_se=mc_se, ci_lo=ci_lo, ci_hi=ci_hi, accel=accel)
    # the replicate differences sorted, made only for a degenerate interval's warning; recomputed from theta_t
    # because the interval's selection reordered stat_b (or it was never made)
    sorted_diffs = functools.cache(lambda: np.sort(_pair_differences(reps.theta_t, pa, pb).T, axis=0))
    out_pairs = tuple(  # assembling result objects only; every number above is vectorised
        _pair_result(idx=idx, a=int(pa[idx]), b=int(pb[idx]), n=n, obs=obs, reps=reps, arrays=arrays,
                     sorted_diffs=sorted_diffs, opt=opt)
        for idx in range(pa.size)
    )
    return ResamplingResult(method=method, n=n, n_resamples=opt.n_resamples, seed=opt.seed, alternative=alternative,
                            ci_level=ci_level, ci_method=opt.result_ci_method, pairs=out_pairs, system_ci=system_ci,
                            warnings=tuple(warnings + system_warnings))


def _too_few_items(x: np.ndarray, metric: CorpusMetric, n_pairs: int, opt: _Options) -> ResamplingResult:
    """The result for fewer than 2 items: the observed values where defined, no test, one warning."""
    n, k, _ = x.shape
    msg = f"only {n} item(s): resampling needs at least 2"
    pairs_out = tuple(
        _degenerate_pair(opt.method, n, opt.alternative, opt.ci_level, opt.ci_method, opt.n_resamples, (msg,))
        for _ in range(n_pairs)
    )
    theta0 = metric.value(np.asarray(x, dtype=np.float64).sum(axis=0), n) if n else np.full(k, np.nan)
    sys_ci = tuple((finite_or_none(v), None, None) for v in theta0)
    return ResamplingResult(method=opt.method, n=n, n_resamples=opt.n_resamples, seed=opt.seed,
                            alternative=opt.alternative, ci_level=opt.ci_level, ci_method=opt.result_ci_method,
                            pairs=pairs_out, system_ci=sys_ci, warnings=(msg,))


def _observe(x: np.ndarray, metric: CorpusMetric, pa: np.ndarray, pb: np.ndarray) -> _Observed:
    """The metric on the full data, each pair's difference and its tie tolerance (module docstring, "Ties")."""
    totals = np.asarray(np.sum(x, axis=0, dtype=np.float64))  # (k, s)
    theta = metric.value(totals, x.shape[0])  # (k,)
    delta = theta[pa] - theta[pb]
    scale = np.maximum(np.abs(theta[pa]), np.abs(theta[pb]))
    scale = np.where(np.isfinite(scale), scale, 0.0)
    return _Observed(totals=totals, theta=theta, delta=delta, tol=_RTOL * scale)


def _replicates(
    x: np.ndarray, metric: CorpusMetric, pa: np.ndarray, pb: np.ndarray, obs: _Observed, opt: _Options,
    resample: Resample | None,
) -> _Replicates:
    """Draw the replicate weights chunk by chunk (or take them from ``resample``) and compute each pair's
    replicate statistic: the bootstrap's ``delta*`` or the randomization's swapped difference."""
    n = x.shape[0]
    exact = opt.method == "permutation" and n < 63 and 2**n <= opt.n_resamples
    design = _design(x, with_common=opt.method == "bootstrap")
    dtype = design.X.dtype.type
    n_rows = 2**n if exact else opt.n_resamples
    plan = _chunk_plan(n_rows, n, design.X.itemsize, opt.chunk_size)
    seeds = None if exact or resample is not None else \
        np.random.SeedSequence(opt.seed).spawn(-(-n_rows // _STREAM_BLOCK))
    kind = "bootstrap" if opt.method == "bootstrap" else "enumerate" if exact else "permutation"
    local = _WORKSPACE

    def weights(bounds: tuple[int, int]) -> np.ndarray:
        return _weights(kind, bounds[0], bounds[1], n, dtype, seeds, local, resample)

    if opt.method == "bootstrap":
        return _bootstrap_replicates(shape=x.shape, metric=metric, pa=pa, pb=pb, obs=obs, opt=opt, design=design,
                                     weights=weights, plan=plan)
    stat_b = _swapped_differences(x.shape, metric, pa, pb, obs.totals, design, weights, plan) if pa.size else \
        np.empty((n_rows, 0))
    return _Replicates(n_rows=n_rows, exact=exact, design=design, stat_b=stat_b)


def _bootstrap_replicates(
    shape: tuple[int, ...], metric: CorpusMetric, pa: np.ndarray, pb: np.ndarray, obs: _Observed, opt: _Options,
    design: _Design, weights: Callable[[tuple[int, int]], np.ndarray], plan: list[tuple[int, int]],
) -> _Replicates:
    """Every system's bootstrap values and every pair's ``delta*``; for a percentile interval the pairs' counts
    and quantiles come straight from :func:`_percentile_pairs`, without the (B, P) matrix."""
    n, k, s = shape
    ks = k * s
    P = pa.size

    def chunk(bounds: tuple[int, int]) -> np.ndarray:
        W = weights(bounds)
        out = (W @ design.X).astype(np.float64)
        tot = out[:, :ks].reshape(-1, k, s) + n * design.offset[None]
        if design.common_offset is not None:
            tot += (out[:, ks:] + n * design.common_offset[None, :])[:, None, :]
        return metric.value(tot, n)

    theta_b = _run(chunk, plan)  # (B, k)
    n_rows = theta_b.shape[0]
    # (B, P), held pair by pair ((P, B) in memory): each pair's replicates contiguous for counting and
    # selecting, and the rows gathered from the small (k, B) transpose cost a third of a column gather.
    # Elementwise the same subtraction of the same values; layout-sensitive reductions below copy to C order.
    theta_t = np.ascontiguousarray(theta_b.T)
    blocked = None
    if opt.ci_method == "percentile" and P and (design.exact or not design.float32):
        lev = opt.tail_level
        blocked = _percentile_pairs(theta_t, pa, pb, obs.delta, obs.tol, opt.alternative,
                                    (np.full(P, lev), np.full(P, 1.0 - lev)))
    elif opt.ci_method == "percentile" and P >= _F32_PAIRS_MIN and np.isfinite(theta_t).all():
        lev = opt.tail_level
        blocked = _float32_pairs(theta_t, pa, pb, obs.delta, obs.tol, opt.alternative,
                                 (np.full(P, lev), np.full(P, 1.0 - lev)))
    stat_b = _pair_differences(theta_t, pa, pb).T if blocked is None else np.empty((n_rows, 0))
    return _Replicates(n_rows=n_rows, exact=False, design=design, stat_b=stat_b, theta_b=theta_b, theta_t=theta_t,
                       blocked=blocked)


def _swapped_differences(
    shape: tuple[int, ...], metric: CorpusMetric, pa: np.ndarray, pb: np.ndarray, totals: np.ndarray,
    design: _Design, weights: Callable[[tuple[int, int]], np.ndarray], plan: list[tuple[int, int]],
) -> np.ndarray:
    """(B, P) randomization replicates: each pair's difference after swapping the items a replicate marks."""
    n, k, s = shape
    sys_tot_a = totals[pa]  # (P, s)
    sys_tot_b = totals[pb]

    def chunk(bounds: tuple[int, int]) -> np.ndarray:
        S = weights(bounds)
        rs = S.sum(axis=1, dtype=np.float64)
        out = (S @ design.X).astype(np.float64).reshape(-1, k, s)
        out += rs[:, None, None] * design.offset[None]
        D = out[:, pa, :] - out[:, pb, :]  # (c, P, s): swapped part of a - b
        return metric.value(sys_tot_a[None] - D, n) - metric.value(sys_tot_b[None] + D, n)

    return _run(chunk, plan)


def _pvalues(reps: _Replicates, obs: _Observed, opt: _Options) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair's counted replicates, p-value and its Monte Carlo standard error (module docstring's formulas;
    float32 replicates widen the tie tolerance by ``_F32_SD_TOL`` of their standard deviation)."""
    stat_b = reps.stat_b
    P = obs.delta.size
    tol = obs.tol
    if not reps.design.exact and reps.design.float32 and stat_b.shape[0] > 1 and reps.blocked is None:
        with np.errstate(invalid="ignore"):
            sd = np.nanstd(np.ascontiguousarray(stat_b), axis=0) if P else np.zeros(0)  # sums in C order, as ever
        tol = tol + _F32_SD_TOL * np.where(np.isfinite(sd), sd, 0.0)
    if reps.blocked is not None:
        counts, valid = reps.blocked[0], reps.blocked[1]
    else:
        counts, valid = _count_p(stat_b, obs.delta, tol, opt.alternative, shifted=opt.method == "bootstrap")
    with np.errstate(invalid="ignore", divide="ignore"):
        if reps.exact:
            pvals = counts / np.maximum(valid, 1)
            mc_se = np.zeros(P)
        else:
            pvals = (counts + 1.0) / (valid + 1.0)
            mc_se = np.sqrt(pvals * (1.0 - pvals) / np.maximum(valid, 1))
    return valid, pvals, mc_se


def _pair_intervals(
    x: np.ndarray, metric: CorpusMetric, pa: np.ndarray, pb: np.ndarray, obs: _Observed, reps: _Replicates,
    valid: np.ndarray, opt: _Options,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every pair's bootstrap interval (percentile or BCa; NaN for the permutation, which gives none) and the
    BCa acceleration. Selecting the quantiles reorders ``reps.stat_b`` in place."""
    P = pa.size
    if opt.method != "bootstrap" or not P:
        return np.full(P, np.nan), np.full(P, np.nan), None
    lev = opt.tail_level
    accel = None
    if opt.ci_method == "percentile":
        q1 = np.full(P, lev)
        q2 = np.full(P, 1.0 - lev)
    else:
        q1, q2, accel = _bca_levels(x, metric, pa, pb, obs, reps.stat_b, valid, lev)
    if reps.blocked is not None:
        ci_lo, ci_hi = reps.blocked[2]
    else:
        ci_lo, ci_hi = _quantiles(reps.stat_b, valid, (q1, q2), overwrite=True)
    if opt.alternative == "greater":
        ci_hi = np.full(P, np.inf)
    elif opt.alternative == "less":
        ci_lo = np.full(P, -np.inf)
    return ci_lo, ci_hi, accel


def _bca_levels(
    x: np.ndarray, metric: CorpusMetric, pa: np.ndarray, pb: np.ndarray, obs: _Observed, stat_b: np.ndarray,
    valid: np.ndarray, lev: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The BCa interval's adjusted quantile levels and the acceleration (Efron & Tibshirani 1993, eq. 14.10;
    z0 from the "mean" percentile-of-score, as ``scipy.stats.bootstrap``)."""
    from scipy import special  # imported here: slow to import, and most builds never need it

    delta = obs.delta
    with np.errstate(invalid="ignore", divide="ignore"):
        below = (np.count_nonzero(stat_b < delta, axis=0) + np.count_nonzero(stat_b <= delta, axis=0))
        z0 = special.ndtri(below / (2.0 * np.maximum(valid, 1)))
        accel = _jackknife_acceleration(x, obs.totals, metric, pa, pb, delta)
        za = special.ndtri(lev)
        num1 = z0 + za
        num2 = z0 - za
        q1 = special.ndtr(z0 + num1 / (1.0 - accel * num1))
        q2 = special.ndtr(z0 + num2 / (1.0 - accel * num2))
    return q1, q2, accel


def _system_intervals(
    theta_b: np.ndarray | None, theta: np.ndarray, ci_level: float
) -> tuple[tuple[tuple[float | None, float | None, float | None], ...], list[str]]:
    """Each system's value and bootstrap percentile interval (no interval without bootstrap replicates), and a
    warning per system whose metric was undefined in some replicates."""
    k = theta.size
    if theta_b is None:
        return tuple((finite_or_none(theta[j]), None, None) for j in range(k)), []
    warnings: list[str] = []
    sys_valid = np.count_nonzero(np.isfinite(theta_b), axis=0)
    lev2 = (1.0 - ci_level) / 2.0
    s_lo, s_hi = _quantiles(theta_b, sys_valid, (np.full(k, lev2), np.full(k, 1.0 - lev2)))
    for j in np.flatnonzero(sys_valid < theta_b.shape[0]):
        if np.isfinite(theta[j]):
            warnings.append(
                f"system {int(j)}: {theta_b.shape[0] - int(sys_valid[j])} of {theta_b.shape[0]} bootstrap "
                "replicates gave an undefined metric (0/0) and were left out of its interval"
            )
    system_ci = tuple(
        (finite_or_none(theta[j]), finite_or_none(s_lo[j]), finite_or_none(s_hi[j])) for j in range(k)
    )
    return system_ci, warnings


def _pair_result(
    idx: int, a: int, b: int, n: int, obs: _Observed, reps: _Replicates, arrays: _PairArrays,
    sorted_diffs: Callable[[], np.ndarray], opt: _Options,
) -> PairedTestResult:
    """Pair ``idx``'s (systems a, b) result record from the vectorised numbers, with its warnings."""
    method = opt.method
    d = obs.delta[idx]
    valid = arrays.valid[idx]
    extra: dict[str, object] = {
        "n_resamples": int(valid),
        "mc_se": None,
        "ci_method": opt.result_ci_method,
        "null": "shifted" if method == "bootstrap" else "sign-flip",
    }
    if method == "permutation":
        extra["exact"] = bool(reps.exact)
    if not np.isfinite(d):
        which = [f"system {j}" for j in (a, b) if not np.isfinite(obs.theta[j])]
        why = (f"the metric is undefined (0/0) for {' and '.join(which)} on the full data: no test",)
        return PairedTestResult(method=method, n=n, statistic=None, df=None, pvalue=None, alternative=opt.alternative,
                                estimate=None, ci_low=None, ci_high=None, ci_level=opt.ci_level, critical_value=None,
                                effect_size=None, warnings=why, extra=extra)
    pw: list[str] = []
    if valid < reps.n_rows:
        pw.append(
            f"{reps.n_rows - int(valid)} of {reps.n_rows} replicates gave an undefined metric (0/0) "
            "and were left out of the p-value and interval"
        )
    p = arrays.pvals[idx] if valid > 0 else np.nan
    mc_se = arrays.mc_se[idx]
    if not np.isfinite(p):
        pw.append("every replicate gave an undefined metric: no p-value")
    extra["mc_se"] = finite_or_none(mc_se) if np.isfinite(p) else None
    if np.isfinite(p) and not reps.exact and abs(p - opt.alpha) < 2.0 * mc_se:
        pw.append(
            f"the p-value is within two Monte Carlo standard errors ({mc_se:.2g}) of alpha = {opt.alpha:g}: "
            "the decision may change with another seed; increase n_resamples"
        )
    lo, hi = arrays.ci_lo[idx], arrays.ci_hi[idx]
    if method == "bootstrap":
        lo, hi = _interval_ends(idx, lo, hi, valid, arrays.accel, sorted_diffs, opt, pw)
    return PairedTestResult(
        method=method,
        n=n,
        statistic=finite_or_none(d),
        df=None,
        pvalue=finite_or_none(p),
        alternative=opt.alternative,
        estimate=finite_or_none(d),
        ci_low=finite_or_none(lo) if method == "bootstrap" else None,
        ci_high=finite_or_none(hi) if method == "bootstrap" else None,
        ci_level=opt.ci_level,
        critical_value=None,
        effect_size=None,
        warnings=tuple(pw),
        extra=extra,
    )


def _interval_ends(
    idx: int, lo: float, hi: float, valid: int, accel: np.ndarray | None, sorted_diffs: Callable[[], np.ndarray],
    opt: _Options, warnings: list[str],
) -> tuple[float, float]:
    """A bootstrap interval's ends, with a warning appended for each way it can fail: an undefined BCa
    acceleration, a single-point distribution (its ends become that point) or ends not computable."""
    alternative = opt.alternative
    if opt.ci_method == "bca" and accel is not None and not np.isfinite(accel[idx]):
        warnings.append("the jackknife values of the difference are all equal: the BCa acceleration is undefined")
    if (alternative != "less" and not np.isfinite(lo)) or (alternative != "greater" and not np.isfinite(hi)):
        srt = sorted_diffs()
        if valid > 0 and np.all(srt[:valid, idx] == srt[0, idx]):
            warnings.append("every bootstrap replicate gives the same difference: the interval is a single point")
            lo = srt[0, idx] if alternative != "less" else lo
            hi = srt[0, idx] if alternative != "greater" else hi
        else:
            warnings.append(f"the {opt.ci_method} interval could not be computed from the bootstrap distribution")
    return lo, hi


def _degenerate_pair(
    method: str, n: int, alternative: str, ci_level: float, ci_method: str, n_resamples: int, why: tuple[str, ...]
) -> PairedTestResult:
    extra: dict[str, object] = {
        "n_resamples": 0,
        "mc_se": None,
        "ci_method": ci_method if method == "bootstrap" else None,
        "null": "shifted" if method == "bootstrap" else "sign-flip",
    }
    if method == "permutation":
        extra["exact"] = False
    return PairedTestResult(method=method, n=n, statistic=None, df=None, pvalue=None, alternative=alternative,
                            estimate=None, ci_low=None, ci_high=None, ci_level=ci_level, critical_value=None,
                            effect_size=None, warnings=why, extra=extra)


# --------------------------------------------------------------------------------------------
# Studentized bootstrap (bootstrap-t), mean metric
# --------------------------------------------------------------------------------------------


def _is_mean_metric(metric: CorpusMetric) -> bool:
    return metric.func is _mean_value


def _bootstrap_t_replicates(
    x: np.ndarray, pa: np.ndarray, pb: np.ndarray, n_rows: int, seed: int, chunk_size: int | None,
    resample: Resample | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per replicate: system means (B, k), ``d* - d`` (B, P) and the differences' ``var*`` (B, P).

    One matmul per chunk of the count matrix with ``[x - colmean | d - d_bar | (d - d_bar)^2]`` in
    float64; the count matrices are those of ``bootstrap`` (same seed, same stream blocks).
    """
    n, k, _ = x.shape
    P = pa.size
    xs = np.asarray(x[:, :, 0], dtype=np.float64)
    colmean = xs.mean(axis=0)
    d = xs[:, pa] - xs[:, pb]
    dc = d - d.mean(axis=0)[None, :]
    design = np.ascontiguousarray(np.concatenate([xs - colmean[None, :], dc, dc * dc], axis=1))
    plan = _chunk_plan(n_rows, n, 8, chunk_size)
    seeds = None if resample is not None else np.random.SeedSequence(seed).spawn(-(-n_rows // _STREAM_BLOCK))
    local = _WORKSPACE

    def chunk(bounds: tuple[int, int]) -> np.ndarray:
        W = _weights("bootstrap", bounds[0], bounds[1], n, np.float64, seeds, local, resample)
        return W @ design

    out = _run(chunk, plan)
    theta_b = out[:, :k] / n + colmean[None, :]
    shift = out[:, k : k + P] / n  # d* - d
    var_b = np.maximum(out[:, k + P :] - n * shift * shift, 0.0) / (n - 1)
    return theta_b, shift, var_b


def _studentize(shift: np.ndarray, var_b: np.ndarray, n: int, sd_scale: np.ndarray) -> np.ndarray:
    """``t* = (d* - d) / se*``; ``se* = 0`` gives +-inf, or NaN (left out) when ``d* = d`` too.

    ``se*`` counts as zero below 1e-7 of the observed standard deviation (float64 rounding of the
    sums of squares is far smaller); ``d* = d`` within 1e-10 of the observed scale.
    """
    se_b = np.sqrt(var_b / n)
    zero_se = se_b <= 1e-7 * sd_scale[None, :] / math.sqrt(n)
    still = np.abs(shift) <= 1e-10 * np.maximum(sd_scale, 1e-300)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = shift / se_b
        return np.where(zero_se & still, np.nan, np.where(zero_se, np.sign(shift) * np.inf, t))


def _paired_bootstrap_t(
    x: np.ndarray,
    metric: CorpusMetric,
    pa: np.ndarray,
    pb: np.ndarray,
    n_resamples: int,
    seed: int,
    alternative: str,
    ci_level: float,
    ci_method: str,
    alpha: float,
    chunk_size: int | None,
    resample: Resample | None = None,
) -> ResamplingResult:
    """The ``bootstrap_t`` method of :func:`paired_resampling` (see the module docstring)."""
    if not _is_mean_metric(metric):
        raise ValueError(
            f"method='bootstrap_t' needs the mean metric, got {metric.name!r}: a corpus-level metric has no "
            "per-item differences to studentize by; use method='bootstrap' (percentile or BCa interval)"
        )
    if ci_method == "bca":
        raise ValueError("method='bootstrap_t' gives the studentized interval; ci_method='bca' belongs to "
                         "method='bootstrap'")
    n, k, _ = x.shape
    P = pa.size
    if n < 3:
        msg = f"only {n} item(s): the studentized bootstrap needs at least 3"
        pairs_out = tuple(_degenerate_t_pair(n, alternative, ci_level, n_resamples, (msg,)) for _ in range(P))
        theta0 = np.asarray(x[:, :, 0], dtype=np.float64).mean(axis=0) if n else np.full(k, np.nan)
        sys_ci = tuple((finite_or_none(v), None, None) for v in theta0)
        return ResamplingResult(method="bootstrap_t", n=n, n_resamples=n_resamples, seed=seed, alternative=alternative,
                                ci_level=ci_level, ci_method="studentized", pairs=pairs_out, system_ci=sys_ci,
                                warnings=(msg,))
    xs = np.asarray(x[:, :, 0], dtype=np.float64)
    theta = xs.mean(axis=0)
    d_items = xs[:, pa] - xs[:, pb]
    delta = d_items.mean(axis=0)
    sd = d_items.std(axis=0, ddof=1)
    scale = np.maximum(1.0, np.max(np.abs(d_items), axis=0)) if n else np.ones(P)
    constant = sd <= 1e-12 * scale
    se = sd / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = np.where(constant, np.nan, delta / np.where(constant, 1.0, se))

    theta_b, shift, var_b = _bootstrap_t_replicates(x, pa, pb, n_resamples, seed, chunk_size,
                                                    resample)
    t_b = _studentize(shift, var_b, n, np.where(constant, scale, sd))
    counts, valid = _count_p(t_b, t_obs, 1e-10 * np.abs(np.nan_to_num(t_obs)), alternative, shifted=False)
    with np.errstate(invalid="ignore", divide="ignore"):
        pvals = (counts + 1.0) / (valid + 1.0)
        mc_se = np.sqrt(pvals * (1.0 - pvals) / np.maximum(valid, 1))
    ci_lo, ci_hi = _studentized_interval(t_b, valid, delta, se, alternative, ci_level)
    system_ci = _system_percentile_ci(theta_b, theta, ci_level)
    out_pairs = tuple(
        _bootstrap_t_pair(n=n, alternative=alternative, ci_level=ci_level, alpha=alpha, d=float(delta[i]),
                          t=float(t_obs[i]), constant=bool(constant[i]), p=float(pvals[i]), mc_se=float(mc_se[i]),
                          valid=int(valid[i]), n_resamples=n_resamples, lo=float(ci_lo[i]), hi=float(ci_hi[i]))
        for i in range(P)
    )
    return ResamplingResult(method="bootstrap_t", n=n, n_resamples=n_resamples, seed=seed, alternative=alternative,
                            ci_level=ci_level, ci_method="studentized", pairs=out_pairs, system_ci=system_ci,
                            warnings=())


def _studentized_interval(
    t_b: np.ndarray, valid: np.ndarray, delta: np.ndarray, se: np.ndarray, alternative: str, ci_level: float
) -> tuple[np.ndarray, np.ndarray]:
    """``[d - q*_(1-a/2) se, d - q*_(a/2) se]`` from the t* quantiles (Efron & Tibshirani 1993, eq. 12.22)."""
    P = delta.size
    lev = 1.0 - ci_level if alternative != "two-sided" else (1.0 - ci_level) / 2.0
    q_hi, q_lo = _quantiles(t_b, valid, (np.full(P, 1.0 - lev), np.full(P, lev)))
    with np.errstate(invalid="ignore"):
        lo = delta - q_hi * se
        hi = delta - q_lo * se
    if alternative == "greater":
        hi = np.full(P, np.inf)
    elif alternative == "less":
        lo = np.full(P, -np.inf)
    return lo, hi


def _system_percentile_ci(
    theta_b: np.ndarray, theta: np.ndarray, ci_level: float
) -> tuple[tuple[float | None, float | None, float | None], ...]:
    k = theta.size
    lev = (1.0 - ci_level) / 2.0
    valid = np.full(k, theta_b.shape[0])
    lo, hi = _quantiles(theta_b, valid, (np.full(k, lev), np.full(k, 1.0 - lev)))
    return tuple((finite_or_none(theta[j]), finite_or_none(lo[j]), finite_or_none(hi[j])) for j in range(k))


def _bootstrap_t_pair(
    n: int, alternative: str, ci_level: float, alpha: float, d: float, t: float, constant: bool, p: float,
    mc_se: float, valid: int, n_resamples: int, lo: float, hi: float,
) -> PairedTestResult:
    """One pair's result record; degenerate differences follow ``paired_t``'s conventions."""
    warnings: list[str] = []
    extra: dict[str, object] = {"n_resamples": valid, "mc_se": None, "ci_method": "studentized",
                                "null": "studentized"}
    if constant:
        if abs(d) <= 1e-12:
            warnings.append("the two systems have identical scores on every item: t is undefined, p taken as 1")
            pvalue: float | None = 1.0
        else:
            warnings.append("the differences have zero variance: t is undefined (infinite), no p-value")
            pvalue = None
        return PairedTestResult(method="bootstrap_t", n=n, statistic=None, df=None, pvalue=pvalue,
                                alternative=alternative, estimate=d, ci_low=d if alternative != "less" else None,
                                ci_high=d if alternative != "greater" else None, ci_level=ci_level, critical_value=None,
                                effect_size=None, warnings=tuple(warnings), extra=extra)
    if valid < n_resamples:
        warnings.append(f"{n_resamples - valid} of {n_resamples} replicates had all differences equal to the "
                        "observed mean (t* = 0/0) and were left out")
    extra["mc_se"] = finite_or_none(mc_se)
    if abs(p - alpha) < 2.0 * mc_se:
        warnings.append(
            f"the p-value is within two Monte Carlo standard errors ({mc_se:.2g}) of alpha = {alpha:g}: "
            "the decision may change with another seed; increase n_resamples"
        )
    if (alternative != "less" and not math.isfinite(lo)) or (alternative != "greater" and not math.isfinite(hi)):
        warnings.append("a quantile of t* is infinite (replicates with all differences equal): the studentized "
                        "interval is unbounded on that side")
    return PairedTestResult(method="bootstrap_t", n=n, statistic=finite_or_none(t), df=None, pvalue=finite_or_none(p),
                            alternative=alternative, estimate=finite_or_none(d), ci_low=finite_or_none(lo),
                            ci_high=finite_or_none(hi), ci_level=ci_level, critical_value=None, effect_size=None,
                            warnings=tuple(warnings), extra=extra)


def _degenerate_t_pair(n: int, alternative: str, ci_level: float, n_resamples: int, why: tuple[str, ...]
                       ) -> PairedTestResult:
    extra: dict[str, object] = {"n_resamples": 0, "mc_se": None, "ci_method": "studentized", "null": "studentized"}
    return PairedTestResult(method="bootstrap_t", n=n, statistic=None, df=None, pvalue=None, alternative=alternative,
                            estimate=None, ci_low=None, ci_high=None, ci_level=ci_level, critical_value=None,
                            effect_size=None, warnings=why, extra=extra)
