"""Which analyses give which figure kinds: one table, read by the spec check (on the plan's nodes, before
anything runs) and by the build (on the records). A figure kind listed in ``outputs.figures`` is accepted when
some analysis of the plan *can* give it, and drawn for every record that *does*.

A record or a plan node is described by a :class:`FigureSource`: its kind, its method and, for a post-hoc test,
the omnibus test it follows. A plan node whose method the data decide (``tests.omnibus: auto``) stands for
every source it can become (:func:`~sigreport.analyses.node_sources`), so ``[cd]`` with ``omnibus: auto`` is
accepted; the build then warns when the data made ``auto`` choose RM-ANOVA and no diagram could be drawn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from sigreport.results.records import McNemarRecord, PosthocRecord, Record


@dataclasses.dataclass(frozen=True)
class FigureSource:
    """What decides the figures of an analysis: its record kind, its method and, for a post-hoc test, the
    omnibus test it follows (``friedman`` or ``rm_anova``)."""

    kind: str
    method: str | None = None
    after: str | None = None


def _rank_posthoc_after_friedman(s: FigureSource) -> bool:
    return s.kind == "posthoc" and s.after == "friedman" and s.method != "paired_t"


FIGURE_RULES: dict[str, tuple[str, Callable[[FigureSource], bool]]] = {
    "cd": ("a post-hoc test on Friedman's average ranks (tests.omnibus: friedman, or auto when the data choose "
           "Friedman, with three or more systems)", _rank_posthoc_after_friedman),
    "forest": ("a pairwise or cross-validation family of score comparisons",
               lambda s: s.kind in ("pairwise", "cv") or (s.kind == "posthoc" and s.method == "paired_t")),
    "pvalues": ("a family of pairwise comparisons (scores, a post-hoc test or McNemar)",
                lambda s: s.kind in ("pairwise", "cv", "posthoc", "mcnemar")),
    "confusion": ("a classification analysis (data.predictions with gold labels)",
                  lambda s: s.kind == "classification"),
    "winrates": ("pairwise preference votes (data.preferences)", lambda s: s.kind == "preferences"),
    "leaderboard": ("descriptives of 6 or more systems ranked by a pairwise test, or the Bradley-Terry strengths of "
                    "6 or more systems' preference votes (Rank (UB) and tiers)",
                    lambda s: s.kind in ("descriptives", "preferences")),
}
"""Figure kind -> (what it needs, in words; whether a source gives it). Order: the order a record's figures
are drawn in."""


def gives(figure: str, source: FigureSource) -> bool:
    """Whether an analysis described by ``source`` gives a figure of kind ``figure``."""
    return FIGURE_RULES[figure][1](source)


def needs(figure: str) -> str:
    return FIGURE_RULES[figure][0]


def source_of(record: Record) -> FigureSource:
    """The figure source of a record."""
    after = record.after if isinstance(record, (PosthocRecord, McNemarRecord)) else None
    return FigureSource(str(record.kind), record.method, after)
