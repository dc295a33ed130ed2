"""The "Conclusions" block: per metric and corpus, sentences read from the report's decisions.

Every sentence comes from :class:`~sigreport.results.decisions.BlockDecisions` (the object the main table,
the key figure, the release index and the diff read too): which system has the best value (systems tied at
the shown decimals share it), the test the decisions follow and why, which systems the best one is
significantly better than and which it is not (for many systems, all pairs: the tiers of the decisions instead), the groups the test does not separate (as the bars of a
critical-difference diagram), against a baseline who beats it or falls behind, and one sentence for every
other test of the same report that decides differently (a disagreement is named, never outvoted). Every
sentence has a verb, whatever the case.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sigreport.render.options import MainTableOptions, RenderOptions
from sigreport.render.views.common import Labels, names_text, the
from sigreport.render.views.main import Column_, baseline_of, columns_of
from sigreport.results.collection import Results
from sigreport.results.decisions import BlockDecisions, Decisions, Disagreement, TestRef, decide
from sigreport.results.ranks import TIERS_MIN

MANY = 3  # disagreements of one kind beyond this many pairs are listed in one sentence


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def pv(x: float | None) -> str:
    """A p-value in a sentence: three decimals, '< 0.001', 'not computable'."""
    return "not computable" if x is None else "< 0.001" if x < 0.001 else f"{x:.3f}"


def test_sentence(dec: BlockDecisions, seen: set[tuple[str, str, str]] | None = None) -> str:
    """The test the block's decisions follow, with the rule that made it the one; a block whose test and rule a
    block above already stated says so in a few words (``seen`` collects them, in reading order)."""
    p = dec.primary
    assert p is not None
    adjusted = f", {p.adjusted}" if p.adjusted else ""
    key = (p.name, p.adjusted, dec.reason)
    if seen is not None and key in seen:
        return f"Decisions follow {the(p.name)}{adjusted}, as above."
    if seen is not None:
        seen.add(key)
    return f"Decisions here follow {the(p.name)}{adjusted}: {dec.reason}."


def best_sentence(dec: BlockDecisions, word: str) -> str:
    best = dec.best
    value = dec.values[best[0]]
    shown = f"{value:.{dec.decimals}f}"
    what = dec.label if is_preferences(dec) else "value"  # the strengths of preference votes say what they are
    if len(best) == 1:
        return f"{best[0]} has the {word} {what} ({shown})."
    return f"{names_text(best)} share the {word} {what} ({shown} as shown)."


def is_preferences(dec: BlockDecisions) -> bool:
    """A block of preference votes (data.preferences): its values are Bradley-Terry strengths."""
    return dec.primary is not None and dec.primary.kind == "preferences"


def sentences(col: Column_, results: Results, baseline: str | None,
              seen: set[tuple[str, str, str]] | None = None) -> tuple[str, ...]:
    """The sentences for one (metric, corpus)."""
    return block_sentences(col.dec, baseline, seen)


def block_sentences(dec: BlockDecisions, baseline: str | None,
                    seen: set[tuple[str, str, str]] | None = None) -> tuple[str, ...]:
    """The sentences for one block of the decisions (a main-table column, or the preference votes)."""
    order = dec.order
    if not order:
        return ("No system has a computable value.",)
    out = [best_sentence(dec, "highest" if dec.higher_is_better else "lowest")]
    if dec.primary is None:
        return (*out, "No pairwise test compared the systems here, so no difference is claimed.")
    out.append(test_sentence(dec, seen))
    if baseline is not None:
        out += baseline_sentences(order, dec, baseline)
    elif len(order) >= TIERS_MIN and dec.ranks is not None:
        out += tier_sentences(dec, seen)
    else:
        out += best_vs_rest(dec, dec.best[0]) if len(dec.best) == 1 else tied_best(dec)
        out += group_sentences(dec)
    return (*out, *power_sentences(dec), *run_spread_sentences(dec), *disagreement_sentences(dec))


def power_sentences(dec: BlockDecisions) -> list[str]:
    """What the pairs the primary test did not separate could have shown: the smallest true difference its
    test detects with the spec's power (results.json ``mde``), one pair by name, more as a range."""
    quiet = [p for p in dec.pairs if p.significant is False and p.mde is not None and math.isfinite(p.mde)]
    if not quiet:
        return []
    share = f"{100 * quiet[0].mde_power:.0f}%" if quiet[0].mde_power is not None else "the spec's"
    shown = [abs(p.mde) for p in quiet]
    fmt = f"{{:.{dec.decimals}f}}"
    if len(quiet) == 1:
        p = quiet[0]
        return [f"{p.a} and {p.b} are not shown to differ, but the test had {share} power only for a true "
                f"difference of {fmt.format(shown[0])} or more in {dec.label}: a smaller one could go unseen."]
    low, high = fmt.format(min(shown)), fmt.format(max(shown))
    size = low if low == high else f"{low} to {high} (by pair)"
    return [f"For the {len(quiet)} pairs not shown to differ, the test had {share} power only for true "
            f"differences of {size} or more in {dec.label}: smaller ones could go unseen."]


def best_vs_rest(dec: BlockDecisions, best: str) -> list[str]:
    """Whom the best system significantly beats, who beats it against the means, who it does not differ from."""
    order = dec.order
    out = []
    compared = [s for s in order if s != best and dec.compared(best, s)]
    worse = [s for s in compared if s in dec.beats.get(best, frozenset())]
    reverse = [s for s in compared if best in dec.beats.get(s, frozenset())]
    same = [s for s in compared if not dec.significant(best, s) and s not in dec.undecided]
    if worse:
        out.append(f"It is significantly better than {names_text(worse)}.")
    if reverse:
        out.append(f"The test nevertheless finds {names_text(reverse)} significantly better than it (the test's "
                   f"estimate and the mean point in opposite directions).")
    if same:
        verb = "does" if len(same) == 1 else "do"
        out.append(f"{names_text(same)} {verb} not differ significantly from it.")
    elif worse and len(worse) == len(order) - 1:
        out.append("It is the single best system.")
    return out


def tied_best(dec: BlockDecisions) -> list[str]:
    """The systems sharing the best value as shown: whom they all beat, whom some beat, and a difference the
    test finds among them (smaller than the shown decimals)."""
    tier, out = dec.best, []
    others = [s for s in dec.order if s not in tier]
    common = [s for s in others if all(s in dec.beats.get(b, frozenset()) for b in tier)]
    if common:
        out.append(f"{names_text(tier)} are each significantly better than {names_text(common)}.")
    for b in tier:
        more = [s for s in others if s in dec.beats.get(b, frozenset()) and s not in common]
        if more:
            out.append(f"{b} is also significantly better than {names_text(more)}.")
    for w in tier:
        lost = [x for x in tier if x in dec.beats.get(w, frozenset())]
        if lost:
            out.append(f"The test finds {w} significantly better than {names_text(lost)}, by less than the shown "
                       "decimals.")
    same = [s for s in others if all(dec.compared(s, b) and not dec.significant(s, b) for b in tier)
            and s not in dec.undecided]
    if same:
        out.append(f"{names_text(same)} {'does' if len(same) == 1 else 'do'} not differ significantly from "
                   f"{names_text(tier)}.")
    return out


def tier_sentences(dec: BlockDecisions, seen: set[tuple[str, str, str]] | None = None) -> list[str]:
    """Many systems (:data:`~sigreport.results.ranks.TIERS_MIN` or more, all pairs): the tiers of the decisions
    (:mod:`sigreport.results.ranks`) instead of one sentence per pair: "The test separates the 5 systems into 2
    tiers \u2014 tier 1: A, B (not separated), Rank (UB) 1; tier 2: C, ...", with what a tier means (once per report: ``seen``), and the systems whose comparisons could not be
    computed."""
    ranks = dec.ranks
    assert ranks is not None
    out = []
    undecided = [s for s in dec.order if s in dec.undecided]
    if undecided:
        out.append(f"Comparisons involving {names_text(undecided)} could not be computed.")
    members = ranks.members
    if len(members) == 1:
        out.append(f"No pair of the {len(ranks.systems)} systems differs significantly: all share tier 1 "
                   "(Rank (UB) 1).")
        return out
    parts = []
    for k, tier in enumerate(members, 1):
        low, high = min(ranks.rank_ub[s] for s in tier), max(ranks.rank_ub[s] for s in tier)
        rank = f"Rank (UB) {low}" if low == high else f"Rank (UB) {low}\u2013{high}"
        quiet = " (not separated)" if len(tier) > 1 else ""
        parts.append(f"tier {k}: {', '.join(tier)}{quiet}, {rank}")
    out.append(f"The test separates the {len(ranks.systems)} systems into {len(members)} tiers \u2014 "
               + "; ".join(parts) + ".")
    said = ("tiers", "", "")
    if seen is None or said not in seen:
        out.append("No system is significantly better than another of its own tier, and every system below tier 1 "
                   "is significantly worse than at least one system of the tier above it.")
    if seen is not None:
        seen.add(said)
    if ranks.cycle:
        out.append("The decisions hold a cycle (each of some systems is beaten by another of them): those systems "
                   "share one tier.")
    return out


def group_sentences(dec: BlockDecisions) -> list[str]:
    order = dec.order
    out = []
    undecided = [s for s in order if s in dec.undecided]
    if undecided:
        out.append(f"Comparisons involving {names_text(undecided)} could not be computed.")
    grouped = [g for g in dec.groups if len(g) < len(order)]
    if grouped:
        out.append(f"The tests do not separate {names_text(grouped[0])}." if len(grouped) == 1 else
                   "The tests do not separate the systems within each of these groups: "
                   + "; ".join("{" + ", ".join(g) + "}" for g in grouped) + ".")
    elif len(dec.groups) == 1 and len(order) > 1:
        out.append("No pair of systems differs significantly.")
    return out


def baseline_sentences(order: Sequence[str], dec: BlockDecisions, baseline: str) -> list[str]:
    """Against the baseline: better, worse, not different, not computable."""
    others = [s for s in order if s != baseline and dec.compared(s, baseline)]
    better = [s for s in others if baseline in dec.beats.get(s, frozenset())]
    worse = [s for s in others if s in dec.beats.get(baseline, frozenset())]
    same = [s for s in others if s not in better and s not in worse and s not in dec.undecided]
    undecided = [s for s in others if s in dec.undecided]
    out = []
    for systems, what in ((better, "significantly better than"), (worse, "significantly worse than"),
                          (same, "not significantly different from")):
        if systems:
            out.append(f"{names_text(systems)} {'is' if len(systems) == 1 else 'are'} {what} the baseline {baseline}.")
    if undecided:
        out.append(f"The comparison of {names_text(undecided)} with the baseline could not be computed.")
    return out


# ---- disagreements ----------------------------------------------------------------------------------


def disagreement_sentences(dec: BlockDecisions) -> list[str]:
    """One sentence per disagreement with another test of the report (beyond :data:`MANY` pairs of the same
    test and direction, one sentence lists them)."""
    groups: dict[tuple[str, str, str, str], list[Disagreement]] = {}
    for d in dec.disagreements:
        groups.setdefault((d.kind, d.other.id, d.primary_says, d.other_says), []).append(d)
    out = []
    for (kind, _, _, _), ds in groups.items():
        if kind == "omnibus":
            out += [omnibus_sentence(d) for d in ds]
        elif kind == "bayesian":
            out += [bayesian_sentence(d) for d in ds] if len(ds) <= MANY else [bayesian_many(ds)]
        elif kind == "runs":
            out += [runs_sentence(d) for d in ds]
        else:
            out += [test_sentence_pair(d) for d in ds] if len(ds) <= MANY else [test_many(ds)]
    return out


def runs_sentence(d: Disagreement) -> str:
    """'Almost stochastic order over the training runs, also shown below, finds A better than B (eps_min 0.03);
    the paired t test does not (p_adj 0.12).'"""
    if d.other_says in ("a_better", "b_better"):
        ahead, behind = (d.a, d.b) if d.other_says == "a_better" else (d.b, d.a)
        own = "does not" if d.primary_says == "not different" else "finds the other direction"
        return (f"{_also(d.other)} finds {ahead} better than {behind} (\u03b5min {pv(d.other_value)}); "
                f"{the(d.primary.name)} {own} (p_adj {pv(d.primary_value)}).")
    return (f"{_also(d.other)} finds neither {d.a} nor {d.b} better (smallest \u03b5min {pv(d.other_value)}); "
            f"{the(d.primary.name)} finds them different (p_adj {pv(d.primary_value)}).")


def run_spread_sentences(dec: BlockDecisions) -> list[str]:
    """Pairs closer than the spread between one system's training runs."""
    if not dec.within_runs:
        return []
    fmt = f"{{:.{dec.decimals}f}}"
    parts = [f"{r.a} and {r.b} ({fmt.format(abs(r.difference))} apart; {r.system}'s runs SD {fmt.format(r.sd)})"
             for r in dec.within_runs[:MANY]]
    more = f" and {len(dec.within_runs) - MANY} more pair(s)" if len(dec.within_runs) > MANY else ""
    return [f"The difference is smaller than the spread between one system's training runs for {'; '.join(parts)}"
            f"{more}: another seed could reorder them."]


def _also(other: TestRef) -> str:
    return f"{cap(the(other.name))}, also shown below,"


def test_sentence_pair(d: Disagreement) -> str:
    """"Alpaydin's combined 5x2cv F test, also shown below, finds logreg and gbdt different (p_adj 0.047);
    Dietterich's 5x2cv paired t test does not (p_adj 0.083).\""""
    pair = f"{d.a} and {d.b}"
    if d.other_says == d.primary_says:  # both significant, opposite directions
        return (f"{_also(d.other)} finds {pair} different in the opposite direction (p_adj {pv(d.other_value)}) "
                f"from {the(d.primary.name)} (p_adj {pv(d.primary_value)}).")
    if d.other_says == "different":
        return (f"{_also(d.other)} finds {pair} different (p_adj {pv(d.other_value)}); {the(d.primary.name)} "
                f"does not (p_adj {pv(d.primary_value)}).")
    return (f"{_also(d.other)} does not find {pair} different (p_adj {pv(d.other_value)}); {the(d.primary.name)} "
            f"does (p_adj {pv(d.primary_value)}).")


def test_many(ds: list[Disagreement]) -> str:
    d = ds[0]
    pairs = "; ".join(f"{x.a} and {x.b} (p_adj {pv(x.other_value)} against {pv(x.primary_value)})" for x in ds)
    verb = "finds these pairs different" if d.other_says == "different" else "does not find these pairs different"
    own = "does not" if d.other_says == "different" else "does"
    if d.other_says == d.primary_says:
        verb, own = "finds these pairs different in the opposite direction", "disagrees"
    return f"{_also(d.other)} {verb}, where {the(d.primary.name)} {own}: {pairs}."


BAYES_WORDS = {"equivalent": "practically equivalent"}


def _bayes_claim(d: Disagreement) -> str:
    if d.other_says == "equivalent":
        return f"finds {d.a} and {d.b} practically equivalent (P = {pv(d.other_value)})"
    ahead, behind = (d.a, d.b) if d.other_says == "a_better" else (d.b, d.a)
    return f"finds {ahead} practically better than {behind} (P = {pv(d.other_value)})"


def bayesian_sentence(d: Disagreement) -> str:
    """"The Bayesian bootstrap of the mean difference, also shown below, finds A and B practically equivalent
    (P = 0.970); the paired t test finds them different (p_adj 0.044).\""""
    verdict = ("finds them different" if d.primary_says == "different" else "does not find them different")
    if d.other_says != "equivalent" and d.primary_says == "different":
        verdict = "finds the other system significantly better"
    return f"{_also(d.other)} {_bayes_claim(d)}; {the(d.primary.name)} {verdict} (p_adj {pv(d.primary_value)})."


def bayesian_many(ds: list[Disagreement]) -> str:
    d = ds[0]
    claims = "; ".join(f"{_bayes_claim(x)[6:]} against p_adj {pv(x.primary_value)}" for x in ds)
    verdict = "finds them different" if d.primary_says == "different" else "does not find them different"
    return f"{_also(d.other)} disagrees with {the(d.primary.name)}, which {verdict}, on {len(ds)} pairs: {claims}."


def omnibus_sentence(d: Disagreement) -> str:
    """"The Friedman test, also shown below, finds no difference among the systems (p 0.210); the Nemenyi
    test after the Friedman test nevertheless separates A and B.\""""
    if d.other_says == "not different":
        return (f"{_also(d.other)} finds no difference among the systems (p {pv(d.other_value)}); "
                f"{the(d.primary.name)} nevertheless separates {names_text([f'{a} and {b}' for a, b in d.pairs])}.")
    return (f"{_also(d.other)} finds the systems different (p {pv(d.other_value)}); {the(d.primary.name)} "
            f"separates no pair (smallest p_adj {pv(d.primary_value)}).")


def report_baseline(results: Results, decisions: Decisions | None = None,
                    options: RenderOptions = RenderOptions(), columns: Sequence[Column_] | None = None) -> str | None:
    """The system the HTML tags "(baseline)": the spec's ``baseline`` (``options``), else (results read back
    from results.json do not hold it) the reference system of the families compared against one
    (``columns``: the main table's :func:`~.main.columns_of`, when the caller has them)."""
    if options.baseline is not None:
        return options.baseline
    return baseline_of(columns if columns is not None else columns_of(results, options.main_table, decisions))


def conclusions(results: Results, lab: Labels, decisions: Decisions | None = None,
                opts: MainTableOptions = MainTableOptions(), columns: Sequence[Column_] | None = None
                ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(heading, sentences) per (metric, corpus) of the main table (``opts``: ``outputs.main_table``;
    ``columns``: its :func:`~.main.columns_of`, when the caller has them)."""
    decisions = decisions if decisions is not None else decide(results)
    cols = list(columns) if columns is not None else columns_of(results, opts, decisions)
    base = baseline_of(cols)
    seen: set[tuple[str, str, str]] = set()
    said = [(f"{lab.metric(c.metric)} \u2014 {lab.corpus(c.corpus)}", sentences(c, results, base, seen)) for c in cols]
    # the preference votes' strengths, after the metrics: all pairs decided by their intervals (no baseline)
    said += [(f"{lab.metric(d.metric)} \u2014 {lab.corpus(d.corpus)}", block_sentences(d, None, seen))
             for d in decisions if is_preferences(d)]
    return tuple(said)
