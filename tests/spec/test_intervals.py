"""One interval rule: every interval of a report is at level 1 - alpha unless tests.ci_level sets it (and
classification.ci_level, for the classification metrics alone), whatever the test; results.json carries every
interval's level; captions print it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest

from conftest import CONFIGS, CliResult, build_results

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
# a percentage followed by the words that name an interval in captions, headers and notes
TOST_FIGURE = re.compile(r'<figure[^>]*>(?:(?!</figure>).)*?-equivalence"(?:(?!</figure>).)*</figure>', re.S)
"""An HTML equivalence table (its interval is at 1 - 2 alpha by definition)."""
INTERVAL_PCT = re.compile(r"(\d+(?:\.\d+)?)\s?\\?%\s*(?:CI\b|confidence|percentile|bootstrap|Wald|\(tests|\(1\b)")


def build(cli: Callable[..., CliResult], tmp_path: Path, name: str, replace: dict[str, str], append: str = "", formats: str = "json,html,latex"
          ) -> Path:
    text = (CONFIGS / f"{name}.yaml").read_text(encoding="utf-8").replace("data/", str(CONFIGS / "data") + "/")
    for a, b in replace.items():
        assert a in text, a
        text = text.replace(a, b)
    spec = tmp_path / "spec.yaml"
    spec.write_text(text + append, encoding="utf-8")
    out = tmp_path / "out"
    build_results(cli, spec, out, formats=formats)
    return out


def levels(doc: Any, inherited: float | None = None, path: str = "") -> Iterator[tuple[str, str, float | None]]:
    """(path, key, level) for every interval of a results.json document (a ``ci_low`` or ``bootstrap_ci_low``)
    and every ``ci_level`` / ``ci_level_achieved``, with the level of the nearest object that states one."""
    if isinstance(doc, dict):
        own = doc.get("ci_level", inherited)
        for key in ("ci_level", "ci_level_achieved"):
            if key in doc:
                yield path, key, doc[key]
        for key in ("ci_low", "bootstrap_ci_low"):
            if key in doc and doc[key] is not None:
                yield path, key, own
        for k, v in doc.items():
            yield from levels(v, own, f"{path}/{doc.get('id', k)}")
    elif isinstance(doc, list):
        for v in doc:
            yield from levels(v, inherited, path)


@pytest.mark.parametrize("name", EXAMPLES)
def test_alpha_001_gives_only_99_percent_intervals(cli, tmp_path, name):
    out = build(cli, tmp_path, name, {"alpha: 0.05": "alpha: 0.01"})
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["tests"]["ci_level"] is None  # the spec's setting: none, so 1 - alpha
    found = list(levels(doc["analyses"]))
    intervals = [(p, k, v) for p, k, v in found if k in ("ci_low", "bootstrap_ci_low")]
    no_interval = {a["kind"] for a in doc["analyses"]} <= {"mcnemar", "cochran_q"}  # paired yes/no outcomes
    assert intervals or no_interval, name
    # the one exception, by definition: an equivalence (TOST) interval is at 1 - 2 alpha (metrics.M.margin)
    tost = [(p, k, v) for p, k, v in found if p.endswith("/equivalence")]
    assert all(v is not None and abs(v - 0.98) < 1e-12 for p, k, v in tost), tost[:3]
    found = [f for f in found if not f[0].endswith("/equivalence")]
    assert [(p, k, v) for p, k, v in found if k != "ci_level_achieved" and (v is None or abs(v - 0.99) > 1e-12)] == []
    assert all(v >= 0.99 for _, k, v in found if k == "ci_level_achieved")  # discrete intervals reach at least it
    shown, shown_tost = [], []
    for f in [out / "index.html", *sorted((out / "tables").glob("*.tex"))]:
        text = f.read_text(encoding="utf-8")
        if f.name.endswith("-equivalence.tex"):
            shown_tost += [m.group(1) for m in INTERVAL_PCT.finditer(text)]
            continue
        for table in TOST_FIGURE.findall(text):
            shown_tost += [m.group(1) for m in INTERVAL_PCT.finditer(table)]
        text = TOST_FIGURE.sub("", text)
        shown += [(f.name, m.group(1)) for m in INTERVAL_PCT.finditer(text)]
        assert "95%" not in text and "95\\%" not in text, f.name
    assert (shown or no_interval) and {v for _, v in shown} <= {"99"}, (name, sorted(set(shown))[:10])
    assert set(shown_tost) <= {"98"} and bool(shown_tost) == bool(tost)


def test_ci_level_sets_every_interval_and_the_paired_t_interval_is_scipys(cli, tmp_path):
    """tests.ci_level: 0.9 at alpha 0.05: 90% everywhere; the paired t interval of A - B on the three texts is
    scipy's t interval at 90% (R: t.test(A, B, paired = TRUE, conf.level = 0.9)$conf.int)."""
    from scipy import stats

    out = build(cli, tmp_path, "summarizers", {"  correction: holm": "  correction: holm\n  ci_level: 0.9"})
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {v for _, k, v in levels(doc["analyses"]) if k == "ci_level"} == {0.9}
    a, b = np.array([0.59, 0.58, 0.57]), np.array([0.39, 0.44, 0.45])  # configs/data/summarizers.csv
    d = a - b
    low, high = stats.t.interval(0.9, d.size - 1, loc=d.mean(), scale=d.std(ddof=1) / np.sqrt(d.size))
    pair = next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]
    assert (pair["ci_low"], pair["ci_high"]) == (pytest.approx(low, rel=1e-12), pytest.approx(high, rel=1e-12))
    desc = next(a for a in doc["analyses"] if a["kind"] == "descriptives")["systems"][0]
    want = stats.t.interval(0.9, 2, loc=a.mean(), scale=a.std(ddof=1) / np.sqrt(3))
    assert (desc["ci_low"], desc["ci_high"]) == (pytest.approx(want[0], rel=1e-12), pytest.approx(want[1], rel=1e-12))
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "90% (tests.ci_level) for every interval" in html and ">90%\u00a0CI<" in html  # a head: no-break space


def test_a_section_level_overrides_and_is_printed(cli, tmp_path):
    """classification.ci_level: 0.8 sets the classification metrics' intervals alone (and says so); every other
    interval follows the rule (alpha 0.05: 95%)."""
    out = build(cli, tmp_path, "classifiers", {"  resamples: 1000\n  mcnemar: auto": "  resamples: 1000\n  ci_level: 0.8\n"
                                          "  mcnemar: auto"}, formats="json,html")
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    by_kind: dict[str, set[float]] = {}
    for a in doc["analyses"]:
        if "ci_level" in a:
            by_kind.setdefault(a["kind"], set()).add(a["ci_level"])
    assert by_kind["classification"] == {0.8}
    assert by_kind["agreement"] == by_kind["descriptives"] == by_kind["pairwise"] == {0.95}
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "80% percentile bootstrap intervals over items (B = 1000); level set by classification.ci_level" in html


def test_sign_test_reports_the_nominal_level_and_the_achieved_one(cli, tmp_path):
    """The sign test's order-statistic interval asked at 99% reaches more (30 corpora: R's
    1 - 2 * pbinom(k - 1, 30, 0.5) for the largest k with pbinom(k - 1, 30, .5) <= 0.005, k = 8: 0.99478)."""
    from scipy import stats

    out = build(cli, tmp_path, "uci", {"alpha: 0.05": "alpha: 0.01"}, formats="json,html")
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    pw = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    k = max(k for k in range(1, 31) if stats.binom.cdf(k - 1, 30, 0.5) <= 0.005)
    achieved = 1 - 2 * stats.binom.cdf(k - 1, 30, 0.5)
    assert pw["ci_level"] == 0.99 and k == 8
    assert [p["ci_level_achieved"] for p in pw["pairs"]] == [pytest.approx(achieved, abs=1e-12)] * len(pw["pairs"])
    assert "at the nominal 99%; being order statistics of a discrete law, they reach 99.48% coverage" in (
        out / "index.html").read_text(encoding="utf-8")
