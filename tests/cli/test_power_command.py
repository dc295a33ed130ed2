"""``sigreport power``: items (and runs) needed from a pilot's data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import CONFIGS
from sigreport.stats.power import paired_t_power, paired_t_sample_size


def test_items_needed_per_pair(cli):
    r = cli("power", CONFIGS / "summarization.yaml", "--difference", "0.01", "--metric", "rouge1", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["power"] == 0.8 and {p["metric"] for p in doc["pairs"]} == {"rouge1"}
    p = doc["pairs"][0]
    assert p["level"] == pytest.approx(0.005)  # Holm over the 10 pairs of rouge1 on cnn-dm: alpha / 10
    assert p["items_needed"] == paired_t_sample_size(0.01, p["sd"], 0.005, 0.8)
    assert p["power_now"] == pytest.approx(float(paired_t_power(0.01 / p["sd"], p["n_items"], 0.005)))
    assert p["items_needed"] > p["n_items"] and p["power_now"] < 0.8


def test_text_output_and_bad_arguments(cli):
    r = cli("power", CONFIGS / "summarizers.yaml", "--difference", "0.05")
    assert r.code == 0 and "| ROUGE" not in r.out and "| rouge1_recall | texts | A vs B | paired_t |" in r.out
    r = cli("power", CONFIGS / "summarizers.yaml", "--difference", "0.05", "--metric", "nope")
    assert r.code == 2 and "metric 'nope' is not in the spec" in r.err and "Traceback" not in r.err
    r = cli("power", CONFIGS / "summarizers.yaml", "--difference", "0")
    assert r.code == 2 and "non-zero" in r.err


def test_runs_needed(cli, workdir):
    rng = np.random.default_rng(4)
    rows = ["system,corpus,item,run,metric,value"]
    for s, shift in (("A", 0.02), ("B", 0.0)):
        for r in range(4):
            eff = rng.normal(0, 0.01)
            rows += [f"{s},c,i{i},{r},m,{0.5 + shift + eff + rng.normal(0, 0.05):.5f}" for i in range(40)]
    workdir.write("scores.csv", "\n".join(rows) + "\n")
    workdir.write("spec.yaml", "title: t\ndata:\n  scores: scores.csv\nmetrics:\n  m:\n    higher_is_better: true\n")
    r = cli("power", workdir.path / "spec.yaml", "--difference", "0.01", "--format", "json")
    assert r.code == 0, r.err
    p = json.loads(r.out)["pairs"][0]
    from sigreport.stats.power import two_sample_size
    assert p["runs_now"] == 4 and p["runs_needed"] == two_sample_size(0.01, p["runs_sd"], 0.05, 0.8)


@pytest.mark.parametrize("power", ["0.01", "0.05"])
def test_a_power_at_or_below_alpha_is_refused(cli, workdir, power):
    """tests.power and --power must lie strictly between alpha and 1: a test at level alpha already rejects
    with probability alpha when nothing differs (it was a traceback from the MDE's root search)."""
    from conftest import GOOD_DATA, GOOD_SPEC, assert_user_error
    workdir.write("scores.csv", GOOD_DATA)
    spec = workdir.write("spec.yaml", GOOD_SPEC + f"tests:\n  power: {power}\n")
    assert_user_error(cli, spec, workdir.path / "out", "power below alpha",
                      [f"tests.power (line 8): the power must lie strictly between alpha (0.05) and 1; given {power}"])
    r = cli("power", CONFIGS / "summarizers.yaml", "--difference", "0.05", "--power", power)
    assert r.code == 2 and "Traceback" not in r.err and r.out == ""
    assert f"the power must lie strictly between alpha (0.05) and 1; given {power}" in r.err
    assert len(r.err.strip().splitlines()) == 2 and "--power" in r.err.splitlines()[0]
