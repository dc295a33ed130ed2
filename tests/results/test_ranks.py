"""Rank (UB) and tiers (sigreport.results.ranks), and that every report's ranks are the decision model's.

The expected ranks of the small matrices are counted by hand from the matrices written next to them; the
examples' ranks are compared with the decision model (sigreport.results.decisions.decide) on the example's own
results.json, so that the rank column, results.json and the Conclusions tell one story."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CONFIGS
from sigreport.render.views import build_report
from sigreport.results import from_json
from sigreport.results.decisions import decide
from sigreport.results.ranks import RANKED_MIN, better_matrix, interval_better, rank_ub, ranks_of, tiers

SPECS = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


# ---- the rule on hand-made matrices ----------------------------------------------------------------------


def test_rank_ub_counts_the_systems_significantly_better():
    # A beats C and D; B beats D; nobody beats A or B; C is beaten by A only; D by A and B.
    b = better_matrix("ABCD", {"A": {"C", "D"}, "B": {"D"}})
    assert rank_ub(b).tolist() == [1, 1, 2, 3]  # by hand: 1 + column sums (0, 0, 1, 2)
    t, cycle = tiers(b)
    assert t.tolist() == [1, 1, 2, 2] and not cycle  # C and D: nobody left after A, B beats them


def test_tiers_are_not_a_partition_by_rank():
    # A beats B; C beats A; nobody beats C. Ranks: C 1, A 2, B 2 -- but A beats B, so they cannot share a tier.
    b = better_matrix("ABC", {"A": {"B"}, "C": {"A"}})
    assert rank_ub(b).tolist() == [2, 2, 1]
    assert tiers(b)[0].tolist() == [2, 3, 1]


def test_nothing_separated_is_one_tier_of_rank_one():
    b = better_matrix(["x", "y", "z"], {})
    assert rank_ub(b).tolist() == [1, 1, 1] and tiers(b)[0].tolist() == [1, 1, 1]


def test_a_total_order_ranks_one_to_n():
    names = [f"s{i}" for i in range(6)]
    b = better_matrix(names, {a: set(names[i + 1:]) for i, a in enumerate(names)})
    assert rank_ub(b).tolist() == [1, 2, 3, 4, 5, 6] and tiers(b)[0].tolist() == [1, 2, 3, 4, 5, 6]


def test_a_chain_can_put_the_tier_below_the_rank():
    # A beats B, B beats C, A and C not separated: C has one system better (rank 2) but sits below B (tier 3).
    r = ranks_of("ABC", {"A": {"B"}, "B": {"C"}})
    assert r.rank_ub == {"A": 1, "B": 2, "C": 2} and r.tier == {"A": 1, "B": 2, "C": 3}


def test_a_cycle_shares_one_tier_and_says_so():
    # A beats B beats C beats A (possible with non-transitive pairwise tests); D is beaten by A.
    r = ranks_of("ABCD", {"A": {"B", "D"}, "B": {"C"}, "C": {"A"}})
    assert r.cycle and r.tier == {"A": 1, "B": 1, "C": 1, "D": 2}
    assert r.rank_ub == {"A": 2, "B": 2, "C": 2, "D": 2}


@pytest.mark.parametrize("bad", [np.eye(3, dtype=bool), np.zeros((2, 3), dtype=bool),
                                 np.array([[False, True], [True, False]])])
def test_an_impossible_matrix_is_refused(bad):
    with pytest.raises(ValueError):
        rank_ub(bad)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 40), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_tiers_agree_with_the_decisions(n, density, seed):
    """On any acyclic better-than matrix (random pairs oriented by a random true order): (i) no system beats
    another of its tier; (ii) every system of tier k + 1 is beaten by one of tier k; (iii) tier 1 is exactly the
    systems of rank 1. (A tier may exceed the rank: A beats B beats C, A and C not separated, gives C rank 2
    and tier 3.)"""
    rng = np.random.default_rng(seed)
    pos = rng.permutation(n)
    b = (rng.random((n, n)) < density) & (pos[:, None] < pos[None, :])
    r = rank_ub(b)
    t, cycle = tiers(b)
    assert not cycle
    for k in range(1, t.max() + 1):
        inside = np.flatnonzero(t == k)
        assert inside.size and not b[np.ix_(inside, inside)].any()
        if k > 1:
            above = np.flatnonzero(t == k - 1)
            assert b[np.ix_(above, inside)].any(axis=0).all()
    assert set(np.flatnonzero(t == 1)) == set(np.flatnonzero(r == 1))
    assert (r == 1 + b.sum(axis=0)).all()


# ---- intervals (preference votes): Chatbot Arena's rule is one rule in both layers ---------------------------


def arena_rank_ub(low: np.ndarray, high: np.ndarray) -> list[int]:
    """Chatbot Arena's Rank (UB) counted one system at a time: 1 + how many intervals lie wholly above its own."""
    return [1 + sum(1 for j in range(len(low)) if low[j] > high[i]) for i in range(len(low))]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.floats(0.0, 3.0), st.integers(0, 2**31 - 1))
def test_interval_rule_gives_the_stats_layers_rank_ub(n, width, seed):
    """results.ranks.rank_ub(interval_better(low, high)) == Chatbot Arena's count written out (1 + the number of
    intervals wholly above: arena_rank_ub), the record's Rank (UB): 1 to 40 systems, intervals from zero width (every pair separated unless equal) to wide (none),
    ties of bounds included (values rounded to 1 decimal so that low_i == high_j happens: not separated)."""
    rng = np.random.default_rng(seed)
    centre = np.round(rng.normal(0, 1, n), 1)
    half = np.round(rng.uniform(0, width, n), 1)
    low, high = centre - half, centre + half
    b = interval_better(low, high)
    assert (rank_ub(b) == arena_rank_ub(low, high)).all()
    t, cycle = tiers(b)
    assert not cycle  # intervals are an interval order: never a cycle
    assert set(np.flatnonzero(t == 1)) == set(np.flatnonzero(rank_ub(b) == 1))


def test_interval_rule_by_hand_and_a_missing_bound_separates_nothing():
    """A [2, 3], B [1, 2.5], C [0, 0.5], D without an interval: A and B beat C (2 > 0.5, 1 > 0.5); A and B
    overlap; D is beaten by no one and beats no one (NaN compares False): ranks 1, 1, 3, 1; tiers 1, 1, 2, 1."""
    nan = float("nan")
    b = interval_better([2.0, 1.0, 0.0, nan], [3.0, 2.5, 0.5, nan])
    assert b.tolist() == [[False, False, True, False], [False, False, True, False], [False] * 4, [False] * 4]
    assert rank_ub(b).tolist() == [1, 1, 3, 1] and tiers(b)[0].tolist() == [1, 1, 2, 1]


# ---- every example: the ranks are the decision model's ----------------------------------------------------


@pytest.mark.parametrize("name", SPECS)
def test_rank_ub_is_one_plus_the_significantly_better_of_the_decision_model(example, name):
    """results.json rank_ub = 1 + the systems the decision model finds significantly better, tier 1 = rank 1,
    tiers consistent with the decisions; every ranked block is one with a primary test and 3+ systems; the
    main table's rank column (main.md) shows the same ranks."""
    report = example(name)
    text = (report / "results.json").read_text(encoding="utf-8")
    results, doc = from_json(text), json.loads(text)
    decisions = decide(results)
    ranked = 0
    for a in doc["analyses"]:
        if a["kind"] == "preferences":  # the record's Rank (UB) (stats.bradley_terry) is the decision model's
            dec = decisions.get(a["metric"], a["corpus"])
            assert dec is not None and dec.ranks is not None
            assert {s["system"]: s["rank_ub"] for s in a["systems"]} == dict(dec.ranks.rank_ub)
            ranked += len(a["systems"]) >= RANKED_MIN
            continue
        if a["kind"] != "descriptives":
            continue
        dec = decisions.get(a["metric"], a["corpus"])
        with_value = [s for s in a["systems"] if s["mean"] is not None]
        should = dec is not None and dec.primary is not None and len(with_value) >= RANKED_MIN
        assert all(("rank_ub" in s) == should for s in with_value), (a["id"], should)
        if not should:
            continue
        ranked += 1
        for s in with_value:
            better = [x for x, beaten in dec.beats.items() if s["system"] in beaten]
            assert s["rank_ub"] == 1 + len(better), (a["id"], s["system"])
            assert (s["tier"] == 1) == (s["rank_ub"] == 1)
        tier = {s["system"]: s["tier"] for s in with_value}
        for winner, beaten in dec.beats.items():
            for loser in beaten:
                assert tier[winner] < tier[loser], (a["id"], winner, loser)  # (i): never inside one tier
    n_systems = len(results.systems)
    assert (ranked > 0) == (n_systems >= RANKED_MIN and any(d.primary is not None for d in decisions))
    md = report / "main.md"  # (no main table: no descriptives nor votes, e.g. yes/no outcomes)
    assert ("Rank (UB)" in md.read_text(encoding="utf-8") if md.exists() else False) == (ranked > 0)


def test_leaderboard_conclusions_read_as_tiers(example):
    """24 models, all pairs: the Conclusions list the tiers of the decision model, not one sentence per pair."""
    report = example("leaderboard")
    results = from_json((report / "results.json").read_text(encoding="utf-8"))
    dec = decide(results).blocks[0]
    assert dec.ranks is not None and len(dec.ranks.members) > 2
    said = " ".join(build_report(results, figures=()).conclusions[0][1])
    first = ", ".join(dec.ranks.members[0])
    assert re.search(rf"The test separates the 24 systems into {len(dec.ranks.members)} tiers \u2014 tier 1: "
                     rf"{re.escape(first)} \(not separated\), Rank \(UB\) 1; tier 2: ", said)
    assert "It is significantly better than" not in said and "not differ significantly" not in said  # no pairs
    assert f"tier {len(dec.ranks.members)}: " in said
    tier_sentence = next(x for x in build_report(results, figures=()).conclusions[0][1] if "tier 1: " in x)
    assert html.escape(tier_sentence, quote=False) in (report / "index.html").read_text(encoding="utf-8")
    md = (report / "main.md").read_text(encoding="utf-8")
    for system, rank in dec.ranks.rank_ub.items():
        assert re.search(rf"^\| {re.escape(system)} \| {rank} \|", md, re.M), system  # (no letters: 24 systems)


def test_rank_none_leaves_the_column_out_and_results_json_keeps_the_ranks(example):
    """outputs.main_table.rank: none: no Rank (UB) column (nor its note); the letters stay; results.json is data and
    keeps rank_ub either way (it is written by the analyses, before any rendering option)."""
    from sigreport.render.options import MainTableOptions, RenderOptions

    results = from_json((example("summarization") / "results.json").read_text(encoding="utf-8"))
    plain = build_report(results, figures=(), options=RenderOptions(main_table=MainTableOptions(rank="none")))
    ranked = build_report(results, figures=())
    heads = lambda t: [getattr(c.header, "text", None) for c in t.columns]  # noqa: E731
    assert "Rank (UB)" in heads(ranked.main[0]) and "Rank (UB)" not in heads(plain.main[0])
    assert not any("Rank (UB)" in n for n in plain.main[0].notes)
    assert len(plain.main[0].columns) == len(ranked.main[0].columns) - 1
    assert all("rank_ub" in s.__dict__ and s.rank_ub is not None
               for r in results.records if r.kind == "descriptives" for s in r.systems)


def test_preference_decisions_of_a_hand_made_record_never_raise():
    """A results.json read back with a reversed interval (low > high) or a missing bound: that system's pairs are
    undecided (no decision), nobody beats it, the others are ranked by the rest (the diff and the index read such documents)."""
    from sigreport.results.decisions import preference_decisions
    from sigreport.results.records import PreferenceRecord, PreferenceSystem

    def system(name, strength, low, high):
        return PreferenceSystem(system=name, strength=strength, se=None, ci_low=low, ci_high=high, rank_ub=None,
                                votes=10, wins=5, losses=5, ties=0, win_rate=0.5)

    rec = PreferenceRecord(id="preferences/votes/bradley_terry", kind="preferences", metric="preferences",
                           corpus="votes", method="bradley_terry", ties="split", identification="sum_zero", nu=None,
                           n_votes=40, n_ties=0, n_items=None, judges={}, unit="battles", n_resamples=100,
                           ci_level=0.95, seed=1, not_finite=0,
                           systems=(system("A", 1.0, 0.8, 1.2), system("B", 0.0, -0.2, 0.2),
                                    system("C", -1.0, -0.5, -1.5), system("D", -2.0, None, -1.8)),
                           win_rates=(), battles=(), warnings=())
    dec = preference_decisions(rec)
    assert dec.beats == {"A": frozenset({"B"})}
    assert {frozenset((p.a, p.b)) for p in dec.pairs if p.significant is None} == {
        frozenset(x) for x in (("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D"))}
    assert dict(dec.ranks.rank_ub) == {"A": 1, "B": 2, "C": 1, "D": 1}


def _reach_by_search(better):
    """Reachability by a depth-first search from every system (the definition, one path at a time)."""
    n = better.shape[0]
    out = np.zeros((n, n), dtype=bool)
    for i in range(n):
        stack = list(np.flatnonzero(better[i]))
        while stack:
            j = stack.pop()
            if not out[i, j]:
                out[i, j] = True
                stack.extend(np.flatnonzero(better[j]))
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 30, 64])
def test_closure_is_reachability_over_random_graphs_of_every_density(n):
    """closure (float32 squaring) against a search from every system, over 40 random directed graphs per size,
    from empty to complete, cycles and self-loops included."""
    from sigreport.results.ranks import closure

    rng = np.random.default_rng(n)
    for density in np.linspace(0.0, 1.0, 40):
        b = rng.random((n, n)) < density ** 2
        assert np.array_equal(closure(b), _reach_by_search(b)), density


def test_closure_of_a_long_chain_and_a_dense_order():
    """A chain of 1,500 systems (each beats the next: 11 squarings) reaches every later one; a total order of
    1,000 (the counts of two-step paths reach 998, exact in float32) is its own closure."""
    from sigreport.results.ranks import closure

    chain = np.eye(1500, k=1, dtype=bool)
    assert np.array_equal(closure(chain), np.triu(np.ones((1500, 1500), dtype=bool), k=1))
    order = np.triu(np.ones((1000, 1000), dtype=bool), k=1)
    assert np.array_equal(closure(order), order)
