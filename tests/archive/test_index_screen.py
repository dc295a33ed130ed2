"""The archive index as headless Chromium lays it out at a phone's 390 px (in a 390-px iframe: Chromium's window
is no narrower than 500 px; as tests/render/test_page_screens.py) and a desktop's 1280 px. Skipped where
Chromium is not installed.

At 390 px the releases table's five columns wrapped the title and the best systems word by word (a title of
seven words on seven lines) inside a sideways-scrolling box: under 600 px each release is now a block, each
cell a full-width line under its column's name, and the page does not scroll sideways.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CHROMIUM, chromium_measure
from sigreport.cli import main

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

SPEC = """title: Summarizers on the news corpus, three systems compared release by release
seed: 0
data:
  scores: data/scores.csv
metrics:
  rouge_l:
    label: ROUGE-L
    higher_is_better: true
    decimals: 4
tests:
  pairwise: auto
  correction: holm
  omnibus: none
  posthoc: none
outputs:
  formats: [html, json]
"""

# Runs in the outer page once the iframe has loaded; writes what it measured as JSON into <pre id="out">.
PROBE = """
<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="%(src)s" style="width:%(width)dpx;height:2000px;border:0"></iframe><pre id="out"></pre>
<script>
document.getElementById('f').onload = () => {
  const d = document.getElementById('f').contentDocument, t = d.querySelector('table.releases');
  const cells = [...t.querySelectorAll('tbody td')].map(td => ({
    text: td.innerText.slice(0, 40), width: td.getBoundingClientRect().width,
    overflow: td.scrollWidth - td.clientWidth}));
  document.getElementById('out').textContent = JSON.stringify({
    page: d.documentElement.scrollWidth - d.documentElement.clientWidth,
    table: t.getBoundingClientRect().width, box: t.parentElement.clientWidth, cells: cells});
};
</script></body></html>
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    """An archive of two releases of three systems on two corpora (long names, as real ones are)."""
    root = tmp_path_factory.mktemp("index-screen")
    (root / "data").mkdir()
    (root / "spec.yaml").write_text(SPEC, encoding="utf-8")
    rows = ["system,corpus,item,metric,value"]
    for k, s in enumerate(("baseline-transformer", "pointer-generator", "bart-large-cnn")):
        rows += [f"{s},{c},i{i},rouge_l,{0.3 + 0.02 * k + 0.01 * ((i * 7 + k) % 5):.4f}"
                 for c in ("news", "dialogue") for i in range(12)]
    (root / "data" / "scores.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for n in (1, 2):
        assert main(["build", str(root / "spec.yaml"), "--release", f"v{n}", "-q"]) == 0
    return root / "reports" / "index.html"


def measure(page: Path, width: int) -> dict:
    return chromium_measure(page, width, PROBE)


def test_index_at_390px_stacks_the_releases_table(index):
    """Every cell is a line as wide as the table (no word-by-word column), the table fits its box, nothing
    overflows a cell and the page does not scroll sideways."""
    m = measure(index, 390)
    assert m["page"] <= 0, m["page"]
    assert m["table"] <= m["box"] + 1, (m["table"], m["box"])
    narrow = [c for c in m["cells"] if c["width"] < 0.95 * m["table"] or c["overflow"] > 1]
    assert m["cells"] and not narrow, narrow


def test_index_at_1280px_keeps_the_table(index):
    """On a desktop the releases stay a table: a release's five cells side by side."""
    m = measure(index, 1280)
    assert m["page"] <= 0 and all(c["width"] < 0.5 * m["table"] for c in m["cells"]), m
