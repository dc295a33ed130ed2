"""Bayesian comparison of two systems with a region of practical equivalence (ROPE).

Both tests answer "how probable is it that a is better, that the two are practically equivalent
(their difference lies within ``[-rope, rope]``), or that b is better?", with differences a minus b
(higher scores are better), and decide at a stated posterior probability (0.95 by default): a
decision is taken when one of the three probabilities reaches it, otherwise it is "undecided"
(Benavoli, Corani, Demšar & Zaffalon 2017, "Time for a change", JMLR 18(77), sec. 4-5).

signed_rank (items or data sets)
    The Bayesian signed-rank test (Benavoli et al. 2014 ICML; 2017 JMLR sec. 5.1), as baycomp's
    ``SignedRankTest`` computes it. The differences ``z_1..z_n`` plus a pseudo-observation
    ``z_0 = 0`` get Dirichlet weights ``w ~ Dir(s, 1, ..., 1)`` (``s`` the prior strength, baycomp's
    default 0.5). For each posterior sample the masses of the three regions are quadratic forms in
    the Walsh averages ``(z_i + z_j) / 2`` over all ordered pairs (i = j included)::

        theta_right = sum_ij w_i w_j H((z_i + z_j)/2 - rope)     (a better)
        theta_left  = sum_ij w_i w_j H(-(z_i + z_j)/2 - rope)    (b better)
        theta_rope  = 1 - theta_left - theta_right

    with ``H(0) = 1/2``. The posterior probability of each region is the share of samples in which
    its mass is the largest (baycomp's ``Posterior.probs``; exact ties, which need degenerate
    data, are split evenly, where baycomp's ``argmax`` gives them to the first region).

    Speed: baycomp forms the (n+1) x (n+1) matrix of indicators and loops over samples in Python
    (benchmarks/bench_bayes.py compares the two). Here, two exact reductions make a sample cost
    O(u) for u distinct difference values. (1) Equal differences are merged: the Walsh indicator
    depends on values only, and the sums of Dirichlet components over groups are Dirichlet with
    the summed parameters (the aggregation property), so a group of c equal values is one
    ``Gamma(c)`` weight (0/1 scores have at most three groups). (2) With the distinct values
    sorted, ``{j: u_i + u_j > 2 rope}`` is a suffix of the sorted order whose start does not
    depend on the weights; with unnormalised gamma weights ``g`` and their cumulative sums ``C``,
    ``g^T A g = sum_i g_i (C at that start)``, one cumulative sum and a gather per sample, all
    samples of a block at once; dividing by ``(sum g)^2`` normalises. See benchmarks/bench_bayes.py.

signed_rank, large n: the normal approximation (``method``: auto | monte_carlo | normal)
    Monte Carlo costs O(n_samples u); at n = 10,000 continuous differences and 50,000 samples that
    is 5 x 10^8 gamma draws, several seconds. For large n the two free masses (left, right) are
    approximately bivariate normal (quadratic forms of Dirichlet weights, V-statistics in effect).
    Their mean is computed exactly from the Dirichlet second moments, ``E[w_i w_j] = (a_i a_j +
    [i = j] a_i) / (a0 (a0 + 1))``; their covariance by the delta method (the Hoeffding projection)
    on ``w = g / sum g`` with independent ``g_i ~ Gamma(a_i)``; both from one cumulative sum over
    the sorted values (O(u log u), no u x u matrix; :func:`signed_rank_normal_moments`). The
    probability that each region has the largest mass is then a bivariate normal orthant (two
    half-planes meeting at (1/3, 1/3)), integrated exactly with Owen's T function: no sampling, no
    seed, no Monte Carlo error. What it leaves out is the skewness of the posterior, an error
    falling as 1/sqrt(n) and largest where a decision is in doubt (a probability near 0.5).
    Measured by ``benchmarks/bench_bayes.py --accuracy`` (largest |normal - Monte Carlo| of the
    three probabilities over seven shapes, each shifted so that the decision is in doubt; the
    reference's standard error in brackets; the clear winner gives 0 at every n; at n >= 2,000 part of
    each figure is the reference's own noise; the reference drew 200,000 (n = 10,000) to 2,000,000
    samples, ``--reference-budget 5e8`` up to n = 2,000 and the default above)::

        n       near rope  P = .95  heavy t3  ties+zeros  0/1 scores  rope = 0   largest
        500     .0027      .0009    .0030     .0027       .0035       .0000      .0035 (.0004)
        2,000   .0010      .0010    .0014     .0016       .0015       .0017      .0017 (.0010)
        5,000   .0007      .0003    .0012     .0012       .0007       .0003      .0012 (.0004)
        10,000  .0009      .0003    .0005     .0009       .0001       .0000      .0009 (.0011)

    ``auto`` therefore samples up to ``NORMAL_ABOVE`` paired values and uses the approximation
    above, where its error is below the Monte Carlo standard error of 50,000 samples (0.0022 at
    p = 0.5); ``normal`` forces it at any n (then a probability within ``NORMAL_ERROR`` of the
    decision level gets a warning).

bayesian_bootstrap (items or data sets whose scores are binary or mostly tied)
    The posterior of the mean difference by the Bayesian bootstrap (Rubin 1981, "The Bayesian bootstrap",
    Annals of Statistics 9(1):130-134): the items' differences ``d_1..d_n`` get weights
    ``w ~ Dirichlet(1, ..., 1)`` and the mean difference is ``mu = sum_i w_i d_i``. Its posterior mean is
    the sample mean and its variance ``sum_i (d_i - mean)^2 / (n (n + 1))`` (the Dirichlet's second
    moments). ``P(a better) = P(mu > rope)``, ``P(b better) = P(mu < -rope)``, ``P(equivalent) = P(|mu| <=
    rope)``. Why: the signed-rank posterior puts every zero difference at 0, inside any ROPE, so with 0/1
    scores (where 69-91% of the items of two classifiers may tie) it declares "practically equivalent"
    two systems whose accuracies differ by several points; the mean's posterior is centred on the observed
    mean difference and cannot. Equal differences are merged (the aggregation property again: a group of
    c equal values is one ``Gamma(c)`` weight), so 0/1 scores cost three gamma draws per sample. Samples
    come in the same seeded blocks as the signed-rank test's. :func:`choose_model` says when it is used.
    Validated (tests/stats/test_bayes_bootstrap.py) against the closed-form posterior mean and variance,
    an exact integration of the Dirichlet density for 0/1 differences, and numpy's own Dirichlet sampler
    (another random path), within Monte Carlo error. R's ``bayesboot`` is not packaged by Debian.

correlated_t (cross-validation)
    The correlated Bayesian t test (Corani & Benavoli 2015, Machine Learning 100:285-304;
    baycomp's ``CorrelatedTTest``): with J fold differences of mean ``m`` and variance ``s^2``, the
    posterior of the mean difference under the Nadeau-Bengio correlation ``rho`` is Student t with
    J - 1 degrees of freedom, location ``m`` and scale ``sqrt(s^2 (1/J + rho / (1 - rho)))``. For
    k-fold cross-validation ``rho = n_test / (n_train + n_test) = 1/k`` (baycomp's choice; see
    :func:`cv_correlation`). The probabilities are Student t tail areas, exact and free of
    randomness.

Randomness: the signed-rank samples come in fixed blocks of ``_SAMPLE_BLOCK`` samples, block j
from ``numpy.random.Generator(PCG64(SeedSequence(seed).spawn(n_blocks)[j]))``, so a seed gives the
same bytes on any machine (baycomp uses the legacy ``RandomState``: the two agree within Monte
Carlo error, not sample by sample). The Monte Carlo standard error of each probability,
``sqrt(p (1 - p) / n_samples)``, is reported.

Validated (tests/stats/test_bayes.py) against baycomp 1.0.3 (``SignedRankTest.probs``,
``CorrelatedTTest.probs``), live in the tests with fixed seeds, on equal, clearly different and
mostly-within-the-ROPE data, within Monte Carlo error.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

DECISIONS = ("a_better", "equivalent", "b_better", "undecided")
MODELS = ("auto", "signed_rank", "bayesian_bootstrap")  # tests.bayesian.model (items and corpora)
MOSTLY_TIED = 0.5  # more than this share of a pair's differences zero: "mostly tied" (choose_model)
POSTERIOR_METHODS = ("auto", "monte_carlo", "normal")
NORMAL_ABOVE = 5_000  # auto: the normal approximation above this many paired values (module docstring)
NORMAL_ERROR = 0.002  # bounds the largest measured |normal - Monte Carlo| above NORMAL_ABOVE (0.0012)

_SAMPLE_BLOCK = 1024  # posterior samples per random stream
_BLOCK_ELEMENTS = 1 << 16  # samples x distinct values per step: 512 KB arrays stay in cache (measured 1.7x faster than 4 MB)


@dataclasses.dataclass(frozen=True, kw_only=True)
class BayesianResult:
    """Posterior probabilities of one comparison a minus b, and the decision they support.

    ``p_a_better + p_equivalent + p_b_better = 1``. ``decision`` is one of :data:`DECISIONS`:
    the region whose probability reaches ``decision_level``, or ``undecided``. ``estimate`` is the
    mean difference a - b. ``n_samples``, ``seed`` and ``mc_se`` (largest Monte Carlo standard
    error of the three probabilities) are ``None`` for the correlated t test, which is exact.
    ``prior_strength`` belongs to the signed-rank test, ``rho``/``df``/``scale`` to the correlated
    t test (else ``None``). ``posterior`` says how the signed-rank posterior was computed:
    ``monte_carlo`` or ``normal`` (then ``n_samples`` and ``mc_se`` are ``None``); ``None`` for the
    correlated t test.
    """

    method: str
    n: int
    rope: float
    p_a_better: float | None
    p_equivalent: float | None
    p_b_better: float | None
    decision: str
    decision_level: float
    estimate: float | None
    n_samples: int | None = None
    seed: int | None = None
    mc_se: float | None = None
    prior_strength: float | None = None
    rho: float | None = None
    df: float | None = None
    scale: float | None = None
    warnings: tuple[str, ...] = ()
    posterior: str | None = None


def decide(p_a_better: float, p_equivalent: float, p_b_better: float, level: float) -> str:
    """The region whose posterior probability reaches ``level``, else ``'undecided'``.

    Benavoli et al. 2017 (sec. 4.1) decide at 0.95; with ``level > 0.5`` at most one region
    qualifies.
    """
    for name, p in (("a_better", p_a_better), ("equivalent", p_equivalent), ("b_better", p_b_better)):
        if p >= level:
            return name
    return "undecided"


def cv_correlation(n_train: float, n_test: float) -> float:
    """Nadeau-Bengio correlation of fold differences, ``n_test / (n_train + n_test)`` (1/k for k folds)."""
    n_train, n_test = float(n_train), float(n_test)
    if not (math.isfinite(n_train) and math.isfinite(n_test) and n_train > 0 and n_test > 0):
        raise ValueError(f"n_train and n_test must be positive, got {n_train!r} and {n_test!r}")
    return n_test / (n_train + n_test)


def _check_common(a: np.ndarray, b: np.ndarray, rope: float, decision_level: float) -> tuple[np.ndarray, float]:
    a = np.asarray(a, dtype=np.float64).reshape(-1) if np.ndim(a) != 1 else np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64).reshape(-1) if np.ndim(b) != 1 else np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same number of values, got {a.size} and {b.size}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("scores contain NaN or infinite values; drop or impute those items first")
    rope = float(rope)
    if not (math.isfinite(rope) and rope >= 0):
        raise ValueError(f"rope must be a finite number >= 0, got {rope!r}")
    if not 0.5 < float(decision_level) < 1.0:
        raise ValueError(f"decision_level must be in (0.5, 1), got {decision_level!r}")
    return a - b, rope


# --------------------------------------------------------------------------------------------
# Bayesian signed-rank test
# --------------------------------------------------------------------------------------------


def _suffix_starts(u: np.ndarray, bound: float, strict: bool) -> np.ndarray:
    """For each i, the first j of sorted ``u`` with ``u_i + u_j > bound`` (``>=`` if not strict).

    Float addition is monotone, so the set is a suffix; ``searchsorted`` on ``bound - u_i`` finds
    it up to rounding, and the start is then moved until the condition holds on the sums exactly
    as baycomp evaluates them (``z_i + z_j`` compared with ``2 rope``).
    """
    side = "right" if strict else "left"
    idx = np.searchsorted(u, bound - u, side=side).astype(np.int64)
    m = u.size

    def holds(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        s = u[i] + u[j]
        return s > bound if strict else s >= bound

    rows = np.arange(m)
    for _ in range(m + 1):  # at most a couple of steps: searchsorted is off by rounding only
        back = (idx > 0) & holds(rows, np.maximum(idx - 1, 0))
        fwd = (idx < m) & ~holds(rows, np.minimum(idx, m - 1))
        if not (back.any() or fwd.any()):
            break
        idx = idx - back + fwd
    return idx


def _region_mass(g: np.ndarray, prefix: np.ndarray, gt: np.ndarray, ge: np.ndarray) -> np.ndarray:
    """``sum_ij g_i g_j H(.)`` for a prefix region: strict part plus half of the boundary ties.

    Values are in descending order; ``prefix[:, t]`` is the sum of ``g`` over the first ``t``
    positions, and ``gt[i]``/``ge[i]`` the prefix lengths of the strict and non-strict regions of i.
    """
    inside = prefix[:, gt]
    if np.array_equal(gt, ge):
        return np.einsum("ij,ij->i", g, inside)
    return np.einsum("ij,ij->i", g, 0.5 * (inside + prefix[:, ge]))


def _winner_shares(masses: np.ndarray) -> np.ndarray:
    """Number of samples in which each region has the largest mass; exact ties split evenly."""
    top = masses.max(axis=1, keepdims=True)
    is_top = masses == top
    return (is_top / is_top.sum(axis=1, keepdims=True)).sum(axis=0)


def _walsh_plan(
    d: np.ndarray, rope: float, prior_strength: float
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Distinct values in descending order, their Dirichlet parameters, and the region prefix lengths.

    Depends on the data only, O(u log u): every posterior sample reuses it.
    """
    z = np.concatenate([[0.0], d])
    counts = np.concatenate([[prior_strength], np.ones(z.size - 1)])
    u, inv = np.unique(z, return_inverse=True)
    alpha = np.bincount(inv.reshape(-1), weights=counts, minlength=u.size)
    keep = alpha > 0  # prior_strength 0: the pseudo-observation carries no weight
    u, alpha = u[keep], alpha[keep]
    two_r = 2.0 * rope
    m = u.size

    def prefix_lengths(bound: float, strict: bool) -> np.ndarray:
        # a suffix of the ascending order is a prefix of the descending one
        return (m - _suffix_starts(u, bound, strict))[::-1].copy()

    idx = {"right_gt": prefix_lengths(two_r, True), "right_ge": prefix_lengths(two_r, False)}
    if rope > 0:
        # not-left (u_i + u_j >= -2r) counted fully where > -2r, half where == -2r: H(-s - 2r) = 1 - that
        idx["left_gt"] = prefix_lengths(-two_r, True)
        idx["left_ge"] = prefix_lengths(-two_r, False)
    alpha = alpha[::-1].copy()  # weights are drawn for the values in descending order
    return u[::-1].copy(), alpha, idx


def signed_rank_masses(
    d: np.ndarray, rope: float, seed: int, n_samples: int = 50_000, prior_strength: float = 0.5
) -> np.ndarray:
    """Posterior samples (n_samples, 3) of the masses (b better, equivalent, a better) of differences ``d``.

    The engine of :func:`bayesian_signed_rank` (see the module docstring); exposed for plots and
    for tests against baycomp's ``SignedRankTest.sample``.
    """
    u, alpha, idx = _walsh_plan(np.asarray(d, dtype=np.float64), float(rope), float(prior_strength))
    n_samples = int(n_samples)
    n_blocks = -(-n_samples // _SAMPLE_BLOCK)
    seeds = np.random.SeedSequence(int(seed)).spawn(n_blocks)
    ones = bool(np.all(alpha == 1.0))
    rows_per_step = max(1, _BLOCK_ELEMENTS // u.size)
    out = np.empty((n_samples, 3))
    for j in range(n_blocks):
        rng = np.random.Generator(np.random.PCG64(seeds[j]))
        stop = min(n_samples, (j + 1) * _SAMPLE_BLOCK)
        for r0 in range(j * _SAMPLE_BLOCK, stop, rows_per_step):  # numpy fills element by element: the
            r1 = min(stop, r0 + rows_per_step)  # draws do not depend on how a block is split into steps
            out[r0:r1] = _masses_from_gammas(_gammas(rng, alpha, ones, r1 - r0), idx)
    return out[: int(n_samples)]


def _gammas(rng: np.random.Generator, alpha: np.ndarray, ones: bool, rows: int) -> np.ndarray:
    """``rows`` unnormalised Dirichlet(alpha) weight vectors (Gamma(alpha_i) draws), (rows, u)."""
    if ones:
        return rng.standard_exponential((rows, alpha.size))  # Gamma(1), the usual case of distinct values
    return rng.standard_gamma(np.broadcast_to(alpha, (rows, alpha.size)))


def _masses_from_gammas(g: np.ndarray, idx: dict[str, np.ndarray]) -> np.ndarray:
    """Region masses (rows, 3) = (left, rope, right) from unnormalised weights of descending values."""
    rows, m = g.shape
    prefix = np.zeros((rows, m + 1))
    np.cumsum(g, axis=1, out=prefix[:, 1:])
    total = prefix[:, m]
    t2 = total * total
    right = _region_mass(g, prefix, idx["right_gt"], idx["right_ge"])
    if "left_gt" in idx:
        # H(-s - 2r) = 1 - [s > -2r] - 1/2 [s == -2r]
        left = t2 - _region_mass(g, prefix, idx["left_gt"], idx["left_ge"])
    else:
        left = t2 - right  # rope = 0: H(s) + H(-s) = 1
    out = np.empty((rows, 3))
    out[:, 0] = left / t2
    out[:, 2] = right / t2
    out[:, 1] = 1.0 - out[:, 0] - out[:, 2]
    return out


# --------------------------------------------------------------------------------------------
# Large-n normal approximation of the signed-rank posterior
# --------------------------------------------------------------------------------------------


def _prefix_region_moments(alpha: np.ndarray, gt: np.ndarray, ge: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A alpha`` and ``diag(A)`` of a prefix region (strict part plus half of the boundary ties).

    Same layout as :func:`_region_mass`: values in descending order, row i's region the first
    ``gt[i]`` positions, and half of positions ``gt[i]..ge[i] - 1``. One cumulative sum, O(u).
    """
    prefix = np.zeros(alpha.size + 1)
    np.cumsum(alpha, out=prefix[1:])
    pos = np.arange(alpha.size)
    return 0.5 * (prefix[gt] + prefix[ge]), 0.5 * ((pos < gt).astype(np.float64) + (pos < ge))


def signed_rank_normal_moments(
    d: np.ndarray, rope: float, prior_strength: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Mean (2,) and covariance (2, 2) of the masses (b better, a better) for the normal approximation.

    The mean is exact: ``E[w_i w_j] = (alpha_i alpha_j + [i = j] alpha_i) / (a0 (a0 + 1))`` for
    ``w ~ Dir(alpha)``, ``a0 = sum alpha``, so ``E[w' A w] = (alpha' A alpha + alpha' diag(A)) /
    (a0 (a0 + 1))``. The covariance is the delta method (the Hoeffding projection): with
    ``w = g / S``, ``g_i ~ Gamma(alpha_i)`` independent (variance ``alpha_i``) and ``S = sum g``, the
    gradient of ``theta(g) = g' A g / S^2`` at ``g = alpha`` is ``2 (A alpha - theta(alpha) a0) / a0^2``.
    ``A alpha`` comes from one cumulative sum over the sorted distinct values: O(u log u) in all,
    no u x u matrix. The equivalence mass is one minus the other two.
    """
    u, alpha, idx = _walsh_plan(np.asarray(d, dtype=np.float64), float(rope), float(prior_strength))
    a0 = float(alpha.sum())
    v_right, diag_right = _prefix_region_moments(alpha, idx["right_gt"], idx["right_ge"])
    if "left_gt" in idx:  # left = everything minus "not left" (see _masses_from_gammas)
        v_not, diag_not = _prefix_region_moments(alpha, idx["left_gt"], idx["left_ge"])
    else:
        v_not, diag_not = v_right, diag_right  # rope = 0: H(s) + H(-s) = 1
    v = np.stack([a0 - v_not, v_right])  # rows: A alpha of (left, right)
    diag = np.stack([1.0 - diag_not, diag_right])
    q = v @ alpha  # alpha' A alpha
    mean = (q + diag @ alpha) / (a0 * (a0 + 1.0))
    grad = 2.0 * (v - (q / a0)[:, None]) / (a0 * a0)
    cov = (grad * alpha) @ grad.T
    return mean, cov


def _std_normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _orthant(h: float, k: float, rho: float) -> float:
    """``P(Z1 < h, Z2 < k)`` for standard normals with correlation ``rho``, by Owen's T function.

    Owen (1956): ``Phi2 = (Phi(h) + Phi(k)) / 2 - T(h, a_h) - T(k, a_k) - beta`` with
    ``a_h = (k - rho h) / (h sqrt(1 - rho^2))`` and ``beta = 1/2`` when ``h k < 0`` (or one is 0 and
    the other negative); ``|rho| = 1`` is the one-dimensional limit.
    """
    from scipy.special import owens_t  # imported here: scipy costs start-up time

    if rho >= 1.0 - 1e-12:
        return _std_normal_cdf(min(h, k))
    if rho <= -1.0 + 1e-12:
        return max(0.0, _std_normal_cdf(h) + _std_normal_cdf(k) - 1.0)
    if h == 0.0 and k == 0.0:
        return 0.25 + math.asin(rho) / (2.0 * math.pi)
    s = math.sqrt(1.0 - rho * rho)

    def t(x: float, y: float) -> float:
        if x == 0.0:  # T(0, +-inf) = +-1/4
            return math.copysign(0.25, y)
        return float(owens_t(x, (y - rho * x) / (x * s)))

    beta = 0.5 if (h * k < 0.0 or (h * k == 0.0 and h + k < 0.0)) else 0.0
    p = 0.5 * (_std_normal_cdf(h) + _std_normal_cdf(k)) - t(h, k) - t(k, h) - beta
    return min(1.0, max(0.0, p))


def _wedge_probability(mean: np.ndarray, cov: np.ndarray, c1: np.ndarray, b1: float, c2: np.ndarray,
                       b2: float) -> float:
    """``P(c1'X + b1 > 0 and c2'X + b2 > 0)`` for ``X ~ N(mean, cov)`` (a degenerate direction: a step)."""
    m = np.array([c1 @ mean + b1, c2 @ mean + b2])
    var = np.array([c1 @ cov @ c1, c2 @ cov @ c2])
    tiny = 1e-24
    if var[0] <= tiny or var[1] <= tiny:
        p = 1.0
        for mi, vi in zip(m, var):
            if vi <= tiny:
                p *= 1.0 if mi > 1e-12 else (0.5 if mi > -1e-12 else 0.0)  # an exact tie is split, as in sampling
            else:
                p *= _std_normal_cdf(mi / math.sqrt(vi))
        return p
    sd = np.sqrt(var)
    rho = float(np.clip((c1 @ cov @ c2) / (sd[0] * sd[1]), -1.0, 1.0))
    return _orthant(float(m[0] / sd[0]), float(m[1] / sd[1]), rho)


def signed_rank_normal_probs(d: np.ndarray, rope: float, prior_strength: float = 0.5) -> tuple[float, float, float]:
    """P(b better), P(equivalent), P(a better) under the normal approximation, integrated exactly.

    With ``X = (left, right)`` and ``rope = 1 - left - right``, each region is the largest on a
    wedge cut by two lines (e.g. right: ``right > left`` and ``left + 2 right > 1``); the
    probability of a wedge is a bivariate normal orthant, computed with Owen's T (no sampling).
    """
    mean, cov = signed_rank_normal_moments(d, rope, prior_strength)
    e = np.eye(2)
    pl = _wedge_probability(mean, cov, e[0] - e[1], 0.0, np.array([2.0, 1.0]), -1.0)
    pr = _wedge_probability(mean, cov, e[1] - e[0], 0.0, np.array([1.0, 2.0]), -1.0)
    pe = _wedge_probability(mean, cov, np.array([-2.0, -1.0]), 1.0, np.array([-1.0, -2.0]), 1.0)
    total = pl + pe + pr  # 1 up to rounding of the three integrals
    return pl / total, pe / total, pr / total


def resolve_posterior(method: str, n: int) -> str:
    """The posterior computation ``method`` (auto, monte_carlo, normal) gives for n paired values.

    auto: Monte Carlo up to :data:`NORMAL_ABOVE` values, where it is exact up to its standard error
    and takes about a second per pair; the normal approximation above, where its measured error is
    below :data:`NORMAL_ERROR` (benchmarks/bench_bayes.py --accuracy) and Monte Carlo gets slow.
    """
    if method not in POSTERIOR_METHODS:
        raise ValueError(f"method must be one of {', '.join(POSTERIOR_METHODS)}, got {method!r}")
    if method == "auto":
        return "normal" if n > NORMAL_ABOVE else "monte_carlo"
    return method


def bayesian_signed_rank(
    a: np.ndarray,
    b: np.ndarray,
    rope: float,
    seed: int,
    n_samples: int = 50_000,
    prior_strength: float = 0.5,
    decision_level: float = 0.95,
    method: str = "auto",
) -> BayesianResult:
    """Bayesian signed-rank test of paired scores a and b (items or data sets) with a ROPE.

    Why: a p-value says nothing about practical equivalence; the posterior probabilities of
    "a better by more than rope", "within rope" and "b better" do (Benavoli et al. 2017). Same
    model and defaults as baycomp's ``SignedRankTest`` (prior strength 0.5 on a pseudo-observation
    at 0, 50,000 samples), O(u log u + n_samples u) for u distinct differences by Monte Carlo, or
    O(u log u) by the normal approximation (``method``, see :func:`resolve_posterior`).
    """
    d, rope = _check_common(a, b, rope, decision_level)
    if int(n_samples) < 1:
        raise ValueError("n_samples must be at least 1")
    prior_strength = float(prior_strength)
    if not (math.isfinite(prior_strength) and prior_strength >= 0):
        raise ValueError(f"prior_strength must be a finite number >= 0, got {prior_strength!r}")
    n = d.size
    posterior = resolve_posterior(method, n)
    if n == 0:
        msg = "no paired values: the signed-rank posterior is the prior alone; no decision"
        return BayesianResult(method="signed_rank", n=0, rope=rope, p_a_better=None, p_equivalent=None, p_b_better=None,
                              decision="undecided", decision_level=float(decision_level), estimate=None,
                              n_samples=int(n_samples), seed=int(seed), mc_se=None, prior_strength=prior_strength,
                              warnings=(msg,), posterior=posterior)
    warnings: list[str] = []
    if posterior == "normal":
        pl, pe, pr = signed_rank_normal_probs(d, rope, prior_strength)
        samples: int | None = None
        mc: float | None = None
        margin, why = NORMAL_ERROR, f"the normal approximation's measured error ({NORMAL_ERROR:g})"
    else:
        masses = signed_rank_masses(d, rope, int(seed), int(n_samples), prior_strength)
        pl, pe, pr = (float(v) for v in _winner_shares(masses) / masses.shape[0])
        samples = masses.shape[0]
        mc = max(math.sqrt(p * (1.0 - p) / samples) for p in (pl, pe, pr))
        margin, why = 2.0 * mc, f"two Monte Carlo standard errors ({mc:.2g})"
    if rope == 0:
        warnings.append("rope = 0: there is no region of practical equivalence, P(equivalent) is 0")
    decision = decide(pr, pe, pl, float(decision_level))
    for p in (pl, pe, pr):
        if margin > 0 and abs(p - decision_level) < margin:
            fix = "use method monte_carlo" if posterior == "normal" else "increase n_samples"
            warnings.append(f"a probability is within {why} of the decision level {decision_level:g}: the decision "
                            f"may change with {'exact sampling' if posterior == 'normal' else 'another seed'}; {fix}")
            break
    return BayesianResult(method="signed_rank", n=n, rope=rope, p_a_better=pr, p_equivalent=pe, p_b_better=pl,
                          decision=decision, decision_level=float(decision_level), estimate=float(d.mean()),
                          n_samples=samples, seed=int(seed), mc_se=mc, prior_strength=prior_strength,
                          warnings=tuple(warnings), posterior=posterior)


# --------------------------------------------------------------------------------------------
# Bayesian bootstrap of the mean difference; which model; the equivalence rule
# --------------------------------------------------------------------------------------------


def mean_difference_samples(d: np.ndarray, seed: int, n_samples: int = 50_000) -> np.ndarray:
    """Posterior samples (n_samples,) of the mean of ``d`` under the Bayesian bootstrap (Rubin 1981).

    Dirichlet(1, ..., 1) weights over the values of ``d``, with equal values merged into one
    ``Gamma(count)`` weight (the Dirichlet's aggregation property), drawn in the seeded blocks of
    :func:`signed_rank_masses` (block j from ``SeedSequence(seed).spawn(n_blocks)[j]``)."""
    u, counts = np.unique(np.asarray(d, dtype=np.float64), return_counts=True)
    alpha = counts.astype(np.float64)
    n_samples = int(n_samples)
    n_blocks = -(-n_samples // _SAMPLE_BLOCK)
    seeds = np.random.SeedSequence(int(seed)).spawn(n_blocks)
    ones = bool(np.all(alpha == 1.0))
    rows_per_step = max(1, _BLOCK_ELEMENTS // u.size)
    out = np.empty(n_samples)
    for j in range(n_blocks):
        rng = np.random.Generator(np.random.PCG64(seeds[j]))
        stop = min(n_samples, (j + 1) * _SAMPLE_BLOCK)
        for r0 in range(j * _SAMPLE_BLOCK, stop, rows_per_step):
            g = _gammas(rng, alpha, ones, min(stop, r0 + rows_per_step) - r0)
            # row by row sums (no BLAS matrix product, whose rounding depends on the block shape and the CPU)
            out[r0:r0 + g.shape[0]] = (g * u).sum(axis=1) / g.sum(axis=1)
    return out


def mean_difference_moments(d: np.ndarray) -> tuple[float, float]:
    """Exact posterior mean and variance of the Bayesian-bootstrap mean: ``mean(d)`` and
    ``sum((d - mean)^2) / (n (n + 1))`` (Dirichlet(1, ..., 1): Var(w_i) = (n - 1) / (n^2 (n + 1)),
    Cov(w_i, w_j) = -1 / (n^2 (n + 1)))."""
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    m = float(d.mean())
    return m, float(np.sum((d - m) ** 2) / (n * (n + 1.0)))


def bayesian_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    rope: float,
    seed: int,
    n_samples: int = 50_000,
    decision_level: float = 0.95,
    method: str = "auto",
) -> BayesianResult:
    """P(a better), P(equivalent), P(b better) of the mean difference a - b under the Bayesian bootstrap.

    ``method``: ``monte_carlo`` (samples, :func:`mean_difference_samples`), ``normal`` (the normal law with
    the exact posterior mean and variance, no samples) or ``auto`` (Monte Carlo up to :data:`NORMAL_ABOVE`
    distinct differences, where it costs O(samples x distinct values); normal above, where the posterior of a
    mean of that many values is normal to well within the Monte Carlo error of 50,000 samples)."""
    d, rope = _check_common(a, b, rope, decision_level)
    if int(n_samples) < 1:
        raise ValueError("n_samples must be at least 1")
    if method not in POSTERIOR_METHODS:
        raise ValueError(f"method must be one of {', '.join(POSTERIOR_METHODS)}, got {method!r}")
    n, level = d.size, float(decision_level)
    if n == 0:
        return BayesianResult(method="bayesian_bootstrap", n=0, rope=rope, p_a_better=None, p_equivalent=None,
                              p_b_better=None, decision="undecided", decision_level=level, estimate=None,
                              n_samples=int(n_samples), seed=int(seed),
                              warnings=("no paired values: no posterior; no decision",),
                              posterior="monte_carlo" if method != "normal" else "normal")
    posterior = method if method != "auto" else ("normal" if np.unique(d).size > NORMAL_ABOVE else "monte_carlo")
    warnings: list[str] = []
    if posterior == "normal":
        mean, var = mean_difference_moments(d)
        sd = math.sqrt(var)
        if sd == 0:
            pr, pl = float(mean > rope), float(mean < -rope)
        else:
            pr, pl = 1.0 - _std_normal_cdf((rope - mean) / sd), _std_normal_cdf((-rope - mean) / sd)
        samples, mc = None, None
    else:
        mu = mean_difference_samples(d, int(seed), int(n_samples))
        samples = mu.size
        pr, pl = float(np.mean(mu > rope)), float(np.mean(mu < -rope))
    pe = max(0.0, 1.0 - pr - pl)
    if samples is not None:
        mc = max(math.sqrt(p * (1.0 - p) / samples) for p in (pl, pe, pr))
        if any(abs(p - level) < 2.0 * mc for p in (pl, pe, pr)):
            warnings.append(f"a probability is within two Monte Carlo standard errors ({mc:.2g}) of the decision "
                            f"level {level:g}: the decision may change with another seed; increase n_samples")
    if rope == 0:
        warnings.append("rope = 0: there is no region of practical equivalence, P(equivalent) is 0")
    return BayesianResult(method="bayesian_bootstrap", n=n, rope=rope, p_a_better=pr, p_equivalent=pe, p_b_better=pl,
                          decision=decide(pr, pe, pl, level), decision_level=level, estimate=float(d.mean()),
                          n_samples=samples, seed=int(seed), mc_se=mc, warnings=tuple(warnings), posterior=posterior)


def choose_model(scores: np.ndarray, pairs: list[tuple[int, int]], decimals: int | None = 12
                 ) -> tuple[str, str]:
    """The Bayesian model for per-item (or per-corpus) scores, and why (``tests.bayesian.model: auto``).

    The Bayesian bootstrap of the mean difference when the scores are *binary or mostly tied*: they take at
    most two distinct values (0/1 correctness, pass/fail), or more than :data:`MOSTLY_TIED` of some pair's
    differences are zero (after rounding to ``decimals``, the metric's precision). Otherwise the Bayesian
    signed-rank test."""
    x = np.asarray(scores, dtype=np.float64)
    values = np.unique(x[np.isfinite(x)])
    if values.size <= 2:
        return "bayesian_bootstrap", (f"the scores take {values.size} distinct value{'s' if values.size != 1 else ''} "
                                      "(binary): the signed-rank posterior would count every tie as practically "
                                      "equivalent, so the posterior of the mean difference is used")
    share = max((zero_share(x[:, i] - x[:, j], decimals) for i, j in pairs), default=0.0)
    if share > MOSTLY_TIED:
        return "bayesian_bootstrap", (f"{share:.0%} of a pair's differences are zero (mostly tied, more than "
                                      f"{MOSTLY_TIED:.0%}): the signed-rank posterior would count every tie as "
                                      "practically equivalent, so the posterior of the mean difference is used")
    return "signed_rank", (f"the scores are neither binary nor mostly tied (at most {share:.0%} of a pair's "
                           "differences are zero): the Bayesian signed-rank test")


def zero_share(d: np.ndarray, decimals: int | None = 12) -> float:
    """The share of differences that are zero (after rounding to ``decimals``)."""
    d = np.asarray(d, dtype=np.float64)
    if d.size == 0:
        return 0.0
    return float(np.mean((np.round(d, decimals) if decimals is not None else d) == 0))


def guard_equivalence(result: BayesianResult) -> BayesianResult:
    """"Practically equivalent" is never declared for a pair whose observed mean difference lies outside the
    ROPE: such a decision is made "undecided", with a warning saying why (a posterior that puts its mass in
    the ROPE while the data's mean is outside it is a property of the model, e.g. of ties in the signed-rank
    test, that the reader should not take as equivalence)."""
    est = result.estimate
    if result.decision != "equivalent" or est is None or abs(est) <= result.rope:
        return result
    why = (f"the posterior puts {result.p_equivalent:.3f} in the ROPE, but the observed mean difference "
           f"{est:.4g} lies outside \u00b1{result.rope:g}: not declared practically equivalent")
    return dataclasses.replace(result, decision="undecided", warnings=(*result.warnings, why))


# --------------------------------------------------------------------------------------------
# Correlated Bayesian t test
# --------------------------------------------------------------------------------------------


def correlated_bayesian_t(
    a: np.ndarray, b: np.ndarray, rope: float, rho: float, decision_level: float = 0.95
) -> BayesianResult:
    """Correlated Bayesian t test of per-fold scores (Corani & Benavoli 2015; baycomp ``CorrelatedTTest``).

    Why: fold differences of cross-validation share training data, so they are correlated and a
    plain t posterior is overconfident; ``rho`` (use :func:`cv_correlation`, ``1/k`` for k folds,
    for repeated k-fold too) inflates the variance as Nadeau and Bengio's correction does. ``a``
    and ``b`` are the scores on every fold of every repetition (any shape, flattened alike).
    """
    d, rope = _check_common(np.ravel(a), np.ravel(b), rope, decision_level)
    rho = float(rho)
    if not (math.isfinite(rho) and 0.0 <= rho < 1.0):
        raise ValueError(f"rho must be in [0, 1), got {rho!r}")
    J = d.size
    level = float(decision_level)
    if J < 2:
        msg = f"only {J} fold difference(s): the correlated t posterior needs at least 2"
        return BayesianResult(method="correlated_t", n=J, rope=rope, p_a_better=None, p_equivalent=None,
                              p_b_better=None, decision="undecided", decision_level=level,
                              estimate=float(d.mean()) if J else None, rho=rho, warnings=(msg,))
    mean = float(d.mean())
    var = float(d.var(ddof=1)) * (1.0 / J + rho / (1.0 - rho))
    df = float(J - 1)
    warnings: list[str] = []
    if var <= 1e-24 * max(1.0, mean * mean):
        warnings.append("the fold differences have zero variance: the posterior is a point mass at their mean")
        pl = float(mean < -rope)
        pr = float(mean > rope)
        if rope == 0 and mean == 0:
            pl = pr = 0.5
        scale = 0.0
    else:
        from scipy import stats as sps  # imported here: slow to import, and most builds never need it

        scale = math.sqrt(var)
        pl = float(sps.t.cdf(-rope, df, loc=mean, scale=scale))
        pr = float(sps.t.sf(rope, df, loc=mean, scale=scale))
    pe = max(0.0, 1.0 - pl - pr)
    if rope == 0:
        warnings.append("rope = 0: there is no region of practical equivalence, P(equivalent) is 0")
    return BayesianResult(method="correlated_t", n=J, rope=rope, p_a_better=pr, p_equivalent=pe, p_b_better=pl,
                          decision=decide(pr, pe, pl, level), decision_level=level, estimate=mean, rho=rho, df=df,
                          scale=scale, warnings=tuple(warnings))
