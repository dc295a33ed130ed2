"""``sigreport methods`` lists every declared method, from the declarations."""

from __future__ import annotations

import json

from conftest import run_cli

from sigreport.stats import proportion, registry
from sigreport.stats.declaration import ALL_KINDS


def test_json_lists_every_registered_method(capsys):
    code, out, err = run_cli(capsys, "methods", "--format", "json")
    assert code == 0, err
    listed = json.loads(out)["methods"]
    assert [(m["kind"], m["name"]) for m in listed] == [d.key for k in ALL_KINDS for d in registry.methods(k)] + [
        ("equivalence", "tost")] + [  # the equivalence tests beside a pairwise test (stats/methods/equivalence.py)
        ("proportion_interval", d.name) for d in proportion.INTERVALS] + [  # a binary metric's systems and pairs
        ("paired_proportion_interval", "newcombe_paired")]
    tost = next(m for m in listed if m["name"] == "tost")
    assert tost["applies"] == ["paired_t"] and [r["cite"] for r in tost["references"]] == [
        "Schuirmann 1987", "Lakens 2017", "Wellek 2010"]
    wilcoxon = next(m for m in listed if m["name"] == "wilcoxon")
    assert wilcoxon["display"] == "Wilcoxon signed-ranks test" and wilcoxon["origin"] == "built-in"
    assert set(wilcoxon["options"]) == {"tests.zero_method", "tests.wilcoxon", "tests.continuity_correction"}
    assert wilcoxon["applies"] == ["item_mean"] and wilcoxon["mde"] == "simulation"
    assert wilcoxon["references"][0]["cite"] == "Wilcoxon 1945"
    assert next(m for m in listed if m["name"] == "5x2cv_t")["mde"].startswith("none: ")


def test_text_names_each_method_with_its_references(capsys):
    code, out, _ = run_cli(capsys, "methods")
    assert code == 0
    for d in (d for k in ALL_KINDS for d in registry.methods(k)):
        assert f"{d.kind} {d.name}: {d.display} (" in out
    assert "Frank Wilcoxon. Individual comparisons by ranking methods." in out


def test_proportion_intervals_listed_with_where_they_apply(capsys):
    """The proportion intervals and Newcombe's paired interval come from their declarations
    (sigreport.stats.proportion.INTERVALS, APPLIES, NEWCOMBE), the clustered variant named with its reference."""
    code, out, err = run_cli(capsys, "methods", "--format", "json")
    assert code == 0, err
    listed = {(m["kind"], m["name"]): m for m in json.loads(out)["methods"]}
    wilson = listed[("proportion_interval", "wilson")]
    assert wilson["options"] == {"tests.proportion_ci": "wilson (the default)"}
    assert wilson["applies"] == list(proportion.APPLIES)
    assert any(a.startswith("clustered_items: on Korn and Graubard's effective n") for a in wilson["applies"])
    assert [r["cite"] for r in wilson["references"]] == ["Wilson 1927", "Korn and Graubard 1998"]
    assert listed[("proportion_interval", "wald")]["options"] == {"tests.proportion_ci": "wald"}
    newcombe = listed[("paired_proportion_interval", "newcombe_paired")]
    assert newcombe["display"] == proportion.NEWCOMBE.display
    assert any(a.startswith("not: clustered_items") for a in newcombe["applies"])
    assert newcombe["references"][0]["cite"] == "Newcombe 1998"
    code, text, _ = run_cli(capsys, "methods")
    assert "proportion_interval clopper_pearson: Clopper-Pearson exact interval (built-in)" in text
