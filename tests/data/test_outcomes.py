"""Paired yes/no outcomes without gold labels (data.outcomes): McNemar's test and Cochran's Q.

The worked examples are pingouin's own documented data sets, shipped inside the package
(``pingouin.read_dataset('chi2_mcnemar')``, ``pingouin.read_dataset('cochran')``); pingouin is a test-only
reference. Each expected value is written next to the call that produced it (pingouin 0.7.0, R 4.x)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pandas as pd
import pytest

import sigreport

# pingouin imports matplotlib.pyplot (through seaborn): it runs in a child process, so this test process
# (and the figure tests' check that sigreport never loads pyplot) stays as it was
pytestmark = pytest.mark.skipif(importlib.util.find_spec("pingouin") is None, reason="pingouin is not installed")


REFERENCE = """
import json, pingouin as pg
mc = pg.read_dataset('chi2_mcnemar')
co = pg.read_dataset('cochran')
_, s = pg.chi2_mcnemar(mc, 'treatment_X', 'treatment_Y')
c = pg.cochran(co, dv='Energetic', within='Time', subject='Subject')
print(json.dumps({'chi2_mcnemar': json.loads(mc.to_json(orient='split')), 'cochran': json.loads(co.to_json(orient='split')),
                  'mcnemar': s.loc['mcnemar'].to_dict(), 'Q': float(c['Q'].iloc[0]), 'p': float(c['p_unc'].iloc[0])}))
"""


@pytest.fixture(scope="module")
def pg() -> dict:
    """pingouin's shipped data sets and its McNemar and Cochran results on them, from a child process."""
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", REFERENCE], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def dataset(pg: dict, name: str) -> pd.DataFrame:
    """A data set as pingouin.read_dataset gives it."""
    return pd.DataFrame(pg[name]["data"], columns=pg[name]["columns"])


def _records(spec: dict, **frames) -> dict:
    return {r.id: r for r in sigreport.analyze(sigreport.load_spec(spec), **frames).records}


def test_mcnemar_on_pingouins_chi2_mcnemar_data(pg):
    """80 subjects, two treatments, True/False outcomes, one row per subject (wide)."""
    df = dataset(pg, "chi2_mcnemar")  # subject, treatment_X, treatment_Y (bool)
    assert df.shape == (80, 3) and df["treatment_X"].dtype == bool
    spec = {"title": "t", "data": {"outcomes": {"layout": "wide"}}, "outcomes": {"mcnemar": "chi2"}}
    pair = _records(spec, outcomes=df.set_index("subject"))["outcomes/all/mcnemar"].pairs[0]
    assert (pair.a, pair.b, pair.n, pair.n11, pair.n10, pair.n01, pair.n00) == (
        "treatment_X", "treatment_Y", 80, 12, 8, 40, 20)
    # pg.chi2_mcnemar(df, 'treatment_X', 'treatment_Y'): chi2 20.020833333333332, p_approx 7.660302094057405e-06;
    # R: mcnemar.test(matrix(c(20, 40, 8, 12), 2, byrow = TRUE)): 20.020833333333332, p 7.6603020940574173e-06
    assert pair.statistic == pytest.approx(20.020833333333332, rel=1e-14)
    assert pair.pvalue == pytest.approx(7.6603020940574173e-06, rel=1e-12)
    # correction=False (R: correct = FALSE): 21.333333333333332, p 3.8596164369284542e-06
    assert pair.statistic_uncorrected == pytest.approx(21.333333333333332, rel=1e-14)
    assert pair.pvalue_uncorrected == pytest.approx(3.8596164369284542e-06, rel=1e-12)
    stats = pg["mcnemar"]
    assert pair.statistic == pytest.approx(stats["chi2"], rel=1e-14)
    assert pair.pvalue == pytest.approx(stats["p_approx"], rel=1e-12)
    exact = _records({**spec, "outcomes": {"mcnemar": "exact"}}, outcomes=df.set_index("subject"))
    # pingouin p_exact 3.3052667092192682e-06; R: binom.test(8, 48)$p.value 3.305266709219278e-06
    assert exact["outcomes/all/mcnemar"].pairs[0].pvalue == pytest.approx(3.305266709219278e-06, rel=1e-12)


def test_cochran_q_on_pingouins_cochran_data(pg, tmp_path):
    """20 subjects rated energetic (1/0) on three days, long table with its own column names, from a file."""
    df = dataset(pg, "cochran")  # Subject, Time, Energetic
    df.to_csv(tmp_path / "energy.csv", index=False)
    spec = {"title": "t", "data": {"outcomes": "energy.csv",
                                   "outcome_columns": {"system": "Time", "item": "Subject", "value": "Energetic"}},
            "corpora": ["energy"]}
    got = {r.id: r for r in sigreport.analyze(sigreport.load_spec(spec, base_dir=tmp_path)).records}
    q = got["outcomes/energy/cochran_q"]
    # pg.cochran(df, dv='Energetic', within='Time', subject='Subject'): Q 6.705882352941177, p 0.034981316424350116
    assert (q.n, q.k, q.df) == (20, 3, 2)
    assert q.statistic == pytest.approx(6.705882352941177, rel=1e-14)
    assert q.pvalue == pytest.approx(0.034981316424350116, rel=1e-12)
    assert (q.statistic, q.pvalue) == pytest.approx((pg["Q"], pg["p"]), rel=1e-12)
    assert got["outcomes/energy/mcnemar"].after == "cochran_q" and len(got["outcomes/energy/mcnemar"].pairs) == 3


def test_outcome_mistakes(tmp_path):
    (tmp_path / "o.csv").write_text("system,item,value\nA,1,yes\nB,1,no\nA,2,maybe\nB,2,1\n")
    spec = sigreport.load_spec({"title": "t", "data": {"outcomes": "o.csv"}}, base_dir=tmp_path)
    with pytest.raises(sigreport.DataError) as info:
        sigreport.analyze(spec)
    assert "column 'value' at line 4: 'maybe' is not a yes/no outcome" in info.value.problems[0].message
    (tmp_path / "o.csv").write_text("system,item,value\nA,1,yes\nB,1,no\nA,2,no\n")
    with pytest.raises(sigreport.DataError, match="B lacks item '2' that another system has"):
        sigreport.analyze(spec)
    with pytest.raises(sigreport.SpecError, match="outcomes needs data.outcomes"):
        sigreport.analyze({"title": "t", "data": {"annotations": "a.csv"}, "outcomes": {}})
