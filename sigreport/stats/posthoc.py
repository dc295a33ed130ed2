"""Post-hoc tests on Friedman average ranks (Demšar 2006, section 3.2.2; García & Herrera 2008).

All procedures compare average ranks R_j (rank 1 = best, as :func:`sigreport.stats.omnibus.friedman`
returns them) of k systems over N items through

    z = (R_a - R_b) / SE,  SE = sqrt(k (k + 1) / (6 N)),

which is approximately standard normal for one pair under the null hypothesis. A positive z means
system ``a`` has the larger average rank (the worse one when rank 1 is best).

* :func:`nemenyi` - all k(k-1)/2 pairs. Two systems differ when |R_a - R_b| >= CD with
  CD = q_alpha SE and q_alpha = q(1 - alpha; k, inf) / sqrt(2), the studentized range quantile
  for k means and infinite degrees of freedom. The family-wise (Tukey-type single-step) p-value of
  a pair is P(Q_{k,inf} >= sqrt(2) |z|) (kept within its union bounds in the far tail).
* :func:`bonferroni_dunn` - each system against a control, q_alpha = z(1 - alpha / (2 (k - 1))),
  CD = q_alpha SE, Bonferroni-adjusted p = min(1, (k - 1) p).
* :func:`rank_step` - against a control with Holm's step-down or Hochberg's step-up adjustment
  of the two-sided normal p-values (no single critical difference exists).

Tests check Demšar's Table 5 (q_alpha for k = 2..10 at alpha 0.05 and 0.10), his example
(k = 4, N = 14: CD = 1.254 Nemenyi, 1.168 Bonferroni-Dunn) and R 4.2's ``qtukey``/``ptukey``,
``qnorm`` and ``p.adjust``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats as sps

from sigreport.stats.correction import adjust
from sigreport.stats.result import finite_or_none

STEP_METHODS = ("holm", "hochberg")


@dataclasses.dataclass(frozen=True)
class PosthocPair:
    """One comparison of systems ``a`` and ``b`` (column indices).

    ``statistic`` is z = (R_a - R_b) / SE (see the module docstring); ``rank_difference`` is
    R_a - R_b; ``pvalue`` is the unadjusted two-sided normal p-value of z; ``pvalue_adjusted``
    is the family-wise p-value of the procedure (studentized range for Nemenyi, Bonferroni,
    Holm or Hochberg); ``significant`` is the procedure's decision at ``alpha`` (for Nemenyi and
    Bonferroni-Dunn: |R_a - R_b| >= critical difference).
    """

    a: int
    b: int
    statistic: float | None
    rank_difference: float | None
    pvalue: float | None
    pvalue_adjusted: float | None
    significant: bool | None


@dataclasses.dataclass(frozen=True)
class PosthocResult:
    """Result of a post-hoc procedure on average ranks.

    ``critical_difference`` and ``q_alpha`` are None for the step procedures (Holm, Hochberg).
    ``control`` is the control system's index, or None for all-pairs procedures.
    """

    method: str
    critical_difference: float | None
    q_alpha: float | None
    control: int | None
    alpha: float
    n: int
    k: int
    pairs: tuple[PosthocPair, ...]
    warnings: tuple[str, ...] = ()


def _check(average_ranks: np.ndarray, n: int, alpha: float, control: int | None = None) -> np.ndarray:
    r = np.asarray(average_ranks, dtype=float)
    if r.ndim != 1:
        raise ValueError("average_ranks must be a 1-d array (one average rank per system)")
    if not np.all(np.isfinite(r)):
        raise ValueError("average_ranks must be finite")
    k = r.size
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n (number of items) must be a positive integer; got {n!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    if k >= 1 and (abs(r.sum() - k * (k + 1) / 2) > 1e-6 * k * k or r.min() < 1 - 1e-9 or r.max() > k + 1e-9):
        raise ValueError(
            f"average_ranks do not look like average within-item ranks of {k} systems "
            f"(each in [1, k], summing to k(k+1)/2 = {k * (k + 1) / 2:g})"
        )
    if control is not None and (isinstance(control, bool) or int(control) != control or not 0 <= control < k):
        raise ValueError(f"control must be a system index in 0..{k - 1}; got {control!r}")
    return r


def _se(k: int, n: int) -> float:
    return math.sqrt(k * (k + 1) / (6.0 * n))


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Nemenyi q_alpha = studentized range quantile q(1 - alpha; k, inf) / sqrt(2) (Demšar Table 5a)."""
    if k < 2:
        raise ValueError("the studentized range needs k >= 2")
    return float(sps.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))


def bonferroni_dunn_q(k: int, alpha: float = 0.05) -> float:
    """Bonferroni-Dunn q_alpha = z(1 - alpha / (2 (k - 1))) (Demšar Table 5b)."""
    if k < 2:
        raise ValueError("a comparison with a control needs k >= 2")
    return float(sps.norm.isf(alpha / (2 * (k - 1))))


def _too_few(method: str, control: int | None, alpha: float, n: int, k: int) -> PosthocResult:
    return PosthocResult(method, None, None, control, alpha, int(n), k, (),
                         (f"only {k} system(s): a post-hoc comparison needs at least two",))


def nemenyi(average_ranks: np.ndarray, n: int, alpha: float = 0.05) -> PosthocResult:
    """Nemenyi test of all pairs of systems (Demšar 2006, sec. 3.2.2).

    Pairs are (a, b) with a < b in lexicographic order. See the module docstring for the
    statistic, CD and p-values.
    """
    r = _check(average_ranks, n, alpha)
    k = r.size
    if k < 2:
        return _too_few("nemenyi", None, alpha, n, k)
    se = _se(k, n)
    q = nemenyi_q(k, alpha)
    cd = q * se
    ia, ib = np.triu_indices(k, 1)
    diff = r[ia] - r[ib]
    z = diff / se
    p = 2 * sps.norm.sf(np.abs(z))
    # scipy's studentized range sf has ~1e-14 absolute error far in the tail; keep it inside the
    # exact bounds P(|Z_a - Z_b| >= q) <= P(range >= q) <= (number of pairs) P(|Z_a - Z_b| >= q).
    p_tukey = sps.studentized_range.sf(np.abs(z) * math.sqrt(2), k, np.inf)
    p_adj = np.clip(p_tukey, p, np.minimum(1.0, len(ia) * p))
    sig = np.abs(diff) >= cd
    pairs = tuple(
        PosthocPair(int(i), int(j), float(zz), float(dd), float(pp), finite_or_none(pa), bool(s))
        for i, j, zz, dd, pp, pa, s in zip(ia, ib, z, diff, p, p_adj, sig)
    )
    return PosthocResult("nemenyi", float(cd), q, None, alpha, int(n), k, pairs, ())


def _versus_control(r: np.ndarray, n: int, control: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    k = r.size
    others = np.array([i for i in range(k) if i != control], dtype=int)
    diff = r[others] - r[control]
    z = diff / _se(k, n)
    p = 2 * sps.norm.sf(np.abs(z))
    return others, diff, z, p


def bonferroni_dunn(average_ranks: np.ndarray, n: int, control: int, alpha: float = 0.05) -> PosthocResult:
    """Bonferroni-Dunn test of every system against ``control`` (Demšar 2006, sec. 3.2.2).

    Pairs are (a = i, b = control) for each other system i in index order; z = (R_i - R_c)/SE.
    """
    r = _check(average_ranks, n, alpha, control)
    k = r.size
    if k < 2:
        return _too_few("bonferroni_dunn", int(control), alpha, n, k)
    q = bonferroni_dunn_q(k, alpha)
    cd = q * _se(k, n)
    others, diff, z, p = _versus_control(r, n, control)
    p_adj = adjust(p, "bonferroni")
    sig = np.abs(diff) >= cd
    pairs = tuple(
        PosthocPair(int(i), int(control), float(zz), float(dd), float(pp), float(pa), bool(s))
        for i, zz, dd, pp, pa, s in zip(others, z, diff, p, p_adj, sig)
    )
    return PosthocResult("bonferroni_dunn", float(cd), q, int(control), alpha, int(n), k, pairs, ())


def rank_step(
    average_ranks: np.ndarray, n: int, control: int, method: str = "holm", alpha: float = 0.05
) -> PosthocResult:
    """Every system against ``control`` with Holm's step-down or Hochberg's step-up procedure.

    z = (R_i - R_c)/SE and two-sided normal p-values as in Demšar (2006, sec. 3.2.2), adjusted
    as R's ``p.adjust`` (via :func:`sigreport.stats.correction.adjust`); a pair is significant
    when its adjusted p-value is <= alpha, which is the step procedure's decision.
    ``critical_difference`` and ``q_alpha`` are None.
    """
    if method not in STEP_METHODS:
        raise ValueError(f"unknown step method {method!r}; known: {', '.join(STEP_METHODS)}")
    r = _check(average_ranks, n, alpha, control)
    k = r.size
    if k < 2:
        return _too_few(method, int(control), alpha, n, k)
    others, diff, z, p = _versus_control(r, n, control)
    p_adj = adjust(p, method)
    pairs = tuple(
        PosthocPair(int(i), int(control), float(zz), float(dd), float(pp), float(pa), bool(pa <= alpha))
        for i, zz, dd, pp, pa in zip(others, z, diff, p, p_adj)
    )
    return PosthocResult(method, None, None, int(control), alpha, int(n), k, pairs, ())
