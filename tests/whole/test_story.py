"""One story per report: the Conclusions, the main table's marks and markers, the key figure, the release
index and ``sigreport diff`` say what the report's decisions (sigreport.results.decisions) say, on every
example and on specs built to have ties and disagreements between tests."""

from __future__ import annotations

import copy
import re
import string
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sigreport
from sigreport.archive import diff as diffs
from sigreport.archive import releases
from sigreport.render.figures.output import slug
from sigreport.render.model import Int, Text
from sigreport.render.views import build_report
from sigreport.render.views.common import LARGE_FAMILY
from sigreport.render.views.main import DAGGER, DDAGGER, letters
from sigreport.results import from_json, to_json
from sigreport.results.decisions import BlockDecisions, decide
from sigreport.results.ranks import RANKED_MIN, TIERS_MIN

from conftest import CONFIGS

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


def twelve_systems(folder: Path) -> Path:
    """12 systems on 40 items, pairwise: bootstrap, omnibus: friedman: neighbours in the means differ by
    about 0.01, so the bootstrap separates pairs that Nemenyi's rank test joins (the issue's case)."""
    rng = np.random.default_rng(12)
    base = rng.normal(0.5, 0.1, 40)
    rows = ["system,corpus,item,metric,value"]
    for k in range(12):
        scores = base + 0.01 * k + rng.normal(0, 0.03, 40)
        rows += [f"sys-{k:02d},c,i{i},acc,{v:.6f}" for i, v in enumerate(scores)]
    (folder / "twelve.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spec = folder / "twelve.yaml"
    spec.write_text("title: twelve\nseed: 3\ndata: {scores: twelve.csv}\nmetrics:\n  acc: {higher_is_better: true, "
                    "decimals: 3}\ntests:\n  pairwise: bootstrap\n  resamples: 9999\n  omnibus: friedman\n",
                    encoding="utf-8")
    return spec


def ties(folder: Path) -> Path:
    """A and B differ only below the shown decimals (so they share the best value); C is far behind; the
    metric is lower-is-better on a second corpus, where B and C tie for second place."""
    rng = np.random.default_rng(7)
    rows = ["system,corpus,item,metric,value"]
    for corpus, shift in (("c1", 0.0), ("c2", 0.3)):
        base = rng.normal(0.6, 0.05, 30)
        a = base + rng.normal(0, 0.01, 30)
        b = a + 0.0001 + rng.normal(0, 1e-3, 30)
        c = (base + 0.1) if corpus == "c1" else b + rng.normal(0, 1e-3, 30)
        for name, scores in (("A", a - shift), ("B", b), ("C", c)):
            rows += [f"{name},{corpus},i{i},err,{v:.7f}" for i, v in enumerate(scores)]
    (folder / "ties.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spec = folder / "ties.yaml"
    spec.write_text("title: ties\ndata: {scores: ties.csv}\nmetrics:\n  err: {higher_is_better: false, decimals: 3}\n"
                    "tests:\n  pairwise: paired_t\n  omnibus: none\n", encoding="utf-8")
    return spec


def binary(folder: Path, model: str | None = None) -> Path:
    """0/1 accuracy of five classifiers on 300 items with a shared item difficulty, so that 70-90% of a pair's
    items tie; paired t tests and a Bayesian comparison with a ROPE of 0.01 (the issue's third case)."""
    rng = np.random.default_rng(91)
    difficulty = rng.normal(0, 1, 300)
    rows = ["system,corpus,item,metric,value"]
    for k, skill in enumerate((0.55, 0.7, 0.8, 0.95, 1.1)):
        correct = (difficulty + rng.normal(0, 0.45, 300) < skill).astype(int)
        rows += [f"clf-{k},c,i{i},acc,{v}" for i, v in enumerate(correct)]
    (folder / "binary.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spec = folder / "binary.yaml"
    extra = f"\n    model: {model}" if model else ""
    spec.write_text("title: binary\nseed: 5\ndata: {scores: binary.csv}\nmetrics:\n  acc: {higher_is_better: true, "
                    "decimals: 3}\ntests:\n  pairwise: paired_t\n  omnibus: none\n  bayesian:\n    rope: {acc: 0.01}"
                    f"\n    samples: 20000{extra}\n", encoding="utf-8")
    return spec


def demsar_bayes(folder: Path) -> Path:
    """Demšar's data sets with a Bayesian comparison across them: the post-hoc test is primary."""
    text = (CONFIGS / "demsar.yaml").read_text(encoding="utf-8").replace("data/", str(CONFIGS / "data") + "/")
    spec = folder / "demsar_bayes.yaml"
    spec.write_text(text + "  bayesian:\n    rope: {auc: 0.01}\n    samples: 20000\n", encoding="utf-8")
    return spec


BUILT = {"twelve": twelve_systems, "ties": ties, "binary": binary, "demsar_bayes": demsar_bayes,
         "binary_signed_rank": lambda folder: binary(folder, "signed_rank")}


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[str, tuple[Any, dict]] = {}

    def get(name: str) -> tuple[Any, dict]:
        if name not in cache:
            spec = CONFIGS / f"{name}.yaml" if name in EXAMPLES else BUILT[name](tmp_path_factory.mktemp(name))
            results = from_json(to_json(sigreport.analyze(sigreport.load_spec(spec))))
            cache[name] = (results, results.to_dict())
        return cache[name]

    return get


def emphasis_of(table: Any, column: int, systems: tuple[str, ...]) -> dict[str, str]:
    return {s: row[column].emphasis for s, row in zip(systems, table.rows)}


def beaten_by_markers(marks: str, systems: tuple[str, ...], baseline: str | None, system: str) -> set[str]:
    """The systems a cell's markers say it significantly beats (letters, or the daggers against the baseline)."""
    if baseline is not None:
        return {baseline} if DAGGER in marks else set()
    lett = {v: k for k, v in letters(systems).items()}
    return {lett[ch] for ch in re.findall(r"[a-z]|\d+", marks.replace("?", ""))}


def check_preference_tables(model: Any, decisions: list[BlockDecisions]) -> list[BlockDecisions]:
    """The main tables of preference votes (one per Bradley-Terry block, strongest first): Rank (UB) and Tier
    are the block's ranks, bold and underline its best and second strengths as shown; the other blocks are
    returned for the metrics' tables."""
    prefs = [d for d in decisions if d.primary is not None and d.primary.kind == "preferences"]
    tables = [t for t in model.main if t.key[:2] == ("main", "preferences")]
    assert len(tables) == len(prefs)
    for t, dec in zip(tables, prefs):
        heads = [c.header for c in t.columns]
        systems = [row[0].text for row in t.rows]
        assert systems == list(dec.order)
        if dec.ranks is not None and len(dec.order) >= RANKED_MIN:
            assert heads[1:3] == [Text("Rank (UB)"), Text("Tier")]
            assert [row[1].value for row in t.rows] == [dec.ranks.rank_ub[s] for s in systems]
            assert [row[2].value for row in t.rows] == [dec.ranks.tier[s] for s in systems]
        assert [row[-1].emphasis for row in t.rows] == [{1: "best", 2: "second"}.get(dec.rank(s) or 0, "")
                                                        for s in systems]
    return [d for d in decisions if d not in prefs]


def check_main_table(model: Any, results: Any, decisions: list[BlockDecisions]) -> None:
    decisions = check_preference_tables(model, decisions)
    cells = {}
    ranked = []  # (table index, the Rank (UB) column's cells)
    for t in (t for t in model.main if t.key[:2] != ("main", "preferences")):
        heads = t.columns[1:]
        for j, head in enumerate(heads, 1):
            if head.header == Text("Rank (UB)"):
                ranked.append((model.main.index(t), {s: row[j].value for row, s in zip(t.rows, results.systems)}))
                continue
            for row, system in zip(t.rows, results.systems):
                cells.setdefault(j + 1000 * model.main.index(t), {})[system] = row[j]
    columns = list(cells.values())
    assert len(columns) == len(decisions)
    # the rank column is one block's Rank (UB): 1 + the systems its primary test finds significantly better
    with_ranks = [d for d in decisions if d.ranks is not None]
    assert bool(ranked) == (len(results.systems) >= RANKED_MIN and bool(with_ranks))
    for _, shown in ranked:
        assert any(shown == {s: (1 + sum(s in d.beats.get(x, ()) for x in d.order) if s in d.order else None)
                             for s in results.systems} for d in with_ranks), shown
    baseline = next((d.baseline for d in decisions if d.baseline is not None), None)
    for dec, col in zip(decisions, columns):
        for system, cell in col.items():
            rank = dec.rank(system)
            assert cell.emphasis == {1: "best", 2: "second"}.get(rank or 0, ""), (dec.metric, dec.corpus, system)
            if baseline is None and len(results.systems) > LARGE_FAMILY:  # no letters: Rank (UB) counts them
                assert cell.marks in ("", "?"), (dec.metric, system, cell.marks)
                continue
            assert beaten_by_markers(cell.marks, results.systems, baseline, system) == (
                set(dec.beats.get(system, ())) if baseline is None else
                ({baseline} if baseline in dec.beats.get(system, ()) else set())), (dec.metric, system, cell.marks)
            if baseline is not None and system in dec.beats.get(baseline, ()):
                assert DDAGGER in cell.marks


def check_conclusions(model: Any, decisions: list[BlockDecisions]) -> None:
    assert len(model.conclusions) == len(decisions)
    for (heading, lines), dec in zip(model.conclusions, decisions):
        text = " ".join(lines)
        first = lines[0]
        assert all(s in first for s in dec.best) and (("share" in first) == (len(dec.best) > 1)), (heading, first)
        if dec.primary is None:
            assert "no difference is claimed" in text
            continue
        # the block names its test once: with its rule, or "as above" when an earlier block gave the same rule
        assert sum(dec.primary.name in line and line.startswith(("Decisions here follow", "Decisions follow"))
                   for line in lines) == 1
        also = [line for line in lines if "also shown below" in line]
        if len(dec.disagreements) > 0:
            assert also, (heading, dec.disagreements)
        for d in dec.disagreements:
            assert any(d.other.name[1:] in line and (d.a is None or (d.a in line and d.b in line))
                       for line in also), (heading, d)
        if not dec.disagreements:
            assert not also
        if dec.baseline is None and len(dec.order) >= TIERS_MIN and dec.ranks is not None:  # read as tiers
            tiers = dec.ranks.members
            said = next((line for line in lines if " tiers \u2014 tier 1: " in line or "all share tier 1" in line), "")
            assert said and all(f"tier {k}: {', '.join(t)}" in said for k, t in enumerate(tiers, 1)
                                if len(tiers) > 1), (heading, said)
        elif dec.baseline is None and len(dec.best) == 1:
            beaten = dec.beats.get(dec.best[0], frozenset())
            said = next((line for line in lines if line.startswith("It is significantly better than")), "")
            assert all(s in said for s in beaten) and bool(said) == bool(beaten), (heading, said, beaten)


def check_key_figure(name: str, results: Any, decisions: list[BlockDecisions]) -> None:
    """The key figure is the primary test's own figure of the first block that has one."""
    model = build_report(results, figures=("cd", "forest"), figure_pdf=False)
    figs = {f.name for f in model.figures()}
    want = None
    for dec in decisions:
        if dec.primary is None:
            continue
        prefix = "cd" if dec.primary.kind == "posthoc" and dec.primary.method != "paired_t" else "forest"
        candidate = f"{prefix}-{slug(dec.primary.id)}"
        if candidate in figs:
            want = candidate
            break
    assert (model.key_figure.name if model.key_figure else None) == want, name


def check_index(doc: dict, decisions: list[BlockDecisions]) -> None:
    head = releases.headline(doc)
    assert [(b.metric, b.corpus, b.tied) for b in head.best] == [(d.metric, d.corpus, d.best) for d in decisions
                                                                 if d.best]
    assert (head.significant, head.decisions) == (sum(d.n_significant for d in decisions),
                                                   sum(d.n_decided for d in decisions))


def check_diff(doc: dict, decisions: list[BlockDecisions]) -> None:
    """Against a report with the order reversed and every decision flipped, the diff names this report's best
    systems (ties included) and marks exactly the flips of the tests the conclusions follow."""
    old = copy.deepcopy(doc)
    for a in old["analyses"]:
        if a["kind"] == "descriptives":
            means = [s["mean"] for s in a["systems"]]
            for s, m in zip(a["systems"], reversed(means)):
                s["mean"] = m
        for p in a.get("pairs") or []:
            if isinstance(p.get("significant"), bool):
                p["significant"] = not p["significant"]
    d = diffs.diff_results(old, doc)
    by_id = {r.analysis: r for r in d.rank_changes if r.source == "means"}
    for dec in decisions:
        change = by_id.get(f"{dec.metric}/{dec.corpus if dec.corpus is not None else '*'}/descriptives")
        if change is not None:
            assert change.new_best_tied == dec.best and change.new_best == dec.best[0]
    primary = {dec.primary.id for dec in decisions if dec.primary is not None}
    families = any(isinstance(p.get("significant"), bool) for a in doc["analyses"] for p in a.get("pairs") or [])
    assert (bool(d.flips) or not families) and all(f.primary == (f.analysis in primary) for f in d.flips)
    assert {f.analysis for f in d.flips if f.primary} == {i for i in primary if any(
        isinstance(p.get("significant"), bool) for a in doc["analyses"] if a["id"] == i for p in a.get("pairs") or [])}


@pytest.mark.parametrize("name", [*EXAMPLES, "twelve", "ties", "binary", "demsar_bayes"])
def test_conclusions_table_index_and_diff_tell_one_story(case, name):
    results, doc = case(name)
    decisions = list(decide(results))
    model = build_report(results, figures=())
    check_conclusions(model, decisions)
    check_main_table(model, results, decisions)
    check_index(doc, decisions)
    check_diff(doc, decisions)


@pytest.mark.parametrize("name", ["cv_5x2", "classifiers", "demsar", "twelve"])
def test_the_key_figure_shows_the_decisions_of_the_conclusions(case, name):
    results, _ = case(name)
    check_key_figure(name, results, list(decide(results)))


def test_the_cases_have_what_they_are_built_for(case):
    """cv_5x2: the 5x2cv F test disagrees with the t test the conclusions follow (the issue's first case);
    twelve: the bootstrap separates pairs Nemenyi joins, and the key figure is not the CD diagram; ties: A and B
    share the best value, B and C the second."""
    cv = list(decide(case("cv_5x2")[0]))[0]
    assert [(d.other.method, d.a, d.b, d.other_says) for d in cv.disagreements] == [("5x2cv_f", "logreg", "gbdt",
                                                                                     "different")]
    twelve = list(decide(case("twelve")[0]))[0]
    assert twelve.primary.method == "bootstrap"
    assert sum(d.kind == "test" and d.other.method == "nemenyi" and d.primary_says == "different"
               for d in twelve.disagreements) >= 3
    c1, c2 = decide(case("ties")[0])
    assert c1.best == ("A", "B") and c2.tiers[:2] == (("A",), ("B", "C"))
    model = build_report(case("ties")[0], figures=())
    assert model.conclusions[0][1][0] == f"A and B share the lowest value ({c1.values['A']:.3f} as shown)."
    row_b = model.main[0].rows[1]
    assert isinstance(row_b[1], Int)  # the Rank (UB) column comes first
    assert (row_b[2].emphasis, row_b[3].emphasis) == ("best", "second")
    assert string.ascii_lowercase  # letters a, b, c name A, B, C in the legend


def test_binary_scores_never_equivalent_outside_the_rope_and_disagreements_are_named(case):
    """0/1 accuracy, ROPE 0.01: the Bayesian bootstrap of the mean difference is chosen (and says why); no pair
    whose accuracies differ by more than the ROPE is called practically equivalent; a Bayesian decision that
    contradicts the paired t test is named in the Conclusions. Forcing the signed-rank test warns that most
    differences are zero, and its equivalences outside the ROPE become undecided."""
    results, _ = case("binary")
    (bayes,) = results.of_kind("bayesian")
    assert bayes.method == "bayesian_bootstrap" and "binary" in bayes.selection.reason
    means = {s.system: s.mean for s in results.of_kind("descriptives")[0].systems}
    assert all(p.estimate == pytest.approx(means[p.a] - means[p.b]) for p in bayes.pairs)  # the observed mean difference
    assert all(p.decision != "equivalent" for p in bayes.pairs if abs(p.estimate) > bayes.rope)
    assert sum(abs(p.estimate) > bayes.rope for p in bayes.pairs) >= 8
    (block,) = decide(results)
    lines = build_report(results, figures=()).conclusions[0][1]
    for d in (d for d in block.disagreements if d.kind == "bayesian"):
        assert any("Bayesian bootstrap" in line and d.a in line and d.b in line for line in lines)
    forced, _ = case("binary_signed_rank")
    (sr,) = forced.of_kind("bayesian")
    assert sr.method == "signed_rank" and sr.selection is None
    assert sum("of the differences are zero" in w for w in sr.warnings) >= 8
    assert all(p.decision != "equivalent" for p in sr.pairs if abs(p.estimate) > sr.rope)
    assert sum("not declared practically equivalent" in w for p in sr.pairs for w in p.warnings) == 10  # all 10 pairs


def test_the_bayesian_table_compares_with_the_test_the_conclusions_follow(case):
    """Across data sets the post-hoc test is primary: the Bayesian rows' frequentist decision is its decision,
    the one the Conclusions compare with."""
    results, _ = case("demsar_bayes")
    (block,) = decide(results)
    (bayes,) = results.of_kind("bayesian")
    primary = {frozenset((p.a, p.b)): p for p in block.pairs}
    assert block.primary.method == "nemenyi"
    for row in bayes.pairs:
        assert row.frequentist_method == "nemenyi"
        p = primary[frozenset((row.a, row.b))]
        assert (row.frequentist_significant, row.frequentist_pvalue_adjusted) == (p.significant, p.pvalue_adjusted)


# ---- the built report: rank column, tiers and gate verdicts are the decision model's (one story) ----------


def csv_tables(text: str) -> list[list[dict[str, str]]]:
    """main.csv's tables (a blank line between them), each a list of rows by header."""
    import csv
    import io

    return [list(csv.DictReader(io.StringIO(chunk))) for chunk in text.strip().split("\n\n") if chunk.strip()]


def system_of(cell: str) -> str:
    """A main.csv System cell without its letter ('bart-large (a)') and CSV-safe quote."""
    return re.sub(r" \(([a-z]|\d+)\)$", "", cell.lstrip("'"))


def tier_parts(dec: BlockDecisions) -> list[str]:
    """The parts of the tiered Conclusions sentence for a block read as tiers ("tier 1: A, B (not separated),
    Rank (UB) 1"), from the decision model alone."""
    assert dec.ranks is not None
    out = []
    for k, tier in enumerate(dec.ranks.members, 1):
        ranks = sorted({dec.ranks.rank_ub[s] for s in tier})
        rank = f"Rank (UB) {ranks[0]}" if len(ranks) == 1 else f"Rank (UB) {ranks[0]}\u2013{ranks[-1]}"
        out.append(f"tier {k}: {', '.join(tier)}{' (not separated)' if len(tier) > 1 else ''}, {rank}")
    return out


def read_as_tiers(dec: BlockDecisions) -> bool:
    return dec.baseline is None and dec.ranks is not None and len(dec.order) >= TIERS_MIN


@pytest.mark.parametrize("name", EXAMPLES)
def test_rank_column_tiers_and_gate_agree_with_the_decision_model(example, capsys, name):
    """Every example as built (the session's build, every format): results.json's rank_ub and tier, main.csv's
    Rank (UB) (and Tier for preference votes) columns, the tiered Conclusions sentence of index.html and, where a
    metric has a margin, ``sigreport gate``'s verdicts are the decision model's of the same results.json."""
    import html as html_lib
    import json

    from conftest import run_cli

    report = example(name)
    text = (report / "results.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    decisions = decide(from_json(text), doc.get("baseline"))
    ranked = [d for d in decisions if d.ranks is not None and len(d.order) >= RANKED_MIN]
    # results.json: each ranked block's rank_ub and tier (preference records carry rank_ub)
    for a in doc["analyses"]:
        if a["kind"] not in ("descriptives", "preferences"):
            continue
        dec = decisions.get(a["metric"], a["corpus"])
        if dec is None or dec not in ranked:
            assert all("tier" not in s for s in a["systems"]), a["id"]
            continue
        for s in a["systems"]:
            if a["kind"] == "preferences" or s.get("mean") is not None:
                assert s["rank_ub"] == dec.ranks.rank_ub[s["system"]], (a["id"], s["system"])
            if a["kind"] == "descriptives" and s.get("mean") is not None:
                assert s["tier"] == dec.ranks.tier[s["system"]], (a["id"], s["system"])
    # main.csv: a Rank (UB) column is one ranked block's ranks; a preference table's Tier its tiers
    csv_path = report / "main.csv"
    tables = csv_tables(csv_path.read_text(encoding="utf-8")) if csv_path.exists() else []
    shown_ranks = 0
    for rows in tables:
        if not rows or "Rank (UB)" not in rows[0]:
            continue
        shown_ranks += 1
        shown = {system_of(r["system"]): int(r["Rank (UB)"]) for r in rows if r["Rank (UB)"] not in ("", "\u2014")}
        matching = [d for d in ranked if all(d.ranks.rank_ub.get(s) == v for s, v in shown.items())
                    and set(shown) == set(d.order)]
        assert matching, (name, shown)
        if "Tier" in rows[0]:  # the preference votes' table
            prefs = [d for d in matching if d.primary.kind == "preferences"]
            assert prefs and all(prefs[0].ranks.tier[system_of(r["system"])] == int(r["Tier"]) for r in rows)
    with_systems = len(doc["systems"]) >= RANKED_MIN
    assert (shown_ranks > 0) == (with_systems and bool(ranked)), (name, shown_ranks)
    # index.html's Conclusions: every block read as tiers states the decision model's tiers, no other block does
    page = html_lib.unescape(re.sub(r"<[^>]+>", "", (report / "index.html").read_text(encoding="utf-8")))
    conclusions = page.split("Conclusions", 1)[1] if "Conclusions" in page else ""
    tiered = [d for d in decisions if read_as_tiers(d) and len(d.ranks.members) > 1]
    for dec in tiered:
        assert all(part in conclusions for part in tier_parts(dec)), (name, dec.metric, dec.corpus)
    assert conclusions.count(" tiers \u2014 tier 1: ") == len(tiered), name
    # sigreport gate, where the report has margins: every verdict is the decisions' and the report's own tests'
    margins = {a["metric"] for a in doc["analyses"] if a["kind"] == "pairwise"
               for p in a.get("pairs") or [] if p.get("equivalence")}
    if not margins:
        return
    baseline = next(d.baseline for d in decisions if d.baseline is not None)
    code, out, err = run_cli(capsys, "gate", str(report), "--baseline", baseline, "--format", "json")
    assert code in (0, 1), err
    checks = json.loads(out)["checks"]
    assert {c["metric"] for c in checks} == margins
    for c in checks:
        dec = decisions.get(c["metric"], c["corpus"])
        pair = next(p for p in dec.pairs if {p.a, p.b} == {c["candidate"], baseline})
        assert (c["verdict"] == "better") == (pair.winner == c["candidate"]), c
        assert c["decision"] == (f"{pair.winner} significantly better" if pair.winner else
                                 "no significant difference"), c
        rec = next(a for a in doc["analyses"] if a["id"] == dec.primary.id)
        eq = next(p for p in rec["pairs"] if {p["a"], p["b"]} == {c["candidate"], baseline})["equivalence"]
        assert c["pvalue"] == pytest.approx(eq["noninferiority_pvalue"], rel=1e-12) and c["margin"] == eq["margin"]
        assert c["passed"] == (c["verdict"] in ("better", "non-inferior")) == (c["pvalue"] <= c["alpha"]), c
        if eq["noninferior"]:  # the report's (corrected) non-inferiority implies the gate's (each at alpha)
            assert c["passed"], c
    assert (code == 0) == all(c["passed"] for c in checks)


def test_diff_names_a_changed_tier_of_the_preference_votes(case):
    """arena: an old release where cirrus-13b's interval reached tier 1 (its upper bound 1.2, above atlas-70b's
    and borealis-34b's lower bounds) differs in tier 1: one conclusion changed, exit 1, primary, worded as tiers;
    the strongest two swapping strengths inside tier 1 (intervals kept) is no news."""
    _, doc = case("arena")
    old = copy.deepcopy(doc)
    (rec,) = [a for a in old["analyses"] if a["kind"] == "preferences"]
    by = {s["system"]: s for s in rec["systems"]}
    by["cirrus-13b"]["ci_high"] = 1.2
    d = diffs.diff_results(old, doc)
    (change,) = d.rank_changes
    assert change.source == "tiers" and change.old_best_tied == ("atlas-70b", "borealis-34b", "cirrus-13b")
    assert change.new_best_tied == ("atlas-70b", "borealis-34b") and change.new_order[1] == "cirrus-13b"
    assert d.exit_code() == 1 and d.changes[0].primary and d.changes[0].subject == "tier 1"
    assert "tier 1 on Bradley-Terry strength" in d.headline
    same = copy.deepcopy(doc)
    (rec,) = [a for a in same["analyses"] if a["kind"] == "preferences"]
    by = {s["system"]: s for s in rec["systems"]}
    by["atlas-70b"]["strength"], by["borealis-34b"]["strength"] = by["borealis-34b"]["strength"], \
        by["atlas-70b"]["strength"]
    assert not diffs.diff_results(same, doc).rank_changes
