"""Omnibus tests for k systems scored on the same n items: repeated-measures ANOVA and Friedman.

Repeated-measures ANOVA (Leite and Rino 2009, section on ANOVA; SPSS "GLM Repeated Measures"):
one within factor (the systems), items are the subjects. F = MS_systems / MS_error with
df (k - 1, (k - 1)(n - 1)). Sphericity is checked with Mauchly's (1940) test on an orthonormal
set of k - 1 contrasts, exactly as SPSS, R's ``car::Anova`` and ``afex`` do, and the F test is
also reported with the Greenhouse-Geisser (1959), Huynh-Feldt (1976) and lower-bound
corrections of the degrees of freedom. :func:`apply_sphericity` picks one by the source's rule.

Friedman test (Demšar 2006, JMLR 7:1-30, section 3.2.2): rank the systems within
each item (1 = best, ties get the average rank), chi2_F = 12N / (k(k+1)) [sum_j R_j^2 - k(k+1)^2/4]
with k - 1 df, optionally corrected for ties as R's ``friedman.test`` and scipy do, and the
Iman-Davenport (1980) F_F = (N - 1) chi2_F / (N(k - 1) - chi2_F) with (k - 1, (k - 1)(N - 1)) df.

The tests (tests/stats/test_omnibus.py) check Demšar's (2006) published example, R 4.2.2's
``friedman.test``, ``car`` 3.1-1 ``Anova``/``summary(..., multivariate = FALSE)`` and ``afex``
1.2-1 ``aov_car`` on a spherical and a non-spherical data set, the SPSS output printed in Leite and Rino (2009),
and the degenerate cases (W ~ 0, k - 1 >= n, k = 2, zero error variance, all ties).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from sigreport.stats.lazy import scipy_stats as sps
from sigreport.stats.result import EffectSize, finite_or_none
from sigreport.stats.tails import chi2_sf, f_sf

SPHERICITY_MODES = ("auto", "greenhouse_geisser", "huynh_feldt", "none")
CORRECTION_NAMES = ("none", "greenhouse_geisser", "huynh_feldt", "lower_bound")
_HF_THRESHOLD = 0.75  # Leite and Rino 2009: Huynh-Feldt when epsilon > 0.75, else Greenhouse-Geisser
_EPS = float(np.finfo(float).eps)


# ---------------------------------------------------------------------------------------------
# Result shapes
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class SphericityResult:
    """Mauchly's test of sphericity and the three epsilon estimates.

    ``mauchly_w`` is W (it may underflow to 0.0 while ``chi2`` stays finite, because chi2 is
    computed from log W). ``chi2`` is SPSS's "Approx. Chi-Square"
    -(n - 1 - (2p^2 + p + 2) / (6p)) ln W with p = k - 1 and ``df`` = p(p + 1)/2 - 1; ``pvalue``
    is its upper chi-square tail, the first-order approximation SPSS prints. R's ``mauchly.test``,
    ``car``, ``afex`` and pingouin add Anderson's (1958, sec. 10.7.4) second-order term; that
    p-value (25% larger on R's own ``?mauchly.test`` example) is
    :attr:`RMAnovaResult.sphericity_detail` ``.pvalue_second_order``, with the uncapped Huynh-Feldt
    epsilon; both live there so that this record's fields stay as they are.
    ``epsilon_hf`` is capped at 1 (the value used for the corrected p), ``epsilon_lb`` is 1/(k - 1).
    """

    mauchly_w: float | None
    chi2: float | None
    df: int
    pvalue: float | None
    epsilon_gg: float | None
    epsilon_hf: float | None
    epsilon_lb: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class SphericityDetail:
    """What :class:`SphericityResult` leaves out: R's Mauchly p-value and the uncapped HF epsilon.

    ``pvalue_second_order`` is the p-value of R's ``mauchly.test`` (also ``car``, ``afex``,
    pingouin): with f = p(p+1)/2 - 1, rho = 1 - (2p^2 + p + 2)/(6 p nu), nu = n - 1 and
    w2 = (p+2)(p-1)(p-2)(2p^3 + 6p^2 + 3p + 2) / (288 (nu p rho)^2),
    P = P1 + w2 (P5 - P1) with P1 = P(chi2_f > chi2), P5 = P(chi2_{f+4} > chi2) (Anderson 1958,
    sec. 10.7.4; R ``stats:::mauchly.test.SSD``). ``pvalue_first_order`` repeats
    ``SphericityResult.pvalue`` (SPSS). ``reported`` names the variant a report should show by
    default ('second_order', R's). ``epsilon_hf_uncapped`` is car's printed "HF eps" (it may exceed 1;
    only the capped value enters the corrected p-value).
    """

    pvalue_second_order: float | None
    pvalue_first_order: float | None
    epsilon_hf_uncapped: float | None
    reported: str = "second_order"


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnovaRow:
    """One line of the repeated-measures ANOVA table: source, sum of squares, df, mean square."""

    source: str
    ss: float | None
    df: float
    ms: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class CorrectedF:
    """The F test with both degrees of freedom multiplied by an epsilon."""

    df1: float | None
    df2: float | None
    pvalue: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class RMAnovaResult:
    """One-way repeated-measures ANOVA (systems within items).

    ``statistic``/``df1``/``df2``/``pvalue`` are the sphericity-assumed F test; ``corrections``
    has the keys ``'none'``, ``'greenhouse_geisser'``, ``'huynh_feldt'`` and ``'lower_bound'``.
    The effect size is partial eta squared SS_systems / (SS_systems + SS_error).

    Added later (defaults keep older constructions valid): ``table`` has the rows 'systems',
    'items' (the subjects), 'error' and 'total' with SS, df and MS (SS_items = k sum_i
    (row mean_i - grand)^2, df n - 1); ``generalized_eta_squared`` is
    SS_systems / (SS_systems + SS_items + SS_error) (Olejnik & Algina 2003; Bakeman 2005), the
    'ges' of ``afex`` for a design with one within factor and no between factor;
    ``sphericity_detail`` holds R's second-order Mauchly p and the uncapped HF epsilon.
    """

    method: str
    n: int
    k: int
    statistic: float | None
    df1: float | None
    df2: float | None
    pvalue: float | None
    ss_systems: float | None
    ss_error: float | None
    ms_systems: float | None
    ms_error: float | None
    effect_size: EffectSize
    sphericity: SphericityResult
    corrections: dict[str, CorrectedF]
    warnings: tuple[str, ...] = ()
    table: tuple[AnovaRow, ...] = ()
    generalized_eta_squared: EffectSize = EffectSize(name="generalized_eta_squared", value=None)
    sphericity_detail: SphericityDetail = SphericityDetail(pvalue_second_order=None, pvalue_first_order=None,
                                                           epsilon_hf_uncapped=None)


@dataclasses.dataclass(frozen=True, kw_only=True)
class SphericityDecision:
    """Which sphericity correction is reported, its F-test degrees of freedom and p, and why.

    ``mauchly_p`` names the Mauchly p-value variant that drove ``mode='auto'`` ('first_order'
    or 'r'), ``mauchly_pvalue`` is its value (None when not computable or not used).
    """

    correction_applied: str
    df1: float | None
    df2: float | None
    pvalue_corrected: float | None
    reason: str
    mauchly_p: str = "first_order"
    mauchly_pvalue: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class ImanDavenport:
    """Iman-Davenport F_F = (N - 1) chi2_F / (N(k - 1) - chi2_F), F with (k-1, (k-1)(N-1)) df."""

    statistic: float | None
    df1: float | None
    df2: float | None
    pvalue: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class FriedmanResult:
    """Friedman test on within-item ranks (1 = best), after Demšar (2006).

    ``statistic`` is the chi-square actually used: ``statistic_tie_corrected`` when
    ``tie_correction`` is true (R's ``friedman.test``, scipy), else Demšar's uncorrected formula
    ``statistic_uncorrected``. The Iman-Davenport F and Kendall's W = statistic / (N(k - 1)) are
    computed from ``statistic``. ``average_ranks`` are in column order.
    """

    method: str
    n: int
    k: int
    statistic: float | None
    df: int
    pvalue: float | None
    tie_correction: bool
    statistic_uncorrected: float | None
    statistic_tie_corrected: float | None
    average_ranks: tuple[float | None, ...]
    iman_davenport: ImanDavenport
    kendall_w: float | None
    warnings: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _as_scores(scores: np.ndarray) -> np.ndarray:
    x = np.asarray(scores, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"scores must be a 2-D array (n_items, k_systems); got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("scores contain NaN or infinite values; drop or impute missing items first")
    return x


def _orthonormal_contrasts(k: int) -> np.ndarray:
    """k x (k - 1) orthonormal Helmert contrasts, orthogonal to the vector of ones.

    Mauchly's W and the epsilons do not depend on which orthonormal basis is used.
    """
    c = np.zeros((k, k - 1))
    for j in range(1, k):  # k is the number of systems, not items: a short constant loop
        c[:j, j - 1] = 1.0
        c[j, j - 1] = -float(j)
        c[:, j - 1] /= math.sqrt(j * (j + 1))
    return c


def _corrected(statistic: float | None, df1: float, df2: float, epsilon: float | None) -> CorrectedF:
    """The F test with df1 and df2 multiplied by ``epsilon`` (Greenhouse & Geisser 1959)."""
    if epsilon is None or not math.isfinite(epsilon) or df1 <= 0 or df2 <= 0:
        return CorrectedF(df1=None, df2=None, pvalue=None)
    d1, d2 = epsilon * df1, epsilon * df2
    p = None if statistic is None else finite_or_none(f_sf(statistic, d1, d2))
    return CorrectedF(df1=float(d1), df2=float(d2), pvalue=p)


def _huynh_feldt(gg: float, n: int, k: int) -> float:
    """Huynh-Feldt epsilon, as ``car`` 3.1-1 (``summary.Anova.mlm``) and SPSS, capped at 1.

    car computes ((error.df + 1) p gg - 2) / (p (error.df - p gg)) with p = k - 1 and
    error.df = n - 1 here, i.e. (n (k-1) gg - 2) / ((k-1)(n - 1 - (k-1) gg)). That is Lecoutre's
    (1991) correction of Huynh & Feldt (1976); with one group of items (no between factor) it is
    identical to the original formula, which is what SPSS prints.
    The denominator reaches 0 only when k - 1 >= n and the n - 1 contrast eigenvalues are equal:
    the estimate is then unbounded (capped at 1), or 0/0 when n = 2, where the limit of the
    bound HF >= GG (HF - GG is proportional to ((k-1)gg + 2)((k-1)gg - 1) >= 0) gives GG.
    """
    p = k - 1
    den = n - 1 - p * gg
    if den <= 1e-9 * (n - 1):
        return 1.0 if n > 2 else gg
    raw = (n * p * gg - 2.0) / (p * den)
    return float(min(1.0, max(gg, raw)))


def _huynh_feldt_uncapped(gg: float, n: int, k: int) -> float | None:
    """car's printed "HF eps" (n (k-1) gg - 2) / ((k-1)(n - 1 - (k-1) gg)), not capped at 1.

    None when the denominator is 0 (see :func:`_huynh_feldt`): the estimate is then unbounded.
    """
    p = k - 1
    den = n - 1 - p * gg
    if den <= 1e-9 * (n - 1):
        return None
    return float((n * p * gg - 2.0) / (p * den))


def mauchly_pvalue_second_order(chi2: float, p: int, nu: int) -> float | None:
    """Mauchly's p-value with Anderson's second-order term, as R's ``mauchly.test``.

    ``chi2`` = -nu rho ln W, ``p`` contrasts (k - 1), ``nu`` = n - 1 error degrees of freedom.
    R 4.2 ``stats:::mauchly.test.SSD``: rho = 1 - (2p^2 + p + 2)/(6 p nu),
    w2 = (p+2)(p-1)(p-2)(2p^3 + 6p^2 + 3k + 2)/(288 (nu p rho)^2),
    P = P(chi2_f > z) + w2 (P(chi2_{f+4} > z) - P(chi2_f > z)), f = p(p+1)/2 - 1 (after
    Anderson 1958, sec. 10.7.4). Note the 3k: R's code writes ``3 * p`` with its ``p`` the number
    of response columns (k here), where Anderson's term has 3p with p the number of contrasts;
    car agrees with R, so R's value is reproduced (the two differ by ~0.1% of the p-value on R's
    example). With p = 2 the term vanishes and both p-values agree.
    """
    f = p * (p + 1) // 2 - 1
    rho = 1.0 - (2.0 * p**2 + p + 2.0) / (6.0 * p * nu)
    if f <= 0 or rho <= 0 or not math.isfinite(chi2):
        return None
    k = p + 1
    w2 = (p + 2.0) * (p - 1.0) * (p - 2.0) * (2.0 * p**3 + 6.0 * p**2 + 3.0 * k + 2.0) / (288.0 * (nu * p * rho) ** 2)
    p1 = float(chi2_sf(chi2, f))
    p2 = float(chi2_sf(chi2, f + 4))
    return finite_or_none(min(1.0, max(0.0, p1 + w2 * (p2 - p1))))


def _anova_table(
    x: np.ndarray, ss_systems: float, ss_error: float, df1: float, df2: float
) -> tuple[tuple[AnovaRow, ...], float]:
    """Rows systems / items / error / total and SS_items (subjects)."""
    n, k = x.shape
    grand = float(x.mean())
    ss_items = float(k * np.sum((x.mean(axis=1) - grand) ** 2))
    ss_total = float(np.sum((x - grand) ** 2))
    df_items = float(n - 1)
    rows = (
        AnovaRow(source="systems", ss=ss_systems, df=df1, ms=ss_systems / df1),
        AnovaRow(source="items", ss=ss_items, df=df_items, ms=ss_items / df_items),
        AnovaRow(source="error", ss=ss_error, df=df2, ms=ss_error / df2 if df2 > 0 else None),
        AnovaRow(source="total", ss=ss_total, df=float(n * k - 1), ms=None),
    )
    return rows, ss_items


def _fmt(x: float, digits: int = 2) -> str:
    """Round to ``digits`` significant digits without scientific notation for ordinary sizes."""
    if x == 0:
        return "0"
    if abs(x) < 1e-4 or abs(x) >= 1e6:
        return f"{x:.{digits}g}"
    s = f"{x:.{digits}g}"
    if "e" in s:  # e.g. 1.2e+02 -> 120
        s = f"{float(s):f}".rstrip("0").rstrip(".")
    return s


def _fmt_vs(x: float, threshold: float) -> tuple[str, str]:
    """Format ``x`` and ``threshold`` with 2 significant digits, more if rounding hides the order."""
    for digits in (2, 3, 4, 5, 6):
        a, b = _fmt(x, digits), _fmt(threshold, digits)
        if a != b or x == threshold:
            return a, b
    return _fmt(x, 6), _fmt(threshold, 6)


def _fmt_p(p: float, alpha: float) -> str:
    """'p = 0.003 < 0.05', 'p = 0.21 >= 0.05' or 'p < 0.001'."""
    if p < 0.001 <= alpha:
        return "p < 0.001"
    a, b = _fmt_vs(p, alpha)
    return f"p = {a} {'<' if p < alpha else '>='} {b}"


# ---------------------------------------------------------------------------------------------
# Repeated-measures ANOVA
# ---------------------------------------------------------------------------------------------


def rm_anova(scores: np.ndarray) -> RMAnovaResult:
    """One-way repeated-measures ANOVA with Mauchly's test and sphericity corrections.

    ``scores`` has shape (n_items, k_systems); items are the subjects, systems the within factor.

    Sums of squares: SS_systems = n sum_j (mean_j - grand)^2, SS_error = sum of squared
    residuals of the additive item + system model; F = (SS_systems/(k-1)) / (SS_error/((k-1)(n-1))).

    Sphericity: Y = (column-centred scores) @ C with C an orthonormal k x (k-1) contrast matrix;
    the eigenvalues lambda of Y'Y (squared singular values of Y, so no explicit covariance or
    determinant is formed) give
    W = prod(lambda) / mean(lambda)^(k-1), computed as log W (W may underflow),
    epsilon_GG = (sum lambda)^2 / ((k-1) sum lambda^2) (Greenhouse & Geisser 1959; Box 1954),
    epsilon_HF from :func:`_huynh_feldt`, epsilon_LB = 1/(k-1).
    When Y is numerically rank-deficient (systems that are exact linear combinations of others,
    as in Leite and Rino's (2009) 24 x 100 SPSS output where W = .000 and the chi-square is '.'), W is 0 and
    the chi-square and its p-value are not finite: they are None with a warning. With k - 1 >= n
    Mauchly's test is undefined (SPSS prints '.' for W too): W, chi-square and p are None with a
    warning, the epsilons are still estimated. :func:`apply_sphericity` treats both as a
    violation of sphericity, as Leite and Rino (2009) do. With k = 2 sphericity holds trivially (W = 1, df 0,
    no p-value, every epsilon 1), also said in ``warnings``.

    Validated against R 4.2.2 ``car::Anova(lm(Y ~ 1), idata, idesign = ~system)`` with
    ``summary(..., multivariate = FALSE)`` and ``afex::aov_car`` (see the tests).
    """
    x = _as_scores(scores)
    n, k = x.shape
    warnings: list[str] = []
    df1 = float(k - 1)
    df2 = float((k - 1) * (n - 1))
    lb = 1.0 / (k - 1) if k >= 2 else None
    sph_df = max(0, (k - 1) * k // 2 - 1)
    if k < 2 or n < 2:
        what = f"two systems; got k = {k}" if k < 2 else f"two items; got n = {n}"
        return _rm_anova_undefined(n, k, df1, df2, lb, sph_df, f"Repeated-measures ANOVA needs at least {what}.")

    f = _rm_f_test(x, df1, df2, warnings)
    # --- sphericity --------------------------------------------------------------------------
    sphericity, sph_p2, hf_raw = _sphericity(x, sph_df, lb, f.zero_error, warnings)
    table, ss_items = _anova_table(x, f.ss_systems, f.ss_error, df1, df2)
    ges_den = f.ss_systems + ss_items + f.ss_error
    ges = f.ss_systems / ges_den if ges_den > 0 else None

    corrections = {
        "none": CorrectedF(df1=df1, df2=df2, pvalue=f.pvalue),
        "greenhouse_geisser": _corrected(f.statistic, df1, df2, sphericity.epsilon_gg),
        "huynh_feldt": _corrected(f.statistic, df1, df2, sphericity.epsilon_hf),
        "lower_bound": _corrected(f.statistic, df1, df2, lb),
    }
    return RMAnovaResult(
        method="rm_anova", n=n, k=k, statistic=finite_or_none(f.statistic), df1=df1, df2=df2, pvalue=f.pvalue,
        ss_systems=f.ss_systems, ss_error=f.ss_error, ms_systems=f.ms_systems, ms_error=f.ms_error,
        effect_size=EffectSize(name="partial_eta_squared", value=finite_or_none(f.pes)), sphericity=sphericity,
        corrections=corrections, warnings=tuple(warnings), table=table,
        generalized_eta_squared=EffectSize(name="generalized_eta_squared", value=finite_or_none(ges)),
        sphericity_detail=SphericityDetail(pvalue_second_order=sph_p2, pvalue_first_order=sphericity.pvalue,
                                           epsilon_hf_uncapped=hf_raw))


def _rm_anova_undefined(
    n: int, k: int, df1: float, df2: float, lb: float | None, sph_df: int, why: str
) -> RMAnovaResult:
    """The result for fewer than two systems or items: no statistic, ``why`` as its warning."""
    sph = SphericityResult(mauchly_w=None, chi2=None, df=sph_df, pvalue=None, epsilon_gg=None, epsilon_hf=None,
                           epsilon_lb=lb)
    return RMAnovaResult(method="rm_anova", n=n, k=k, statistic=None, df1=df1 if k >= 1 else None,
                         df2=df2 if n >= 1 and k >= 1 else None, pvalue=None, ss_systems=None, ss_error=None,
                         ms_systems=None, ms_error=None, effect_size=EffectSize(name="partial_eta_squared", value=None),
                         sphericity=sph,
                         corrections={name: CorrectedF(df1=None, df2=None, pvalue=None) for name in CORRECTION_NAMES},
                         warnings=(why,))


@dataclasses.dataclass(frozen=True, kw_only=True)
class _RMFTest:
    """The sphericity-assumed F test of :func:`rm_anova` and its sums of squares."""

    ss_systems: float
    ss_error: float
    ms_systems: float
    ms_error: float
    statistic: float | None
    pvalue: float | None
    pes: float | None  # partial eta squared
    zero_error: bool  # SS_error is rounding noise: no F ratio


def _rm_f_test(x: np.ndarray, df1: float, df2: float, warnings: list[str]) -> _RMFTest:
    """Sums of squares of the additive item + system model, F, its p-value and partial eta squared; a sum of
    squares within rounding noise of the data counts as 0 (warnings appended when that leaves F undefined)."""
    n, k = x.shape
    grand = float(x.mean())
    col_means = x.mean(axis=0)
    row_means = x.mean(axis=1)
    ss_systems = float(n * np.sum((col_means - grand) ** 2))
    resid = x - row_means[:, None] - col_means[None, :] + grand
    ss_error = float(np.sum(resid**2))
    ms_systems = ss_systems / df1
    ms_error = ss_error / df2

    # Rounding noise of the residuals is a few ulps of the data; below that a sum of squares is 0.
    noise = n * k * (16.0 * _EPS * float(np.max(np.abs(x)))) ** 2
    if ss_systems <= noise:
        ss_systems, ms_systems = 0.0, 0.0
    if not ss_error <= noise:  # (not "ss_error > noise": a NaN sum of squares takes this path, as it always has)
        statistic = ms_systems / ms_error
        pes = ss_systems / (ss_systems + ss_error)
        return _RMFTest(ss_systems=ss_systems, ss_error=ss_error, ms_systems=ms_systems, ms_error=ms_error,
                        statistic=statistic, pvalue=finite_or_none(f_sf(statistic, df1, df2)), pes=pes,
                        zero_error=False)
    what = "the F ratio" if k == 2 else "the F ratio and the sphericity statistics"
    warnings.append(
        "The error variance is zero (every item shifts all systems' scores by the same amount), "
        f"so {what} cannot be computed."
    )
    if ss_systems == 0:
        warnings.append(
            "All systems also have the same mean score, so partial eta squared is 0/0 and undefined."
        )
    return _RMFTest(ss_systems=ss_systems, ss_error=0.0, ms_systems=ms_systems, ms_error=0.0, statistic=None,
                    pvalue=None, pes=1.0 if ss_systems > 0 else None, zero_error=True)


def _sphericity(
    x: np.ndarray, sph_df: int, lb: float | None, zero_error: bool, warnings: list[str]
) -> tuple[SphericityResult, float | None, float | None]:
    """Mauchly's test and the epsilons from the contrasts' singular values (see :func:`rm_anova`), R's
    second-order Mauchly p-value and the uncapped Huynh-Feldt epsilon; nothing but the lower bound when the
    error variance is zero."""
    n, k = x.shape
    if k == 2:
        warnings.append(
            "With two systems there is a single contrast, so sphericity holds trivially "
            "(Mauchly's W = 1, every epsilon = 1) and no correction is needed."
        )
        return SphericityResult(mauchly_w=1.0, chi2=0.0, df=sph_df, pvalue=None, epsilon_gg=1.0, epsilon_hf=1.0,
                                epsilon_lb=lb), None, 1.0
    if zero_error:
        return SphericityResult(mauchly_w=None, chi2=None, df=sph_df, pvalue=None, epsilon_gg=None, epsilon_hf=None,
                                epsilon_lb=lb), None, None
    pp = k - 1
    y = (x - x.mean(axis=0)[None, :]) @ _orthonormal_contrasts(k)
    s = np.linalg.svd(y, compute_uv=False)
    lam = s**2  # sum(lam) = SS_error > 0 here
    gg = float(lam.sum() ** 2 / (pp * np.sum(lam**2)))
    hf = _huynh_feldt(gg, n, k)
    hf_raw = _huynh_feldt_uncapped(gg, n, k)
    w, chi2, sph_p, sph_p2 = _mauchly(s, lam, n, k, sph_df, warnings)
    return SphericityResult(mauchly_w=w, chi2=chi2, df=sph_df, pvalue=sph_p, epsilon_gg=gg, epsilon_hf=hf,
                            epsilon_lb=lb), sph_p2, hf_raw


def _mauchly(
    s: np.ndarray, lam: np.ndarray, n: int, k: int, sph_df: int, warnings: list[str]
) -> tuple[float | None, float | None, float | None, float | None]:
    """Mauchly's W, its chi-square, first-order (SPSS) and second-order (R) p-values from the contrasts'
    singular values ``s`` (``lam = s**2``); None with a warning where the test is not computable."""
    pp = k - 1
    rank_tol = s.max() * max(n, pp) * _EPS
    n_df = n - 1
    if pp >= n:
        warnings.append(
            f"Mauchly's test is not computable: it needs more items than systems minus one "
            f"(n = {n}, k - 1 = {pp}), otherwise the contrast covariance matrix is singular; "
            "the epsilons are still estimated and this is treated as a violation of sphericity."
        )
        return None, None, None, None
    if s.min() <= rank_tol:
        rank = int(np.sum(s > rank_tol))
        warnings.append(
            f"Mauchly's test is not computable: the covariance matrix of the {pp} contrasts is "
            f"singular or nearly so (numerical rank {rank}), for example because some systems' "
            "scores are linear combinations of others'. W is 0 and its chi-square is not "
            "finite; this is treated as a violation of sphericity."
        )
        return 0.0, None, None, None
    log_w = float(2.0 * np.sum(np.log(s)) - pp * np.log(lam.sum() / pp))
    log_w = min(log_w, 0.0)  # W <= 1 by the AM-GM inequality; clip rounding
    w = math.exp(log_w)
    rho = 1.0 - (2.0 * pp**2 + pp + 2.0) / (6.0 * pp * n_df)
    chi2_val = -n_df * rho * log_w
    if rho <= 0 or not math.isfinite(chi2_val):
        warnings.append(
            f"Mauchly's chi-square approximation is not usable with n = {n} items and "
            f"k = {k} systems."
        )
        return w, None, None, None
    chi2 = float(chi2_val)
    return w, chi2, finite_or_none(chi2_sf(chi2, sph_df)), mauchly_pvalue_second_order(chi2, pp, n_df)


MAUCHLY_P_VARIANTS = ("first_order", "r")


def apply_sphericity(
    result: RMAnovaResult, mode: str, alpha: float, mauchly_p: str = "first_order"
) -> SphericityDecision:
    """Choose the reported F test: sphericity assumed, Greenhouse-Geisser or Huynh-Feldt.

    ``mode='auto'`` follows Leite and Rino 2009 (after Elliot & Woodward 2006): if Mauchly's test rejects
    sphericity at ``alpha``, or cannot be computed (SPSS's '.' is read as a violation in the
    example of Leite and Rino 2009), use Huynh-Feldt when the *Greenhouse-Geisser* epsilon exceeds 0.75 and
    Greenhouse-Geisser otherwise; if Mauchly does not reject, no correction. With k = 2
    sphericity holds trivially. The other modes force one correction. ``reason`` is one sentence.

    ``mauchly_p`` chooses the Mauchly p-value that ``'auto'`` compares with alpha:
    ``'first_order'`` (SPSS; today's default) or ``'r'`` (the second-order p of R's
    ``mauchly.test``, car, afex and pingouin; see :class:`SphericityDetail`).
    """
    if mode not in SPHERICITY_MODES:
        raise ValueError(f"unknown sphericity mode {mode!r}; known: {', '.join(SPHERICITY_MODES)}")
    if mauchly_p not in MAUCHLY_P_VARIANTS:
        raise ValueError(f"unknown mauchly_p {mauchly_p!r}; known: {', '.join(MAUCHLY_P_VARIANTS)}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1); got {alpha}")
    sph = result.sphericity
    m_p = sph.pvalue if mauchly_p == "first_order" else result.sphericity_detail.pvalue_second_order

    def decide(name: str, reason: str) -> SphericityDecision:
        c = result.corrections[name]
        return SphericityDecision(correction_applied=name, df1=c.df1, df2=c.df2, pvalue_corrected=c.pvalue,
                                  reason=reason, mauchly_p=mauchly_p, mauchly_pvalue=m_p)

    if result.statistic is None:
        name = "none" if mode == "auto" else mode
        return decide(name, "The F test cannot be computed for these data, so no sphericity correction is applied.")
    if mode == "none":
        return decide("none", "Sphericity is assumed by configuration, so the uncorrected F test is reported.")
    if mode in ("greenhouse_geisser", "huynh_feldt"):
        label = "Greenhouse-Geisser" if mode == "greenhouse_geisser" else "Huynh-Feldt"
        eps = sph.epsilon_gg if mode == "greenhouse_geisser" else sph.epsilon_hf
        eps_txt = "" if eps is None else f" (epsilon = {_fmt(eps, 3)})"
        return decide(mode, f"The {label} correction{eps_txt} is applied by configuration.")

    # mode == 'auto'
    if result.k == 2:
        return decide(
            "none",
            "With two systems sphericity holds trivially (Mauchly's W = 1), so no correction applies.",
        )
    w = sph.mauchly_w
    if m_p is None or w is None:
        w_txt = "" if sph.mauchly_w is None else f" (W = {_fmt(sph.mauchly_w, 2)})"
        premise = f"Mauchly's test cannot be computed{w_txt}, which is treated as a violation of sphericity,"
    elif m_p < alpha:
        premise = (
            f"Mauchly's test rejects sphericity (W = {_fmt(w, 2)}, "
            f"{_fmt_p(m_p, alpha)})"
        )
    else:
        return decide(
            "none",
            f"Mauchly's test does not reject sphericity (W = {_fmt(w, 2)}, "
            f"{_fmt_p(m_p, alpha)}), so the sphericity-assumed F test applies.",
        )
    gg = sph.epsilon_gg
    if gg is None:
        return decide(
            "none",
            f"{premise} but the Greenhouse-Geisser epsilon is not computable, so no correction is applied.",
        )
    g_txt, t_txt = _fmt_vs(gg, _HF_THRESHOLD)
    if gg > _HF_THRESHOLD:
        return decide(
            "huynh_feldt",
            f"{premise} and the Greenhouse-Geisser epsilon {g_txt} > {t_txt}, "
            "so the Huynh-Feldt correction applies.",
        )
    return decide(
        "greenhouse_geisser",
        f"{premise} and the Greenhouse-Geisser epsilon {g_txt} <= {t_txt}, "
        "so the Greenhouse-Geisser correction applies.",
    )


# ---------------------------------------------------------------------------------------------
# Friedman
# ---------------------------------------------------------------------------------------------


def friedman(scores: np.ndarray, higher_is_better: bool = True, tie_correction: bool = True) -> FriedmanResult:
    """Friedman test with average ranks and the Iman-Davenport F (Demšar 2006, section 3.2.2).

    Ranks within each row: 1 = best (the highest score when ``higher_is_better``), ties get the
    average of the ranks they span. With S_j the column rank sums and
    A = 12 sum_j (S_j - N(k+1)/2)^2:
    uncorrected chi2_F = A / (N k (k+1)) (Demšar's formula, equal to his eq. with R_j = S_j/N);
    tie-corrected chi2_F = A / (N k (k+1) - T/(k-1)), T = sum over tie groups of t^3 - t
    (R's ``friedman.test``, ``scipy.stats.friedmanchisquare``).
    Iman-Davenport F_F = (N-1) chi2_F / (N(k-1) - chi2_F) uses the chi-square in ``statistic``;
    Demšar's published F_F = 3.69 comes from the uncorrected chi2_F = 9.28.
    Ranks are multiples of 1/2, so A, N k (k+1) (k-1) and T are exact integers in floating point
    and the infinite-F_F case (every item ranks the systems identically) is detected exactly.
    """
    x = _as_scores(scores)
    n, k = x.shape
    warnings: list[str] = []
    df = max(k - 1, 0)
    no_id = ImanDavenport(statistic=None, df1=None, df2=None, pvalue=None)
    too_few = f"The Friedman test needs at least two items and two systems; got n = {n}, k = {k}."

    if n == 0 or k == 0:
        return FriedmanResult(method="friedman", n=n, k=k, statistic=None, df=df, pvalue=None,
                              tie_correction=tie_correction, statistic_uncorrected=None, statistic_tie_corrected=None,
                              average_ranks=tuple([None] * k), iman_davenport=no_id, kendall_w=None,
                              warnings=(too_few,))

    key = -x if higher_is_better else x
    ranks = sps.rankdata(key, method="average", axis=1)
    average_ranks = tuple(float(v) for v in ranks.mean(axis=0))

    if k < 2 or n < 2:
        return FriedmanResult(method="friedman", n=n, k=k, statistic=None, df=df, pvalue=None,
                              tie_correction=tie_correction, statistic_uncorrected=None, statistic_tie_corrected=None,
                              average_ranks=average_ranks, iman_davenport=no_id, kendall_w=None, warnings=(too_few,))

    a, d_tie_scaled, chi2_unc, chi2_tie = _friedman_chi2(key, ranks, warnings)
    statistic = chi2_tie if tie_correction else chi2_unc
    pvalue = None if statistic is None else finite_or_none(chi2_sf(statistic, df))
    iman = no_id
    kendall_w = None
    if statistic is not None:
        kendall_w = statistic / (n * (k - 1))
        iman = _iman_davenport(statistic, a, d_tie_scaled, n, k, tie_correction, warnings)

    return FriedmanResult(
        method="friedman",
        n=n,
        k=k,
        statistic=finite_or_none(statistic),
        df=df,
        pvalue=pvalue,
        tie_correction=tie_correction,
        statistic_uncorrected=finite_or_none(chi2_unc),
        statistic_tie_corrected=finite_or_none(chi2_tie),
        average_ranks=average_ranks,
        iman_davenport=iman,
        kendall_w=finite_or_none(kendall_w),
        warnings=tuple(warnings),
    )


def _friedman_chi2(
    key: np.ndarray, ranks: np.ndarray, warnings: list[str]
) -> tuple[float, float, float, float | None]:
    """A, (k - 1) times the tie-corrected denominator, and the uncorrected and tie-corrected chi2_F (see
    :func:`friedman`); the tie-corrected one is None, with a warning, when every item ties all systems."""
    n, k = ranks.shape
    # Tie groups: each tied value of a group of size t sits in a rank span max - min + 1 = t, and
    # sum over the group's t members of (t^2 - 1) is t^3 - t.
    t_sizes = sps.rankdata(key, method="max", axis=1) - sps.rankdata(key, method="min", axis=1) + 1
    ties = float(np.sum(t_sizes**2 - 1))
    rank_sums = ranks.sum(axis=0)
    a = float(12.0 * np.sum((rank_sums - n * (k + 1) / 2.0) ** 2))
    d_unc = float(n * k * (k + 1))
    d_tie_scaled = float(n * k * (k + 1) * (k - 1)) - ties  # (k - 1) times the corrected denominator
    if d_tie_scaled <= 0:
        warnings.append(
            "Every item gives all systems the same score, so the systems cannot be ranked: the "
            "tie-corrected Friedman chi-square is undefined (0/0) and the uncorrected one is 0."
        )
        return a, d_tie_scaled, a / d_unc, None
    return a, d_tie_scaled, a / d_unc, a * (k - 1) / d_tie_scaled


def _iman_davenport(
    statistic: float, a: float, d_tie_scaled: float, n: int, k: int, tie_correction: bool, warnings: list[str]
) -> ImanDavenport:
    """Iman-Davenport F_F from the chi-square in use; gap = N(k-1) - chi2 is judged through exact numerators,
    so the infinite F_F of identical rankings is found exactly (and has no p-value, with a warning)."""
    if tie_correction:
        infinite = n * d_tie_scaled == a
    else:
        infinite = float(n * n * k * (k + 1) * (k - 1)) == a
    id_df1, id_df2 = float(k - 1), float((k - 1) * (n - 1))
    if infinite:
        warnings.append(
            "Every item ranks the systems in the same order, so chi2_F = N(k - 1) and the "
            "Iman-Davenport F is infinite; its F approximation gives no usable p-value "
            "(use the Friedman chi-square p-value)."
        )
        return ImanDavenport(statistic=None, df1=id_df1, df2=id_df2, pvalue=None)
    f_f = (n - 1) * statistic / (n * (k - 1) - statistic)
    return ImanDavenport(statistic=float(f_f), df1=id_df1, df2=id_df2, pvalue=finite_or_none(f_sf(f_f, id_df1, id_df2)))
