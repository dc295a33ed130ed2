"""Notebook displays (issue 32, item 14): ``sigreport.analyze(...)`` results, a block's decisions and a built report
show as the report's own main table and key figure (``_repr_html_``: the report model and escaping of the HTML
report, nothing fetched), and ``Report.open()`` opens index.html."""

from __future__ import annotations

import re

import pandas as pd
import pytest

import sigreport
from conftest import CONFIGS
from sigreport.results.decisions import decide

HOSTILE = "<script>alert(1)</script>"


def scores_with(names: tuple[str, ...]) -> pd.DataFrame:
    """Three systems on 12 items, the first clearly best (so the key figure and the main table's marks exist)."""
    rows = []
    for k, s in enumerate(names):
        for i in range(12):
            rows.append({"system": s, "corpus": "c", "item": f"i{i}", "metric": "m",
                         "value": 0.5 + 0.1 * (k == 0) + 0.01 * ((i * 7 + k * 3) % 5)})
    return pd.DataFrame(rows)


SPEC = {"title": "Notebook <b>test</b>", "metrics": {"m": {"higher_is_better": True}}}


@pytest.fixture(scope="module")
def hostile():
    return sigreport.analyze(SPEC, scores=scores_with((HOSTILE, "B", "C & D")))


def test_results_show_the_main_table_and_key_figure(hostile):
    html = hostile._repr_html_()
    assert '<table id="tab-main"' in html and '<figure class="fig key"' in html and "<svg" in html
    assert "http" not in html  # no external URL, and not even the SVG namespace names (an HTML parser adds them)
    assert not re.search(r"""(src|href)=["'](?!#|data:)""", html)  # nothing to fetch: links are in-page anchors


def test_names_are_escaped_as_in_the_report(hostile):
    html = hostile._repr_html_()
    assert "<script" not in html.lower() and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "C &amp; D" in html and "Notebook &lt;b&gt;test&lt;/b&gt;" in html
    block = decide(hostile).get("m", "c")
    shown = block._repr_html_()
    assert "<script" not in shown.lower() and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert '<table id="tab-decisions-m-c"' in shown
    first = re.search(r"<tbody>\s*<tr[^>]*>(.*?)</tr>", shown, re.S).group(1)
    assert "&lt;script&gt;" in first and ">1<" in first  # the best system first, rank 1
    assert decide(hostile)._repr_html_().count('<table id="tab-decisions-') == len(decide(hostile))


def test_a_built_report_shows_and_opens(tmp_path, monkeypatch):
    report = sigreport.build(CONFIGS / "summarizers.yaml", tmp_path / "out", formats=["html", "json"])
    html = report._repr_html_()
    index = (tmp_path / "out" / "index.html").resolve()
    assert '<table id="tab-main"' in html and f'href="{index.as_uri()}"' in html
    assert "http" not in html
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **k: opened.append(url) or True)
    assert report.open() is True and opened == [index.as_uri()] and opened[0].startswith("file://")


def test_a_report_without_html_cannot_open(tmp_path):
    report = sigreport.build(CONFIGS / "summarizers.yaml", tmp_path / "out", formats=["json"])
    assert '<table id="tab-main"' in report._repr_html_()
    with pytest.raises(FileNotFoundError, match="built without html"):
        report.open()
