"""The minimum detectable difference of every pair of an item-level pairwise family (``tests.power``).

Computed after the family corrections (:func:`~sigreport.analyses.common.apply_families`), because the
level a pair is tested at depends on the family's size: the level the correction asks of a pair when no
other pair of its family is significant (:func:`comparison_level`; alpha / m for Bonferroni, Holm,
Hochberg, Hommel and Benjamini-Hochberg, alpha / (m H_m) for Benjamini-Yekutieli, alpha without a
correction). By the method's declared rule (``mde`` of its declaration, :mod:`sigreport.stats.registry`;
the computations in :mod:`sigreport.stats.power`):

* paired t, and the bootstrap, bootstrap-t and permutation tests of a mean metric: the noncentral-t closed
  form with the SD of the pair's differences (for the resampling tests the closed form is their
  large-sample equivalent; ``method`` says ``noncentral_t`` for all of them);
* Wilcoxon and sign tests: a seeded simulation from the pair's observed differences (shift model), or,
  when the family has more than :data:`SIMULATION_BUDGET` pair-items, the closed form divided by the square
  root of the test's asymptotic relative efficiency to the t test for normal differences (3/pi for
  Wilcoxon, 2/pi for the sign test; ``method`` ``noncentral_t_are``);
* clustered items (``data.columns.cluster``): the noncentral t with G - 1 df and the effective number of items
  n / deff of the pair's differences (``method`` ``noncentral_t_clustered``), for every method allowed with
  clusters (the clustered paired t, and the cluster bootstrap and permutation tests as its large-sample
  equivalent); a macro average over strata likewise with its Welch-Satterthwaite df
  (``noncentral_t_stratified``);
* corpus-level metrics, cross-validation designs and post-hoc tests: not computed (no per-item
  differences, or no closed form for their design).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np

from sigreport.analyses.common import derived_seed
from sigreport.data import Dataset
from sigreport.results.records import DetectableDifference
from sigreport.spec import TestsSpec
from sigreport.stats import leaderboard, power, registry

SIMULATION_BUDGET = 200_000  # pairs x items of a family simulated; beyond it the efficiency approximation
N_SIMS = 500  # simulated data sets per power estimate (Monte Carlo s.e. of a power near 0.8: 0.018)
EFFICIENCY = {d.name: d.mde.efficiency for d in registry.methods("pairwise") if d.mde.efficiency is not None}
"""Method -> Pitman ARE to the t test for normal differences (3/pi Wilcoxon, 2/pi sign), from the declarations."""


def comparison_level(alpha: float, correction: str, m: int) -> float:
    """The level a pair must reach when no other pair of its family of ``m`` is significant."""
    m = max(int(m), 1)
    if correction == "none":
        return alpha
    if correction == "fdr_by":
        return alpha / (m * sum(1.0 / i for i in range(1, m + 1)))
    return alpha / m


@functools.lru_cache(maxsize=256)
def _dz(n: int, level: float, target: float, alternative: str) -> float | None:
    return power.paired_t_mde_dz(n, level, target, alternative)


def closed_form(sd: float | None, n: int, level: float, target: float, alternative: str,
                method: str = "noncentral_t", efficiency: float = 1.0) -> power.MinimumDetectable:
    why = ("fewer than 2 items" if n < 2 or sd is None else
           "the differences have no finite standard deviation" if not math.isfinite(sd) else
           "the differences do not vary" if sd <= 0 else "")
    dz = None if why else _dz(n, level, target, alternative)
    if dz is None:
        return power.MinimumDetectable(mde=None, mde_dz=None, power=target, alpha=level, n=n, sd=sd, method=method,
                                       warnings=(f"no minimum detectable difference: {why}",))
    dz /= math.sqrt(efficiency)
    return power.MinimumDetectable(mde=dz * sd, mde_dz=dz, power=target, alpha=level, n=n, sd=sd, method=method)


def clustered_mde(row: Any, sd: float | None, n: int, level: float, target: float, alternative: str
                  ) -> power.MinimumDetectable:
    """A clustered pair's MDE: the noncentral t with G - 1 df and the effective number of items n / deff of the
    pair's differences (its ``clusters``), in units of the SD of the per-item differences
    (:func:`~sigreport.stats.power.clustered_t_mde_dz`); ``method`` ``noncentral_t_clustered``. A macro average's
    pair (its ``strata``): the same with the Welch-Satterthwaite df, ``noncentral_t_stratified``."""
    stratified = "strata" in row.test.extra
    info = row.test.extra.get("strata" if stratified else "clusters")
    get = (lambda k: info.get(k)) if isinstance(info, dict) else (lambda k: getattr(info, k, None))
    n_eff = get("effective_n")
    df = get("df") if stratified else (get("G") - 1 if get("G") is not None else None)
    method = "noncentral_t_stratified" if stratified else "noncentral_t_clustered"
    why = ("the differences do not vary" if sd is None or not math.isfinite(sd) or sd <= 0 or n_eff is None else
           "no degrees of freedom" if df is None or df < 1 else "")
    dz = None
    if not why and n_eff >= 2:
        dz = float(power.paired_t_mde_dzs(np.array([float(n_eff)]), level, target, alternative,
                                          df=np.array([float(df)]))[0])
    if dz is None:
        return power.MinimumDetectable(mde=None, mde_dz=None, power=target, alpha=level, n=n, sd=sd, method=method,
                                       warnings=("no minimum detectable difference: "
                                                 f"{why or 'too few effective items'}",))
    assert sd is not None
    return power.MinimumDetectable(mde=dz * sd, mde_dz=dz, power=target, alpha=level, n=n, sd=sd, method=method)


def _closed_forms(n: int, level: float, target: float, alternative: str
                  ) -> functools.partial[DetectableDifference]:
    """``detectable(closed_form(sd, n, level, target, alternative))`` as a function of ``sd`` alone, without the
    intermediate record per pair: the noncentral t's dz of (n, level, target) comes from :func:`_dz`'s cache,
    and each pair costs one product (the same floats: ``dz * sd`` as :func:`closed_form` computes it)."""
    return functools.partial(_closed_form_of, n, level, target, alternative)


def _closed_form_of(n: int, level: float, target: float, alternative: str, sd: float | None
                    ) -> DetectableDifference:
    dz = _dz(n, level, target, alternative) if n >= 2 and sd is not None and math.isfinite(sd) and sd > 0 else None
    if dz is None:
        return detectable(closed_form(sd, n, level, target, alternative))  # a warning says why there is none
    return DetectableDifference(value=dz * sd, dz=dz, power=target, alpha=level, method="noncentral_t")


def detectable(m: power.MinimumDetectable) -> DetectableDifference:
    """A pair's ``mde`` as results.json holds it (the SD and n it came from are the pair's own fields)."""
    return DetectableDifference(value=m.mde, dz=m.mde_dz, power=m.power, alpha=m.alpha, method=m.method,
                                warnings=m.warnings)


def with_power(records: tuple[Any, ...], dataset: Dataset, tests: TestsSpec, alpha: float, seed: int
               ) -> tuple[Any, ...]:
    """The records with each item-level pairwise row's minimum detectable difference."""
    if tests.power is None:
        return records
    out = []
    for rec in records:
        if getattr(rec, "kind", None) == "pairwise" and registry.method("pairwise", rec.method).mde.rule != "none":
            block = dataset.blocks.get((rec.metric, rec.corpus))
            if block is not None and block.stats.shape[-1] == 1:  # a mean metric: per-item differences exist
                rec = dataclasses.replace(rec, pairs=_rows(rec, block, tests, alpha, seed))
        out.append(rec)
    return tuple(out)


def mde_method(rec: Any, block: Any, row: Any) -> str:
    """How a pair's MDE (and its power at a difference, :func:`powers_at`) is computed, as its ``method``:
    ``noncentral_t_clustered`` or ``noncentral_t_stratified`` by the design, else by the method's declared rule
    (``noncentral_t``; ``simulation`` within :data:`SIMULATION_BUDGET` pair-items of the family, else
    ``noncentral_t_are``). The one rule that the report's MDE and ``sigreport power`` read."""
    return mde_methods(rec, block, (row,))[0]


def mde_methods(rec: Any, block: Any, rows: tuple[Any, ...] | None = None) -> tuple[str, ...]:
    """:func:`mde_method` of each of ``rows`` (default: the record's pairs). What depends on the record alone
    (its design, its method's rule, the family's size) is decided once: asked pair by pair it was a scan of
    the family per pair, 36,100 checks for a family of 190 pairs (docs/performance.md)."""
    rows = rec.pairs if rows is None else rows
    if block.cluster_codes is not None or any("strata" in r.test.extra for r in rec.pairs):
        design = "noncentral_t_clustered"
    else:
        rule = registry.method("pairwise", rec.method).mde
        design = ("noncentral_t" if rule.rule == "noncentral_t" else "simulation"
                  if len(rec.pairs) * block.scores.shape[0] <= SIMULATION_BUDGET else "noncentral_t_are")
    return tuple("noncentral_t_stratified" if "strata" in r.test.extra else design for r in rows)


def simulation_seed(seed: int, rec: Any, row: Any) -> int:
    """The seed of a pair's simulated data sets (the report's MDE and ``sigreport power`` alike)."""
    return derived_seed(seed, f"{rec.id}/power/{row.a}/{row.b}")


def _rows(rec: Any, block: Any, tests: TestsSpec, alpha: float, seed: int) -> tuple[Any, ...]:
    level = comparison_level(alpha, rec.correction, rec.family_size)
    target = float(tests.power)
    index = {s: i for i, s in enumerate(block.systems)}
    x = block.scores
    rule = registry.method("pairwise", rec.method).mde
    sds = pair_sds(x, [index[r.a] for r in rec.pairs], [index[r.b] for r in rec.pairs], varying=True)
    rows = []
    closed = _closed_forms(x.shape[0], level, target, rec.alternative)
    for row, sd, method in zip(rec.pairs, sds, mde_methods(rec, block)):
        if method == "noncentral_t":
            rows.append(dataclasses.replace(row, mde=closed(sd)))
            continue
        if method in ("noncentral_t_clustered", "noncentral_t_stratified"):
            mde = clustered_mde(row, sd, x.shape[0], level, target, rec.alternative)
        elif method == "simulation":
            d = x[:, index[row.a]] - x[:, index[row.b]]
            test = rule.pvalues
            mde = power.simulated_mde(d, lambda v, t=test: t(v, rec.alternative), level, target, rec.alternative,
                                      N_SIMS, simulation_seed(seed, rec, row))
        else:
            mde = closed_form(sd, x.shape[0], level, target, rec.alternative, "noncentral_t_are",
                              rule.efficiency)
        rows.append(dataclasses.replace(row, mde=detectable(mde)))
    return tuple(rows)


@dataclasses.dataclass(frozen=True)
class PowerAt:
    """A pair's power to detect a true difference with its pilot's items, and the items it needs to reach the
    target power: by the rule of its MDE (``method``, :func:`mde_method`), so that the power at the report's MDE
    is the report's target. None and ``note`` where there is no answer."""

    method: str
    level: float
    sd: float | None
    power: float | None
    items_needed: int | None
    note: str = ""


MAX_ITEMS = 10_000_000
"""The most items a count is searched up to (stats.power.paired_t_sample_size's max_n)."""
SIMULATED_ITEMS = 20_000
"""The most items whose power the search for the items needed simulates (N_SIMS data sets of them); beyond it,
the efficiency approximation (``noncentral_t_are``'s count), said in the note."""


def powers_at(rec: Any, block: Any, alpha: float, seed: int, difference: float, target: float,
              pairs: tuple[Any, ...] | None = None) -> tuple[PowerAt, ...]:
    """Every pair of an item-level pairwise record (after the family corrections): its power to detect a true
    mean difference ``difference`` (a - b, in the metric's units) and the items needed for power ``target``,
    at the level the correction asks of a pair, by the pair's MDE rule (:func:`mde_method`): the noncentral t;
    the same simulation as the MDE (same seed, same data sets for the pilot's items; ``N_SIMS`` data sets
    of m items from a seed of m for the search); the t with the items times the efficiency; the clustered or
    stratified t of the pair's design (its G, df and effective items). ``pairs``: only these of the record's
    pairs (each still simulated, and its method chosen, as one of the record's)."""
    level = comparison_level(alpha, rec.correction, rec.family_size)
    index = {s: i for i, s in enumerate(block.systems)}
    x = block.scores
    n = x.shape[0]
    rule = registry.method("pairwise", rec.method).mde
    rows = rec.pairs if pairs is None else pairs
    sds = pair_sds(x, [index[r.a] for r in rows], [index[r.b] for r in rows], varying=True)
    out = []
    for row, sd, method in zip(rows, sds, mde_methods(rec, block, rows)):
        d = x[:, index[row.a]] - x[:, index[row.b]]

        def at(p: float | None, needed: int | None, note: str = "", method: str = method, sd: float | None = sd
               ) -> PowerAt:
            return PowerAt(method=method, level=level, sd=sd, power=p, items_needed=needed, note=note)
        why = _no_answer(d, sd, difference, rec.alternative)
        if why:
            out.append(at(None, None, why))
            continue
        assert sd is not None
        dz = difference / sd if rec.alternative != "two-sided" else abs(difference) / sd
        if method in ("noncentral_t_clustered", "noncentral_t_stratified"):
            out.append(at(*_design_power(row, method, dz, n, level, target, rec.alternative)))
        elif method == "simulation":
            test = rule.pvalues
            pv = lambda v, t=test: t(v, rec.alternative)  # noqa: E731
            now = power.simulated_power(d, pv, level, difference, N_SIMS, simulation_seed(seed, rec, row))
            assert rule.efficiency is not None
            guess = power.paired_t_sample_size(difference * math.sqrt(rule.efficiency), sd, level, target,
                                               rec.alternative)
            simulated = f"power by simulation from the pilot's differences ({N_SIMS} data sets, as the report's MDE)"
            needed = None
            if guess is not None and guess <= SIMULATED_ITEMS:
                pair_seed = simulation_seed(seed, rec, row)
                needed = power.simulated_sample_size(
                    d, pv, level, difference, power=target, n_sims=N_SIMS,
                    seed=lambda m, s=pair_seed: s if m == n else derived_seed(s, f"items/{m}"), guess=guess,
                    max_n=SIMULATED_ITEMS)
            if needed is not None:
                out.append(at(now, needed, f"{rec.method}: {simulated}"))
            else:
                out.append(at(now, guess, f"{rec.method}: {simulated}; items needed beyond {SIMULATED_ITEMS:,}: the "
                                          "paired t's count with the items times the test's efficiency for normal "
                                          "differences" + ("" if guess is not None else
                                                           f" (beyond {MAX_ITEMS:,} items: none given)")))
        else:
            eff = 1.0 if method == "noncentral_t" else float(rule.efficiency or 1.0)
            now = float(power.paired_t_power(dz * math.sqrt(eff), n, level, rec.alternative))
            needed = power.paired_t_sample_size(difference * math.sqrt(eff), sd, level, target, rec.alternative)
            beyond = "" if needed is not None else f"beyond {MAX_ITEMS:,} items: none given"
            are = "" if eff == 1.0 else (f"{rec.method}: the paired t with the items times the test's efficiency "
                                         f"for normal differences ({eff:.3f}; the family has more than "
                                         f"{SIMULATION_BUDGET:,} pair-items to simulate)")
            out.append(at(now, needed, "; ".join(part for part in (are, beyond) if part)))
    return tuple(out)


def _no_answer(d: np.ndarray, sd: float | None, difference: float, alternative: str) -> str:
    """Why a pair has no power at ``difference`` ("" when it has one)."""
    if d.size < 2 or sd is None:
        return "fewer than 2 items: the SD of the differences needs at least 2"
    if not math.isfinite(sd):
        return "the differences have no finite standard deviation"
    if not power.varies(sd, d):
        return (f"the differences do not vary (their SD is zero or below {power.ROUNDING:g} of the largest "
                f"difference: rounding)")
    if (alternative == "greater" and difference < 0) or (alternative == "less" and difference > 0):
        return (f"a difference of {difference:g} points against tests.alternative {alternative} (H1: a - b "
                f"{'>' if alternative == 'greater' else '<'} 0): no number of items detects it with a one-sided "
                "test; give a difference of the other sign")
    return ""


def _design_power(row: Any, method: str, dz: float, n: int, level: float, target: float, alternative: str
                  ) -> tuple[float | None, int | None, str]:
    """(power, items needed, note) of a clustered pair (the clustered paired t on G - 1 df with its effective
    items; the clusters needed, of the pilot's mean size and design effect, times that size) or of a macro
    average's pair (its t with the Welch-Satterthwaite df and effective items grown with the items), from the
    record's own design summary, as :func:`clustered_mde`."""
    stratified = method == "noncentral_t_stratified"
    info = row.test.extra.get("strata" if stratified else "clusters")
    get = (lambda k: info.get(k)) if isinstance(info, dict) else (lambda k: getattr(info, k, None))
    n_eff = get("effective_n")
    if n_eff is None or not n_eff > 0:
        return None, None, f"{'macro average' if stratified else 'clustered items'}: no design effect"
    deff = n / n_eff
    if stratified:
        df = get("df")
        if df is None or not df >= 1:
            return None, None, "macro average: no degrees of freedom"

        def power_at(m: int) -> float:
            return float(power.clustered_t_power(dz, m / deff, 1 + df * m / n, level, alternative))
        hi = max(n, 2)
        while power_at(hi) < target:
            if hi > 10_000_000:
                return power_at(n), None, "macro average: beyond 10 million items"
            hi *= 2
        lo = 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if power_at(mid) >= target else (mid, hi)
        S = get("S")
        return power_at(n), hi, (f"macro average over {S} strata: the t of the macro average (Welch-Satterthwaite df {df:.1f} "
                                 f"now), every stratum enlarged alike (design effect {deff:.2f})")
    G = get("G")
    if G is None or G < 2:
        return None, None, "clustered items: fewer than 2 clusters"
    now = float(power.clustered_t_power(dz, n_eff, G, level, alternative))
    size = n / G
    need = power.clusters_needed(dz, deff, size, level, target, alternative)
    items = None if need is None else math.ceil(need * size)
    return now, items, (f"clustered items: the clustered paired t (t on G \u2212 1 df) with the pilot's design "
                        f"effect and mean cluster size; G = {G} clusters now (design effect {deff:.2f}, mean size "
                        f"{size:.1f}), {need if need is not None else 'too many'} clusters needed")


def pair_sds(x: np.ndarray, a: list[int], b: list[int], varying: bool = False) -> list[float | None]:
    """The SD (ddof 1) of each pair's differences ``x[:, a] - x[:, b]``, all pairs at once: one row per pair
    (contiguous, so each row is summed as ``np.std`` sums one pair's vector: the same floats); None under 2 items.
    ``varying``: 0.0 for a pair whose differences are equal up to rounding (:func:`~sigreport.stats.power.varies`),
    so that its MDE says they do not vary rather than dividing by rounding error."""
    if x.shape[0] < 2:
        return [None] * len(a)
    if leaderboard.is_leaderboard(x.shape[1], x.shape[0]):  # from the covariance matrix, not (pairs x items)
        moments = leaderboard.difference_moments(x, a, b)
        sd = moments.sd.tolist()
        if not varying:
            return sd
        return [0.0 if r and math.isfinite(s) else s for s, r in zip(sd, moments.rounding.tolist())]
    d = np.ascontiguousarray((x[:, a] - x[:, b]).T)
    sds = [float(v) for v in d.std(axis=1, ddof=1)]
    if not varying:
        return sds
    return [0.0 if math.isfinite(s) and s <= limit else s for s, limit in zip(sds, power.rounding_sd(d, axis=1))]
