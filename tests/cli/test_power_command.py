"""``sigreport power``: items (and runs) needed from a pilot's data."""

from __future__ import annotations

import json
import re

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
    # a Markdown table: names escaped as main.md escapes them (render.markdown.MarkdownCells)
    assert r.code == 0 and "| ROUGE" not in r.out and "| rouge1\\_recall | texts | A vs B | paired\\_t |" in r.out
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


def pilot(workdir, a: list[float], b: list[float], extra: str = "", names: tuple[str, str] = ("A", "B")):
    """spec.yaml and scores.csv of a pilot of two systems on len(a) items; the spec's path."""
    rows = ["system,corpus,item,metric,value"]
    rows += [f"\"{names[0]}\",c,i{i},m,{float(v)!r}" for i, v in enumerate(a)]
    rows += [f"\"{names[1]}\",c,i{i},m,{float(v)!r}" for i, v in enumerate(b)]
    workdir.write("scores.csv", "\n".join(rows) + "\n")
    return workdir.write("spec.yaml", "title: t\ndata:\n  scores: scores.csv\nmetrics:\n  m:\n    higher_is_better: true\n"
                         + extra)


def strict_json(text: str) -> dict:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_differences_equal_up_to_rounding_do_not_vary(cli, workdir):
    """0.3 - 0.1, 0.5 - 0.3, 0.7 - 0.5, ... are 0.2 in decimal and differ in the 17th digit (SD ~ 1e-17): the
    power was NaN, with no note, and --format json wrote NaN."""
    a = [0.3, 0.5, 0.7, 0.9, 1.1, 1.3]
    b = [0.1, 0.3, 0.5, 0.7, 0.9, 1.1]
    d = np.array(a) - np.array(b)
    assert 0 < d.std(ddof=1) < 1e-15  # the floats really differ
    spec = pilot(workdir, a, b)
    r = cli("power", spec, "--difference", "0.01", "--format", "json")
    assert r.code == 0, r.err
    p = strict_json(r.out)["pairs"][0]
    assert p["power_now"] is None and p["items_needed"] is None and "the differences do not vary" in p["note"]
    r = cli("power", spec, "--difference", "0.01")
    assert r.code == 0 and "Note: the differences do not vary" in r.out and "nan" not in r.out.lower()


def test_an_enormous_difference_needs_two_items(cli):
    r = cli("power", CONFIGS / "summarizers.yaml", "--difference", "1e300", "--format", "json")
    assert r.code == 0, r.err
    p = strict_json(r.out)["pairs"][0]
    assert p["items_needed"] == 2 and p["power_now"] == 1.0 and p["note"] == ""


def test_a_one_item_pilot_has_too_few_items(cli, workdir):
    r = cli("power", pilot(workdir, [0.6], [0.4]), "--difference", "0.1", "--format", "json")
    assert r.code == 0, r.err
    p = strict_json(r.out)["pairs"][0]
    assert p["items_needed"] is None and p["note"].startswith("fewer than 2 items") and "vary" not in p["note"]


def test_one_sided_alternative_gives_one_sided_counts(cli, workdir):
    """tests.alternative greater: the one-sided noncentral t (paired_t_sample_size(..., 'greater'), tested
    against R's power.t.test(alternative = 'one.sided') in tests/stats/test_power.py); a difference of the
    other sign gets a note, no count."""
    rng = np.random.default_rng(19)
    a = list(np.round(rng.normal(0.5, 0.1, 30), 4))
    b = list(np.round(np.array(a) - rng.normal(0.01, 0.05, 30), 4))
    spec = pilot(workdir, a, b, "tests:\n  alternative: greater\n")
    doc = strict_json(cli("power", spec, "--difference", "0.02", "--format", "json").out)
    p = doc["pairs"][0]
    assert doc["alternative"] == "greater"
    assert p["items_needed"] == paired_t_sample_size(0.02, p["sd"], 0.05, 0.8, "greater")
    assert p["items_needed"] < paired_t_sample_size(0.02, p["sd"], 0.05, 0.8, "two-sided")
    assert p["power_now"] == pytest.approx(float(paired_t_power(0.02 / p["sd"], 30, 0.05, "greater")), rel=1e-12)
    p = strict_json(cli("power", spec, "--difference", "-0.02", "--format", "json").out)["pairs"][0]
    assert p["items_needed"] is None and p["power_now"] is None and "points against tests.alternative greater" in p["note"]
    spec = pilot(workdir, a, b, "tests:\n  alternative: less\n")
    p = strict_json(cli("power", spec, "--difference", "-0.02", "--format", "json").out)["pairs"][0]
    assert p["items_needed"] == paired_t_sample_size(-0.02, p["sd"], 0.05, 0.8, "less")
    r = cli("power", spec, "--difference", "0.02")
    assert r.code == 0 and "one-sided: H1 a - b < 0" in r.out and "points against tests.alternative less" in r.out


def test_markdown_table_escapes_names(cli, workdir):
    """A '|' in a system's name split its row into an extra column."""
    spec = pilot(workdir, [0.5, 0.6, 0.7], [0.4, 0.6, 0.5], names=("A|x", "B*"))
    r = cli("power", spec, "--difference", "0.05")
    assert r.code == 0, r.err
    table = [line for line in r.out.splitlines() if line.startswith("|")]
    cells = [len(re.findall(r"(?<!\\)\|", line)) for line in table]
    assert len(set(cells)) == 1 and "| A\\|x vs B\\* |" in r.out


def test_a_summary_line_per_metric_first(cli):
    """The answer first: per metric, the items with which every pair reaches the power (the largest of its pairs'
    counts, from the table below it)."""
    r = cli("power", CONFIGS / "summarization.yaml", "--difference", "rouge1=0.01", "--difference", "rougeL=0.02")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].startswith("Summary: items needed for the stated difference, per metric")
    doc = json.loads(cli("power", CONFIGS / "summarization.yaml", "--difference", "rouge1=0.01", "--difference",
                         "rougeL=0.02", "--format", "json").out)
    assert {p["metric"] for p in doc["pairs"]} == {"rouge1", "rougeL"} and doc["difference"] is None
    assert doc["differences"] == {"rouge1": 0.01, "rougeL": 0.02}
    for s in doc["summary"]:
        pairs = [p for p in doc["pairs"] if p["metric"] == s["metric"]]
        assert {p["difference"] for p in pairs} == {s["difference"]}
        assert s["items_needed"] == max(p["items_needed"] for p in pairs if p["items_needed"] is not None)
        assert s["pairs"] == len(pairs)
        assert f"- {s['metric']} (difference {s['difference']:g}): {s['items_needed']:,} items" in r.out
    assert lines[1].startswith("- rouge1 (difference 0.01)") and lines[2].startswith("- rougeL (difference 0.02)")


def test_a_difference_per_metric_by_key_or_label(cli):
    """``--difference METRIC=D`` by the metric's key or its label (metrics.M.label); D alone applies to every
    metric without its own; an unknown metric suggests the closest name."""
    from sigreport.spec import load_spec
    spec = load_spec(CONFIGS / "summarization.yaml").spec
    label = spec.metrics["rouge1"].label
    assert label and label != "rouge1"
    by_label = json.loads(cli("power", CONFIGS / "summarization.yaml", "--difference", f"{label}=0.01",
                              "--format", "json").out)
    by_key = json.loads(cli("power", CONFIGS / "summarization.yaml", "--difference", "rouge1=0.01",
                            "--format", "json").out)
    assert by_label == by_key and {p["metric"] for p in by_key["pairs"]} == {"rouge1"}
    only = json.loads(cli("power", CONFIGS / "summarization.yaml", "--difference", "0.01", "--metric", label,
                          "--format", "json").out)
    assert only["pairs"] == by_key["pairs"]  # --metric by label too
    mixed = json.loads(cli("power", CONFIGS / "summarization.yaml", "--difference", "0.05", "--difference",
                           "rouge1=0.01", "--format", "json").out)
    d = {p["metric"]: p["difference"] for p in mixed["pairs"]}
    assert d["rouge1"] == 0.01 and set(d.values()) == {0.01, 0.05} and len(d) == len(spec.metrics)
    r = cli("power", CONFIGS / "summarization.yaml", "--difference", "rouge_1=0.01")
    assert r.code == 2 and "metric 'rouge_1' is not in the spec (did you mean 'rouge1'?)" in r.err
    r = cli("power", CONFIGS / "summarization.yaml", "--difference", "rouge1=abc")
    assert r.code == 2 and "give D or METRIC=D" in r.err and "Traceback" not in r.err
    r = cli("power", CONFIGS / "summarization.yaml", "--difference", "rouge1=0.01", "--difference", "rouge1=0.02")
    assert r.code == 2 and "two differences for 'rouge1'" in r.err
