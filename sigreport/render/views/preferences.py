"""The view of a Bradley-Terry analysis of preference votes (kind ``preferences``): the strengths table
(strongest first) with each system's interval, Rank (UB) and votes, and its sentences (the systems Rank (UB)
puts first, the tie parameter). The win-rate matrix is its figure (:mod:`sigreport.render.figures.winrates`)."""

from __future__ import annotations

from collections.abc import Callable

from sigreport.render.model import CI, AnalysisView, Column, Int, Num, Table, Text
from sigreport.render.views.common import Labels, names_text, pct
from sigreport.results.records import PreferenceRecord

TIES_WORDS = {"davidson": "ties by Davidson's model", "split": "a tie counted as half a win for each side"}
UNIT_WORDS = {"battles": "votes", "items": "items (each with all its votes)"}
DEC = 3


def strength_order(r: PreferenceRecord) -> list[int]:
    """The systems strongest first (a missing strength last; equal strengths in the systems' order)."""
    key = [-(s.strength if s.strength is not None else float("-inf")) for s in r.systems]
    return sorted(range(len(r.systems)), key=lambda i: (key[i], i))


def preference_view(r: PreferenceRecord, lab: Labels) -> AnalysisView:
    level = pct(r.ci_level)
    cols = (Column(Text("Rank (UB)")), Column(Text("System"), "l"), Column(Text("Strength")), Column(Text("SE")),
            Column(Text(f"{level} CI")), Column(Text("Votes")), Column(Text("Wins")), Column(Text("Losses")),
            Column(Text("Ties")), Column(Text("Win rate")))
    order = strength_order(r)
    rows = tuple((Int(s.rank_ub), Text(s.system), Num(s.strength, DEC), Num(s.se, DEC),
                  CI(s.ci_low, s.ci_high, r.ci_level, DEC), Int(s.votes), Int(s.wins), Int(s.losses), Int(s.ties),
                  Num(s.win_rate, DEC)) for s in (r.systems[i] for i in order))
    bold = tuple(k for k, i in enumerate(order) if r.systems[i].rank_ub == 1)
    nu = f"; Davidson's tie parameter \u03bd = {r.nu:.3f}" if r.nu is not None else ""
    caption = (f"Bradley-Terry strengths from {r.n_votes:,} preference votes ({r.n_ties:,} ties; "
               f"{TIES_WORDS[r.ties]}{nu}), strongest first, with {level} bootstrap percentile intervals "
               f"({r.n_resamples:,} replicates resampling {UNIT_WORDS[r.unit]}) and Rank (UB).")
    model = ("beats it with probability exp(d/2) / (exp(d/2) + exp(\u2212d/2) + \u03bd) and ties with probability "
             "\u03bd / (the same sum)" if r.ties == "davidson" else
             "beats it with probability 1 / (1 + exp(\u2212d)), a tie counted as half a win for each")
    notes = (
        "Strength: the log-ability of the system, relative to the systems' mean (the mean strength is 0); in the "
        f"model a system whose strength is d above another's {model}. SE: asymptotic standard error (inverse "
        "observed information). Rank (UB): 1 + the number of systems whose interval lies wholly above this "
        "system's (Chatbot Arena's rule); systems whose intervals overlap share a rank. Win rate: (wins + ties / 2) "
        "/ votes, against every opponent met.",)
    if r.judges:
        notes += (f"Judges: {', '.join(f'{j} ({n:,} votes)' for j, n in r.judges.items())}.",)
    table = Table((r.metric, r.corpus, "bradley-terry"), caption, cols, rows, notes, bold)
    return AnalysisView(r.id, r.kind, "Bradley-Terry strengths", (table,), tuple(_sentences(r, order)), (),
                        tuple(r.warnings))


def _sentences(r: PreferenceRecord, order: list[int]) -> list[str]:
    if not r.systems:
        return []
    first = [r.systems[i].system for i in order if r.systems[i].rank_ub == 1]
    top = r.systems[order[0]]
    level = pct(r.ci_level)
    if len(first) > 1:
        out = [f"{names_text(first)} share Rank (UB) 1: no system's {level} interval lies wholly above any of theirs, "
               f"so the votes do not separate them (the highest estimate is {top.system}'s)."]
    else:
        out = [f"{names_text(first)} alone holds Rank (UB) 1: every other system has some system whose {level} "
               "interval lies wholly above its own."]
    tiers: dict[int, list[str]] = {}
    for i in order:
        if r.systems[i].rank_ub is not None:
            tiers.setdefault(r.systems[i].rank_ub, []).append(r.systems[i].system)
    if len(tiers) > 1:
        out.append("Ranks (UB): " + "; ".join(f"{rank}: {', '.join(names)}" for rank, names in tiers.items()) + ".")
    if r.nu is not None:
        out.append(f"Davidson's tie parameter \u03bd = {r.nu:.3f}: two equally strong systems tie with probability "
                   f"{r.nu / (2 + r.nu):.3f}.")
    return out


VIEWS: dict[str, Callable[..., AnalysisView]] = {"preferences": preference_view}
