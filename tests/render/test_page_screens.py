"""The report page as headless Chromium lays it out, at a desktop's 1280 px and a phone's 390 px (Chromium's
window is no narrower than 500 px: the page is shown in an iframe of 390 px, measured by a script in the outer
page with ``--dump-dom``). Skipped where Chromium is not installed.

* The contents list numbers its items whole at 1280 px: "10." and "11." lost their first digit, cut off by
  the sticky contents box (``overflow-y: auto``), so the list read "9.", "0.", "1.".
* At 390 px no main-table head is more than a line taller than the others: "Length ratio (summary /
  reference) ↓" wrapped word by word into seven lines and left a band of four empty lines above the other
  heads (the head drops its parenthesis there, as the LaTeX table does; the note names the metric in full).
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from conftest import CHROMIUM, CONFIGS, chromium_measure
from sigreport.cli import main

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
LINE = 20  # px: a table cell's line height on screen (style.css)

# Runs in the outer page once the iframe has loaded; writes what it measured as JSON into <pre id="out">.
PROBE = """
<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="%(src)s" style="width:%(width)dpx;height:2000px;border:0"></iframe><pre id="out"></pre>
<script>
document.getElementById('f').onload = () => {
  const d = document.getElementById('f').contentDocument, w = d.defaultView;
  const ol = d.querySelector('nav.toc ol'), out = {heads: [], toc: null};
  if (ol) {
    const probe = d.createElement('span');  // the widest marker, "11. ", in the list's own font
    probe.textContent = ol.children.length + '. ';
    probe.style.whiteSpace = 'pre';
    ol.children[0].appendChild(probe);
    out.toc = {items: ol.children.length, marker: probe.getBoundingClientRect().width,
               padding: parseFloat(w.getComputedStyle(ol).paddingLeft),
               clipped: w.getComputedStyle(ol.parentElement).overflowY !== 'visible'};
    probe.remove();
  }
  for (const th of d.querySelectorAll('#main-results thead th')) {
    const r = d.createRange(); r.selectNodeContents(th);
    out.heads.push([th.innerText, r.getBoundingClientRect().height]);
  }
  document.getElementById('out').textContent = JSON.stringify(out);
};
</script></body></html>
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("screens")
    out = {}
    for name in ("classifiers", "summarization"):
        assert main(["build", "-q", "--formats", "html", "-o", str(root / name), str(CONFIGS / f"{name}.yaml")]) == 0
        out[name] = root / name / "index.html"
    return out


def measure(page: Path, width: int) -> dict:
    """What :data:`PROBE` measures of ``page`` shown ``width`` px wide."""
    return chromium_measure(page, width, PROBE)


def test_contents_numbers_are_whole_at_1280(pages):
    toc = measure(pages["classifiers"], 1280)["toc"]
    assert toc["items"] >= 10 and toc["clipped"]  # two-digit numbers, in a box that clips its overflow
    assert toc["padding"] >= toc["marker"], toc  # the marker "11. " sits in the list's left padding


@pytest.mark.parametrize("name", ["classifiers", "summarization"])
def test_no_main_table_head_towers_over_the_others_at_390(pages, name):
    heads = measure(pages[name], 390)["heads"][1:]  # the metric heads (the first is "System")
    assert len(heads) >= 4
    heights = [h for _, h in heads]
    assert max(heights) <= statistics.median(heights) + LINE + 1, heads
