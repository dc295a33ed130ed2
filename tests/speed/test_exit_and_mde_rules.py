"""Issue 33, items 1 and 4: work that grew with the square of a family's pairs, and the command line's exit.

* A family's minimum detectable differences (``tests.power``) asked the record's design once per pair, each
  time a scan of every pair (190 pairs: 36,100 checks per family); now once per record. The values are the
  same floats (tests/whole/test_golden.py compares the reports' bytes; here each pair against the
  one-pair rule and :func:`closed_form`).
* The console script ends without the interpreter's last garbage collection (it froze what remains), a
  third of a second of the 1M-row build; ``sigreport.cli.main`` called in-process leaves the collector alone.
"""

from __future__ import annotations

import gc
import sys
import tomllib
import types
from pathlib import Path

import numpy as np
import pytest

from conftest import CONFIGS
from sigreport import cli
from sigreport.analyses import power

ROOT = Path(__file__).resolve().parents[2]


class CountingExtra(dict):
    """A pair's ``test.extra`` that counts how often it is asked whether it has strata."""

    asked = 0

    def __contains__(self, key: object) -> bool:
        CountingExtra.asked += 1
        return super().__contains__(key)


def fake_family(k: int, strata_at: int | None = None) -> tuple[types.SimpleNamespace, types.SimpleNamespace]:
    pairs = tuple(types.SimpleNamespace(a=f"S{i}", b=f"S{j}",
                                        test=types.SimpleNamespace(extra=CountingExtra(
                                            {"strata": {}} if n == strata_at else {})))
                  for n, (i, j) in enumerate((i, j) for i in range(k) for j in range(i + 1, k)))
    rec = types.SimpleNamespace(pairs=pairs, method="paired_t")
    block = types.SimpleNamespace(cluster_codes=None, scores=np.zeros((50, k)))
    return rec, block


def test_a_familys_mde_rules_are_decided_once_not_per_pair():
    rec, block = fake_family(20)
    CountingExtra.asked = 0
    got = power.mde_methods(rec, block)
    assert got == ("noncentral_t",) * 190
    assert CountingExtra.asked <= 2 * 190  # was 190 x 190 (+190): the whole family scanned for each pair


@pytest.mark.parametrize("strata_at", [None, 7])
def test_mde_methods_agree_with_the_one_pair_rule(strata_at):
    rec, block = fake_family(6, strata_at)
    assert power.mde_methods(rec, block) == tuple(power.mde_method(rec, block, r) for r in rec.pairs)
    if strata_at is not None:
        got = power.mde_methods(rec, block)
        assert got[strata_at] == "noncentral_t_stratified" and set(got) == {"noncentral_t_stratified",
                                                                           "noncentral_t_clustered"}


@pytest.mark.parametrize("sd", [0.0, None, float("nan"), float("inf"), 1e-9, 0.137, 3.0])
@pytest.mark.parametrize("n", [1, 2, 30, 1000])
def test_the_familys_closed_form_is_each_pairs_closed_form(sd, n):
    level, target = 0.05 / 190, 0.8
    want = power.detectable(power.closed_form(sd, n, level, target, "two-sided"))
    assert power._closed_forms(n, level, target, "two-sided")(sd) == want


def run_entry(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[int, list[str]]:
    calls: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))  # not frozen for real: this is the test's process
    monkeypatch.setattr(sys, "argv", ["sigreport", *argv])
    with pytest.raises(SystemExit) as exc:
        cli.entry()
    return exc.value.code, calls


def test_the_console_script_exits_without_the_last_collection(monkeypatch, capsys):
    code, calls = run_entry(monkeypatch, ["validate", "-q", str(CONFIGS / "summarizers.yaml")])
    assert code == 0 and calls == ["freeze"]
    code, calls = run_entry(monkeypatch, ["validate", "-q", str(CONFIGS / "no-such-spec.yaml")])
    assert code == 2 and calls == ["freeze"]  # the exit code goes through unchanged


def test_the_plain_path_and_in_process_main_leave_the_collector(monkeypatch, capsys):
    monkeypatch.setenv("SIGREPORT_PLAIN", "1")
    code, calls = run_entry(monkeypatch, ["validate", "-q", str(CONFIGS / "summarizers.yaml")])
    assert code == 0 and calls == []
    monkeypatch.delenv("SIGREPORT_PLAIN")
    assert cli.main(["validate", "-q", str(CONFIGS / "summarizers.yaml")]) == 0 and calls == []


def test_the_console_script_is_entry():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["sigreport"] == "sigreport.cli:entry"
