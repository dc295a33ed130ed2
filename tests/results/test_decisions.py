"""The decision model (sigreport.results.decisions): one rule of significance, one of order and ties, one of the
primary test, and every disagreement between tests of the same block, from typed records and from records
read back from results.json alike."""

from __future__ import annotations

import math
from typing import Any

import pytest

import sigreport
from sigreport.results import from_json, to_json
from sigreport.results.decisions import choose_primary, decide, is_significant, rank_systems, shown_value
from sigreport.results.io import from_dict

from conftest import CONFIGS


# ---- significance -----------------------------------------------------------------------------------


def test_is_significant_is_p_at_most_alpha():
    assert is_significant(0.05, 0.05) is True  # equal to alpha rejects (<=, as every sigreport decision)
    assert is_significant(math.nextafter(0.05, 1), 0.05) is False
    assert is_significant(0.0, 0.01) is True
    assert is_significant(None, 0.05) is None  # no p-value: no decision, never "not significant"
    assert is_significant(float("nan"), 0.05) is None


def test_every_significance_decision_goes_through_the_one_rule():
    """No module compares a value with alpha itself, except the rule and the assumption checks (normality,
    sphericity), which decide which test runs, not whether systems differ, and keep select's strict '<'."""
    import ast
    from pathlib import Path

    package = Path(sigreport.__file__).parent
    allowed = {"stats/result.py": "the rule itself", "stats/select.py": "normality checks of automatic choices",
               "stats/pairwise.py": "Shapiro-Wilk flag of the paired t test", "stats/omnibus.py": "Mauchly's test"}
    found = []
    for f in package.rglob("*.py"):
        rel = f.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Lt, ast.LtE)) for op in node.ops):
                right = node.comparators[-1]
                name = right.id if isinstance(right, ast.Name) else getattr(right, "attr", None)
                if name == "alpha" and not isinstance(node.left, ast.Constant) and rel not in allowed:
                    found.append(f"{rel}:{node.lineno}")
    assert found == []


# ---- order and ties ---------------------------------------------------------------------------------


def test_rank_systems_ties_on_the_value_as_shown():
    values = {"A": 0.8121, "B": 0.8124, "C": 0.79, "D": None, "E": float("nan")}
    assert rank_systems(values, True, 3) == (("A", "B"), ("C",))  # 0.812 and 0.812: tied, table order
    assert rank_systems(values, True, 4) == (("B",), ("A",), ("C",))
    assert rank_systems(values, False, 3) == (("C",), ("A", "B"))  # lower is better: reversed, ties kept
    assert shown_value(-0.0004, 3) == shown_value(0.0004, 3) == 0.0
    assert rank_systems({"x": -0.0004, "y": 0.0004}, True, 3) == (("x", "y"),)


# ---- the primary test and disagreements, on records read back from results.json --------------------


def pair(a: str, b: str, sig: bool | None, p_adj: float | None, est: float | None = None, **extra: Any) -> dict:
    return {"a": a, "b": b, "significant": sig, "pvalue_adjusted": p_adj, "estimate": est, **extra}


def doc(records: list[dict], higher: bool = True, decimals: int = 3) -> dict:
    desc = {"id": "m/c/descriptives", "kind": "descriptives", "metric": "m", "corpus": "c", "level": "items",
            "ci_level": 0.95, "systems": [{"system": s, "mean": v} for s, v in (("A", 0.80), ("B", 0.75), ("C", 0.70))]}
    for r in records:
        r.setdefault("metric", "m")
        r.setdefault("corpus", "c")
        r.setdefault("warnings", [])
    return {"schema_version": 1, "title": "t", "alpha": 0.05, "seed": 0, "systems": ["A", "B", "C"],
            "corpora": ["c"], "metrics": {"m": {"label": "M", "higher_is_better": higher, "decimals": decimals,
                                                "aggregate": "mean"}},
            "tests": {}, "analyses": [desc, *records]}


def family(kind: str, method: str, pairs: list[dict], **fields: Any) -> dict:
    return {"id": f"m/c/{kind}-{method}", "kind": kind, "method": method, "correction": "holm", "pairs": pairs,
            "comparisons": "all_pairs", **fields}


def test_cross_validation_follows_the_first_cv_test_and_names_the_other():
    t = family("cv", "5x2cv_t", [pair("A", "C", False, 0.28, 0.1), pair("A", "B", False, 0.5, 0.05)])
    f = family("cv", "5x2cv_f", [pair("A", "C", True, 0.047, 0.1), pair("A", "B", False, 0.6, 0.05)])
    (block,) = decide(from_dict(doc([t, f]), partial=True))  # a hand-made document: partial
    assert block.primary.method == "5x2cv_t" and "first cross-validation test" in block.reason
    (d,) = block.disagreements
    assert (d.kind, d.other.method, d.a, d.b) == ("test", "5x2cv_f", "A", "C")
    assert (d.primary_says, d.other_says, d.primary_value, d.other_value) == ("not different", "different", 0.28, 0.047)
    assert d.other.name == "Alpaydin's combined 5x2cv F test"


def test_many_data_sets_follow_the_post_hoc_test():
    pw = family("pairwise", "wilcoxon", [pair("A", "B", True, 0.03, 0.05)], level="corpora")
    ph = {"id": "m/c/posthoc", "kind": "posthoc", "method": "nemenyi", "after": "friedman", "level": "corpora",
          "average_ranks": {"A": 1.2, "B": 2.0, "C": 2.8}, "control": None,
          "pairs": [pair("A", "B", False, 0.30, rank_difference=-0.8)]}
    om = {"id": "m/c/omnibus", "kind": "omnibus", "method": "friedman", "significant": True, "pvalue": 0.01}
    (block,) = decide(from_dict(doc([pw, om, ph]), partial=True))  # a hand-made document: partial
    assert block.primary.kind == "posthoc" and "many data sets" in block.reason
    kinds = sorted((d.kind, d.other.method) for d in block.disagreements)
    assert kinds == [("omnibus", "friedman"), ("test", "wilcoxon")]
    omni = next(d for d in block.disagreements if d.kind == "omnibus")
    assert (omni.primary_says, omni.other_says, omni.other_value) == ("not different", "different", 0.01)


def test_items_follow_the_pairwise_test_and_the_bayesian_contradictions_are_kept():
    pw = family("pairwise", "paired_t", [pair("A", "B", True, 0.044, 0.05), pair("A", "C", False, 0.3, 0.1),
                                         pair("B", "C", True, 0.01, 0.05)])
    bayes = {"id": "m/c/bayesian", "kind": "bayesian", "method": "bayesian_bootstrap", "pairs": [
        {"a": "A", "b": "B", "decision": "equivalent", "p_a_better": 0.0, "p_equivalent": 0.97, "p_b_better": 0.03},
        {"a": "A", "b": "C", "decision": "a_better", "p_a_better": 0.96, "p_equivalent": 0.04, "p_b_better": 0.0},
        {"a": "B", "b": "C", "decision": "b_better", "p_a_better": 0.0, "p_equivalent": 0.02, "p_b_better": 0.98},
    ]}
    (block,) = decide(from_dict(doc([pw, bayes]), partial=True))  # a hand-made document: partial
    assert block.primary.method == "paired_t" and "item-level" in block.reason
    got = {(d.a, d.b): (d.primary_says, d.other_says, d.other_value) for d in block.disagreements}
    assert got == {("A", "B"): ("different", "equivalent", 0.97), ("A", "C"): ("not different", "a_better", 0.96),
                   ("B", "C"): ("different", "b_better", 0.98)}  # B significantly better by t, C by the posterior
    assert block.beats == {"A": frozenset({"B"}), "B": frozenset({"C"})}
    assert block.groups == ()  # A and C are not separated, but B lies between them in value order


def test_no_pair_test_no_primary():
    (block,) = decide(from_dict(doc([]), partial=True))  # a hand-made document: partial
    assert block.primary is None and block.pairs == () and block.best == ("A",)
    assert choose_primary([])[0] is None


# ---- the same decisions from typed records and from results.json ------------------------------------


@pytest.mark.parametrize("name", ["cv_5x2", "demsar", "summarizers"])
def test_typed_and_read_back_records_decide_the_same(name):
    results = sigreport.analyze(sigreport.load_spec(CONFIGS / f"{name}.yaml"))
    typed, loaded = decide(results), decide(from_json(to_json(results)))
    assert typed == loaded and len(typed) >= 1


# ---- groups (the bars of a critical-difference diagram) ----------------------------------------------


def _groups_by_definition(order, pairs, undecided):
    """The groups as the definition says them, the obvious O(k^3) way: from each position, extend the run while
    the next system is quiet (compared, not significant, neither undecided) with every system of the run; keep
    the runs no other run contains."""
    quiet_pairs = {frozenset((p.a, p.b)) for p in pairs if p.significant is False}

    def quiet(a, b):
        return frozenset((a, b)) in quiet_pairs and a not in undecided and b not in undecided

    runs = []
    for i in range(len(order)):
        j = i
        while j + 1 < len(order) and all(quiet(order[m], order[j + 1]) for m in range(i, j + 1)):
            j += 1
        if j > i:
            runs.append((i, j))
    return tuple(tuple(order[i:j + 1]) for i, j in runs
                 if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs))


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, 5, 8, 13, 40])
def test_groups_are_the_maximal_quiet_runs_of_the_definition(k):
    """groups_of (one pass over a quiet matrix) against the definition, over 300 random families per size:
    densities of significant pairs from none to all, missing comparisons, undecided systems, systems of the
    pairs that are not in the order, and pairs given in either direction or twice."""
    import numpy as np

    from sigreport.results.decisions import PairDecision, groups_of

    rng = np.random.default_rng(k)
    for trial in range(300):
        order = tuple(f"s{i}" for i in rng.permutation(k))
        loud, missing = rng.choice([0.0, 0.05, 0.2, 0.5, 0.9, 1.0]), rng.choice([0.0, 0.0, 0.1])
        pairs = []
        names = [*order, "outside"]
        for x in range(len(names)):
            for y in range(x + 1, len(names)):
                if rng.random() < missing:
                    continue
                sig = None if rng.random() < 0.02 else bool(rng.random() < loud)
                a, b = (names[x], names[y]) if rng.random() < 0.5 else (names[y], names[x])
                pairs.append(PairDecision(a=a, b=b, significant=sig, better=a if sig else None,
                                          pvalue_adjusted=None, estimate=None, mde=None, mde_power=None))
                if rng.random() < 0.05:
                    pairs.append(pairs[-1])
        undecided = frozenset(s for s in order if rng.random() < 0.05)
        assert groups_of(order, pairs, undecided) == _groups_by_definition(order, pairs, undecided), trial


def test_groups_of_a_large_family_take_one_pass():
    """1,000 systems and none significant (a bootstrap leaderboard under Holm): one group of all, in well under
    the minutes the cubic search took (not timed here: the leaderboard benchmark times it)."""
    from sigreport.results.decisions import PairDecision, groups_of

    order = tuple(f"s{i:04d}" for i in range(1000))
    pairs = [PairDecision(a=order[x], b=order[y], significant=False, better=None, pvalue_adjusted=None,
                          estimate=None, mde=None, mde_power=None) for x in range(1000) for y in range(x + 1, 1000)]
    assert groups_of(order, pairs, frozenset()) == (order,)
    assert groups_of(order, pairs, frozenset({"s0500"})) == (order[:500], order[501:])
