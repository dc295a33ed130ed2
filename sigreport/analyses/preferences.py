"""The analysis of pairwise preference votes (``data.preferences``): Bradley-Terry strengths with their
bootstrap intervals and Rank (UB), one record of kind ``preferences`` (:class:`~sigreport.results.records.
PreferenceRecord`).

The statistics are :mod:`sigreport.stats.bradley_terry` (the votes aggregated once into cells, every bootstrap
replicate fitted at once); this module only chooses the options (``tests.preferences``) and fills the record.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from sigreport.results.ranks import interval_better, rank_ub
from sigreport.analyses.common import analysis_id, derived_seed
from sigreport.data.model import PreferenceGroup, Preferences
from sigreport.plan import Node
from sigreport.results.records import PreferenceRecord, PreferenceSystem
from sigreport.spec import Spec
from sigreport.stats.methods.preferences import BRADLEY_TERRY
from sigreport.stats.result import finite_or_none

PREFERENCES = BRADLEY_TERRY.kind  # the kind, and the 'metric', of the analysis of data.preferences
METHOD = BRADLEY_TERRY.name


@dataclasses.dataclass(frozen=True)
class PreferenceParams:
    """What the analysis reads of the spec (plain, frozen: it enters the node's content key)."""

    ties: str
    resamples: int
    unit: str
    ci_level: float
    seed: int


def preference_nodes(spec: Spec, prefs: Preferences) -> list[Node]:
    """One Bradley-Terry analysis of the votes."""
    opts = spec.tests.preferences
    nodes = []
    for corpus in prefs.corpora:
        node_id = analysis_id(PREFERENCES, corpus, METHOD)
        params = PreferenceParams(ties=opts.ties, resamples=opts.resamples, unit=opts.unit,
                                  ci_level=spec.interval_level(), seed=derived_seed(spec.seed, node_id))
        nodes.append(Node(id=node_id, kind=PREFERENCES, metric=PREFERENCES, corpus=corpus, fn=run_preferences,
                          params=params, blocks=((PREFERENCES, corpus),),
                          label=f"Bradley-Terry, ties {opts.ties}, B = {opts.resamples}"))
    return nodes


def run_preferences(node_id: str, inputs: tuple[Any, ...], params: PreferenceParams, deps: tuple[Any, ...]) -> Any:
    (prefs, group), = inputs
    return preference_analysis(params, prefs.systems, group, node_id)


def preference_analysis(params: PreferenceParams, systems: tuple[str, ...], g: PreferenceGroup,
                        node_id: str) -> PreferenceRecord:
    """The fit, its standard errors, the bootstrap and the ranks, as one record."""
    from sigreport.stats import bradley_terry as bt

    k = len(systems)
    unit = params.unit if params.unit != "auto" else ("items" if g.item is not None else "battles")
    warnings: list[str] = []
    if unit == "items" and g.item is None:
        warnings.append("tests.preferences.unit is items, but the votes have no item column: battles were resampled")
        unit = "battles"
    cells = bt.cells(g.a, g.b, g.outcome, k, g.item if unit == "items" else None)
    wins, ties = (m[0] for m in cells.matrices(cells.counts[None]))
    f = bt.fit(wins, ties, params.ties)  # type: ignore[arg-type]
    se = bt.standard_errors(f, wins, ties).sum_zero
    boot = bt.bootstrap(cells, params.resamples, params.seed, params.ties, unit=unit)  # type: ignore[arg-type]
    low, high = bt.percentile_interval(boot.strengths, params.ci_level)
    ranks = rank_ub(interval_better(low, high))  # Chatbot Arena's rule, as the decision model reads the votes
    if boot.not_converged:
        warnings.append(f"{boot.not_converged:,} of {params.resamples:,} bootstrap replicates had no finite maximum "
                        "(a system without a win or a loss in the resample); their strengths count as extreme in "
                        "the percentiles")
    rates = bt.win_rates(wins, ties)
    battles = wins + wins.T + ties
    rows = []
    for i, name in enumerate(systems):
        votes = int(battles[i].sum())
        won, lost, tied = int(wins[i].sum()), int(wins[:, i].sum()), int(ties[i].sum())
        rows.append(PreferenceSystem(
            system=name, strength=finite_or_none(f.strengths[i]), se=finite_or_none(se[i]),
            ci_low=finite_or_none(low[i]), ci_high=finite_or_none(high[i]), rank_ub=int(ranks[i]), votes=votes,
            wins=won, losses=lost, ties=tied, win_rate=finite_or_none((won + tied / 2) / votes) if votes else None))
    judges: dict[str, int] = {}
    if g.judge is not None:
        counts = np.bincount(g.judge, minlength=len(g.judges))
        judges = {name: int(c) for name, c in zip(g.judges, counts)}
    return PreferenceRecord(
        id=node_id, kind=PREFERENCES, metric=PREFERENCES, corpus=g.corpus, method=METHOD, ties=params.ties,
        identification="sum_zero", nu=finite_or_none(f.nu) if params.ties == "davidson" else None,
        n_votes=int(g.a.size), n_ties=int((g.outcome == 0).sum()),
        n_items=len(g.items) if g.item is not None else None, judges=judges, unit=unit,
        n_resamples=params.resamples, ci_level=params.ci_level, seed=params.seed, not_finite=boot.not_converged,
        systems=tuple(rows),
        win_rates=tuple(tuple(finite_or_none(x) for x in row) for row in rates),
        battles=tuple(tuple(int(x) for x in row) for row in battles), warnings=tuple(warnings))
