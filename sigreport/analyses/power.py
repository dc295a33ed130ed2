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
from sigreport.stats import power, registry

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


def _rows(rec: Any, block: Any, tests: TestsSpec, alpha: float, seed: int) -> tuple[Any, ...]:
    level = comparison_level(alpha, rec.correction, rec.family_size)
    target = float(tests.power)
    index = {s: i for i, s in enumerate(block.systems)}
    x = block.scores
    rule = registry.method("pairwise", rec.method).mde
    simulate = rule.rule == "simulation" and len(rec.pairs) * x.shape[0] <= SIMULATION_BUDGET
    sds = [None] * len(rec.pairs) if simulate else pair_sds(x, [index[r.a] for r in rec.pairs],
                                                            [index[r.b] for r in rec.pairs], varying=True)
    rows = []
    if block.cluster_codes is not None or any("strata" in r.test.extra for r in rec.pairs):  # design-based
        return tuple(dataclasses.replace(row, mde=detectable(clustered_mde(row, sd, x.shape[0], level, target,
                                                                          rec.alternative)))
                     for row, sd in zip(rec.pairs, pair_sds(x, [index[r.a] for r in rec.pairs],
                                                            [index[r.b] for r in rec.pairs], varying=True)))
    for row, sd in zip(rec.pairs, sds):
        if rule.rule == "noncentral_t":
            mde = closed_form(sd, x.shape[0], level, target, rec.alternative)
        elif simulate:
            d = x[:, index[row.a]] - x[:, index[row.b]]
            test = rule.pvalues
            mde = power.simulated_mde(d, lambda v, t=test: t(v, rec.alternative), level, target, rec.alternative,
                                      N_SIMS, derived_seed(seed, f"{rec.id}/power/{row.a}/{row.b}"))
        else:
            mde = closed_form(sd, x.shape[0], level, target, rec.alternative, "noncentral_t_are",
                              rule.efficiency)
        rows.append(dataclasses.replace(row, mde=detectable(mde)))
    return tuple(rows)


def pair_sds(x: np.ndarray, a: list[int], b: list[int], varying: bool = False) -> list[float | None]:
    """The SD (ddof 1) of each pair's differences ``x[:, a] - x[:, b]``, all pairs at once: one row per pair
    (contiguous, so each row is summed as ``np.std`` sums one pair's vector: the same floats); None under 2 items.
    ``varying``: 0.0 for a pair whose differences are equal up to rounding (:func:`~sigreport.stats.power.varies`),
    so that its MDE says they do not vary rather than dividing by rounding error."""
    if x.shape[0] < 2:
        return [None] * len(a)
    d = np.ascontiguousarray((x[:, a] - x[:, b]).T)
    sds = [float(v) for v in d.std(axis=1, ddof=1)]
    if not varying:
        return sds
    return [0.0 if math.isfinite(s) and s <= limit else s for s, limit in zip(sds, power.rounding_sd(d, axis=1))]
