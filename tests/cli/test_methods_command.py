"""``sigreport methods`` lists every declared method, from the declarations."""

from __future__ import annotations

import json

from conftest import run_cli

from sigreport.stats import registry
from sigreport.stats.declaration import ALL_KINDS


def test_json_lists_every_registered_method(capsys):
    code, out, err = run_cli(capsys, "methods", "--format", "json")
    assert code == 0, err
    listed = json.loads(out)["methods"]
    assert [(m["kind"], m["name"]) for m in listed] == [d.key for k in ALL_KINDS for d in registry.methods(k)] + [
        ("equivalence", "tost")]  # the equivalence tests beside a pairwise test (stats/methods/equivalence.py)
    tost = listed[-1]
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
