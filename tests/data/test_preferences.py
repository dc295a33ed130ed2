"""Pairwise preference votes (data.preferences): reading and checking the votes (every bad row at once, by
line; systems the spec does not list named as left out; comparison graphs without finite strengths refused),
and the Bradley-Terry analysis end to end (results.json, reproducible from the seed, the report)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sigreport.stats import bradley_terry as bt

SPEC = """\
title: votes
seed: 3
data:
  preferences: votes.csv
tests:
  preferences: {resamples: 200}
outputs: {formats: [json, html]}
"""


def votes(n: int = 300, k: int = 4, seed: int = 0, items: int | None = None, judges: bool = False) -> list[str]:
    """Votes among systems s0..s{k-1} with strengths 0.5 apart and some ties; every system wins and loses."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(1, -1, k)
    head = "a,b,winner" + (",item" if items else "") + (",judge" if judges else "")
    rows = [head]
    for r in range(n):
        a, b = rng.choice(k, 2, replace=False)
        u = (strength[a] - strength[b]) / 2
        z = 2 * np.cosh(u) + 0.5
        x = rng.random()
        w = "a" if x < np.exp(u) / z else "tie" if x < (np.exp(u) + 0.5) / z else "b"
        row = f"s{a},s{b},{w}" + (f",p{r % items}" if items else "") + (f",j{r % 3}" if judges else "")
        rows.append(row)
    return rows


def _write(workdir, rows: list[str], spec: str = SPEC):
    workdir.write("votes.csv", "\n".join(rows) + "\n")
    return workdir.write("spec.yaml", spec)


def test_every_bad_row_is_named_by_line_at_once(cli, workdir):
    rows = votes(20)
    rows[3] = "s0,s1,A wins"  # line 4
    rows[5] = "s2,s2,a"  # line 6: a system against itself
    rows[7] = ",s1,b"  # line 8: no name
    rows[9] = "s1,s0,draw"  # line 10
    r = cli("validate", _write(workdir, rows))
    assert r.code == 2
    err = r.err
    assert "votes.csv" in err and "Traceback" not in err
    assert "column 'winner' at lines 4, 10: 'A wins', 'draw' is not a winner (a, b or tie)" in err
    assert "a system compared with itself ('s2') at line 6" in err
    assert "empty system in column 'a' at line 8" in err


def test_winner_is_case_insensitive_and_names_are_stripped(cli, workdir):
    rows = votes(40)
    rows[1] = " s0 ,s1,  TIE"
    rows[2] = "s1,s0 ,A"
    r = cli("validate", _write(workdir, rows))
    assert r.code == 0, r.err
    assert "4 systems" in r.out and "40 preference votes" in r.out


def test_missing_columns_and_mapped_names(cli, workdir):
    r = cli("validate", _write(workdir, ["x,y,winner", "s0,s1,a"]))
    assert r.code == 2 and "missing columns 'a', 'b'; present: 'x', 'y', 'winner'" in r.err
    spec = SPEC.replace("  preferences: votes.csv\n", "  preferences: votes.csv\n  preference_columns: "
                        "{a: left, b: right, winner: verdict}\n")
    rows = ["left,right,verdict"] + [r for r in votes(60)[1:]]
    r = cli("validate", _write(workdir, rows, spec))
    assert r.code == 0, r.err


def test_systems_not_listed_are_left_out_and_named(cli, workdir):
    rows = votes(200, k=5)
    spec = SPEC.replace("seed: 3\n", "seed: 3\nsystems: [s0, s1, s2, s3]\n")
    path = _write(workdir, rows, spec)
    involved = sum(1 for row in rows[1:] if "s4" in row.split(",")[:2])
    r = cli("validate", path)
    assert r.code == 0, r.err
    assert r.err.splitlines() == [f"warning: systems (line 3): system s4 of votes.csv is not listed: {involved} of "
                                  f"200 vote rows left out"]
    assert f"{200 - involved} preference votes" in r.out
    assert cli("validate", "--strict", path).code == 2
    r = cli("build", "--no-cache", "-o", workdir.path / "out", path)
    assert r.code == 0, r.err
    doc = workdir.results()
    assert doc["data"]["left_out"] == [{"table": "preferences", "field": "systems", "names": ["s4"],
                                        "rows": involved, "of": 200}]
    rec = doc["analyses"][0]
    assert [s["system"] for s in rec["systems"]] == ["s0", "s1", "s2", "s3"] and rec["n_votes"] == 200 - involved


def test_a_listed_system_without_votes_is_an_error(cli, workdir):
    spec = SPEC.replace("seed: 3\n", "seed: 3\nsystems: [s0, s1, s2, s3, s9]\n")
    r = cli("validate", _write(workdir, votes(100), spec))
    assert r.code == 2 and "system 's9' has no vote in" in r.err and "line 3" in r.err


def test_disconnected_comparisons_are_refused_naming_the_groups(cli, workdir):
    rows = ["a,b,winner"] + ["s0,s1,a", "s1,s0,a", "s2,s3,a", "s3,s2,b", "s2,s3,tie"] * 3
    r = cli("validate", _write(workdir, rows))
    assert r.code == 2 and "Traceback" not in r.err
    assert "never compare some systems with others" in r.err and "'s0', 's1'; 's2', 's3'" in r.err


@pytest.mark.parametrize("winner, says", [("b", "'s2' never beats or ties any other system: its strength is minus "
                                                 "infinity"),
                                          ("a", "'s2' never loses to or ties any other system: its strength is "
                                                "infinite")])
def test_a_system_that_never_wins_or_never_loses_is_refused(cli, workdir, winner, says):
    rows = ["a,b,winner"] + ["s0,s1,a", "s1,s0,a", "s0,s1,tie"] * 3 + [f"s2,s0,{winner}", f"s2,s1,{winner}"] * 2
    r = cli("validate", _write(workdir, rows))
    assert r.code == 2 and says in r.err


def test_the_analysis_end_to_end(cli, workdir):
    rows = votes(600, k=4, seed=1)
    path = _write(workdir, rows)
    r = cli("build", "--no-cache", "-o", workdir.path / "out", path)
    assert r.code == 0, r.err
    doc = workdir.results()
    assert doc["tests"]["preferences"] == {"ties": "davidson", "resamples": 200, "unit": "auto"}
    rec, = doc["analyses"]
    assert (rec["kind"], rec["method"], rec["ties"], rec["unit"], rec["identification"]) == (
        "preferences", "bradley_terry", "davidson", "battles", "sum_zero")
    # the strengths are the fit of the votes' counts (the statistics are tested in tests/stats/test_bradley_terry.py)
    names = [s["system"] for s in rec["systems"]]
    index = {n: i for i, n in enumerate(names)}
    cells = [row.split(",") for row in rows[1:]]
    a = np.array([index[c[0]] for c in cells])
    b = np.array([index[c[1]] for c in cells])
    outcome = np.array([{"a": 1, "b": -1, "tie": 0}[c[2]] for c in cells])
    wins, ties = bt.count_matrices(a, b, outcome, 4)
    f = bt.fit(wins, ties)
    np.testing.assert_allclose([s["strength"] for s in rec["systems"]], f.strengths, atol=1e-9)
    assert rec["nu"] == pytest.approx(float(f.nu), rel=1e-9)
    assert rec["n_votes"] == 600 and rec["n_ties"] == int((outcome == 0).sum()) and rec["n_items"] is None
    low = np.array([s["ci_low"] for s in rec["systems"]])
    high = np.array([s["ci_high"] for s in rec["systems"]])
    assert (low < f.strengths).all() and (f.strengths < high).all()
    assert [s["rank_ub"] for s in rec["systems"]] == [1 + int((low > h).sum()) for h in high]  # Arena's count
    for s, i in zip(rec["systems"], range(4)):
        assert s["wins"] == wins[i].sum() and s["losses"] == wins[:, i].sum() and s["ties"] == ties[i].sum()
        assert s["votes"] == s["wins"] + s["losses"] + s["ties"]
    assert rec["win_rates"][0][0] is None and rec["battles"][0][0] == 0
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    assert "Bradley-Terry strengths" in html and "Rank (UB)" in html and "winrates-" in html
    # the same seed gives the same bytes; another seed other intervals, the same strengths
    first = (workdir.path / "out" / "results.json").read_bytes()
    assert cli("build", "--no-cache", "-o", workdir.path / "again", path).code == 0
    assert (workdir.path / "again" / "results.json").read_bytes() == first
    other = _write(workdir, rows, SPEC.replace("seed: 3", "seed: 4"))
    assert cli("build", "--no-cache", "-o", workdir.path / "other", other).code == 0
    rec2 = json.loads((workdir.path / "other" / "results.json").read_text())["analyses"][0]
    assert [s["strength"] for s in rec2["systems"]] == [s["strength"] for s in rec["systems"]]
    assert [s["ci_low"] for s in rec2["systems"]] != [s["ci_low"] for s in rec["systems"]]


def test_items_and_judges(cli, workdir):
    rows = votes(400, k=4, seed=2, items=80, judges=True)
    spec = SPEC.replace("{resamples: 200}", "{resamples: 200, ties: split}")
    r = cli("build", "--no-cache", "-o", workdir.path / "out", _write(workdir, rows, spec))
    assert r.code == 0, r.err
    rec = workdir.results()["analyses"][0]
    assert rec["unit"] == "items" and rec["n_items"] == 80 and rec["ties"] == "split" and rec["nu"] is None
    assert rec["judges"] == {"j0": 134, "j1": 133, "j2": 133}


def test_python_api_with_a_data_frame_gives_bradley_terry2s_citations_abilities():
    """The citations table of R BradleyTerry2 as one vote per citation, through sigreport.analyze: the
    strengths relative to Biometrika are BTm's (R_ABILITIES of tests/stats/test_bradley_terry.py:
    BTm(cbind(win1, win2), player1, player2, ~player, id = "player", data = countsToBinomial(citations)))."""
    import pandas as pd

    import sigreport

    journals = ["Biometrika", "Comm Statist", "JASA", "JRSS-B"]
    cited = [[714, 730, 498, 221], [33, 425, 68, 17], [320, 813, 1072, 142], [284, 276, 325, 188]]
    rows = [(journals[i], journals[j], "a") for i in range(4) for j in range(4) if i != j for _ in range(cited[i][j])]
    frame = pd.DataFrame(rows, columns=["a", "b", "winner"])
    spec = {"title": "citations", "systems": journals, "tests": {"preferences": {"ties": "split", "resamples": 99}}}
    rec, = sigreport.analyze(sigreport.load_spec(spec), preferences=frame).records
    s = np.array([x.strength for x in rec.systems])
    np.testing.assert_allclose(s - s[0], [0.0, -2.9490724968, -0.4795697698, 0.2689540558], atol=5e-9)
    assert rec.n_votes == len(rows) == 3727 and rec.n_ties == 0


def test_only_ties_need_split_ties(cli, workdir):
    rows = ["a,b,winner"] + ["s0,s1,tie", "s1,s2,tie", "s2,s0,tie"] * 4
    r = cli("validate", _write(workdir, rows))
    assert r.code == 2 and "every vote is a tie: Davidson's tie parameter has no finite estimate" in r.err
    spec = SPEC.replace("{resamples: 200}", "{resamples: 200, ties: split}")
    r = cli("build", "--no-cache", "-o", workdir.path / "out", _write(workdir, rows, spec))
    assert r.code == 0, r.err
    rec = workdir.results()["analyses"][0]
    assert [s["strength"] for s in rec["systems"]] == [0.0, 0.0, 0.0] and [s["rank_ub"] for s in rec["systems"]] == [1, 1, 1]


def test_two_systems(cli, workdir):
    rows = ["a,b,winner"] + ["x,y,a"] * 30 + ["y,x,a"] * 10 + ["x,y,tie"] * 5
    r = cli("build", "--no-cache", "-o", workdir.path / "out", _write(workdir, rows))
    assert r.code == 0, r.err
    rec = workdir.results()["analyses"][0]
    x, y = rec["systems"]
    # Davidson with two systems has a closed form: with W = 30 wins of x, L = 10, T = 5 ties, n = 45,
    # e^(s_x - s_y) = W / L and nu = T / sqrt(W L) (Davidson 1970, section 3, the two-treatment case)
    assert x["strength"] - y["strength"] == pytest.approx(np.log(3.0), abs=1e-9)
    assert rec["nu"] == pytest.approx(5 / np.sqrt(300), rel=1e-9)
    assert x["rank_ub"] == 1 and y["rank_ub"] == 2


@pytest.mark.parametrize("unit, item, want, warned", [("items", False, "battles", True), ("battles", True, "battles", False),
                                                      ("auto", True, "items", False), ("auto", False, "battles", False)])
def test_the_bootstrap_unit(cli, workdir, unit, item, want, warned):
    rows = votes(200, k=3, seed=5, items=40 if item else None)
    spec = SPEC.replace("{resamples: 200}", f"{{resamples: 200, unit: {unit}}}")
    r = cli("build", "--no-cache", "-o", workdir.path / "out", _write(workdir, rows, spec))
    assert r.code == 0, r.err
    rec = workdir.results()["analyses"][0]
    assert rec["unit"] == want
    assert bool(rec["warnings"]) == warned
    if warned:
        assert "no item column: battles were resampled" in rec["warnings"][0]


def test_the_report_tells_the_decision_models_story(cli, workdir):
    """Six systems of votes, as built: the Conclusions read the decision model's tiers, the main table (main.md,
    main.csv) gives strength, interval, Rank (UB) and Tier strongest first, the key figure is the strengths'
    leaderboard, and the settings' interval row names the bootstrap percentile intervals with their unit and B."""
    import csv
    import io

    from sigreport.results import from_json
    from sigreport.results.decisions import decide

    rows = votes(900, k=6, seed=5)
    path = _write(workdir, rows, SPEC.replace("[json, html]", "[json, html, latex]"))
    r = cli("build", "--no-cache", "-o", workdir.path / "out", path)
    assert r.code == 0, r.err
    out = workdir.path / "out"
    (dec,) = decide(from_json((out / "results.json").read_text(encoding="utf-8")))
    ranks = dec.ranks
    assert ranks is not None and len(ranks.members) > 1  # strengths 0.4 apart, 900 votes: separated tiers
    table = list(csv.DictReader(io.StringIO((out / "main.csv").read_text(encoding="utf-8"))))
    assert [row["system"] for row in table] == list(dec.order)
    assert [(int(row["Rank (UB)"]), int(row["Tier"])) for row in table] == [
        (ranks.rank_ub[s], ranks.tier[s]) for s in dec.order]
    assert "| Rank (UB) | Tier |" in (out / "main.md").read_text(encoding="utf-8")
    page = (out / "index.html").read_text(encoding="utf-8")
    first = ", ".join(ranks.members[0])
    assert f"tier 1: {first}" in page and "Chatbot Arena" in page
    assert "bootstrap percentile intervals of the Bradley-Terry strengths (200 replicates resampling votes)" in page
    assert (out / "figures" / "leaderboard-preferences-votes-bradley-terry.pdf").exists()
    key = page.split("Conclusions", 1)[1].split("</figure>", 1)[0]
    assert "leaderboard-preferences" in key or "Leaderboard of the Bradley-Terry strengths" in key
