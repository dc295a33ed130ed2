"""The HTML main table sorts and filters in headless Chromium (the inline script, no network), and the page read
without script (an iframe sandboxed without ``allow-scripts``) shows the same plain table with every row.
Skipped where Chromium is not installed."""

from __future__ import annotations

import re

import pytest

from conftest import CHROMIUM, chromium_measure
from sigreport.results import from_json
from sigreport.results.decisions import decide

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

# The outer page: once the iframe (scripts on, or sandboxed without them) has loaded, read the main table's first
# column, click the "Rank (UB)" head (twice: descending), filter by a word, and write it all as JSON.
PROBE = """
<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="%(src)s" style="width:%(width)dpx;height:2000px;border:0" SANDBOX></iframe><pre id="out"></pre>
<script>
document.getElementById('f').onload = () => {
  const d = document.getElementById('f').contentDocument;
  const t = d.querySelector('#main-results table');
  const col = (i) => [...t.tBodies[0].rows].filter(r => !r.hidden).map(r => r.cells[i].textContent.trim());
  const heads = [...t.tHead.rows[0].cells].map(th => th.textContent.trim());
  const rank = heads.findIndex(h => h.startsWith('Rank (UB)'));
  const out = {heads, before: col(0), boxes: d.querySelectorAll('input.filter').length,
               scripted: t.classList.contains('sortable')};
  const th = t.tHead.rows[0].cells[rank];
  th.click(); out.ascending = {names: col(0), ranks: col(rank), sort: th.getAttribute('aria-sort')};
  th.click(); out.descending = {names: col(0), ranks: col(rank), sort: th.getAttribute('aria-sort')};
  const box = d.querySelector('input.filter');
  if (box) { box.value = 'model-b'; box.dispatchEvent(new Event('input')); out.filtered = col(0); }
  document.getElementById('out').textContent = JSON.stringify(out);
};
</script></body></html>
"""


def probe(page, sandbox: str) -> dict:
    return chromium_measure(page, 1280, PROBE.replace("SANDBOX", sandbox))


def test_a_click_sorts_by_rank_and_the_box_filters(example):
    page = example("leaderboard") / "index.html"
    results = from_json((page.parent / "results.json").read_text(encoding="utf-8"))
    ranks = decide(results).blocks[0].ranks
    got = probe(page, "")
    assert got["scripted"] and got["boxes"] == 2  # the main table and the family's every-pair table
    assert got["before"] == list(results.systems)  # the table order (24 systems: no superscript letters)
    up = [int(x) for x in got["ascending"]["ranks"]]
    assert got["ascending"]["sort"] == "ascending" and up == sorted(up) and up != [ranks.rank_ub[s] for s in
                                                                                  results.systems]
    assert sorted(up) == sorted(ranks.rank_ub.values())
    # ties keep the table order (a stable sort): the rank-1 systems in the order of the page
    top = [n for n, r in zip(got["ascending"]["names"], up) if r == 1]
    assert top == [s for s in results.systems if ranks.rank_ub[s] == 1]
    down = [int(x) for x in got["descending"]["ranks"]]
    assert got["descending"]["sort"] == "descending" and down == sorted(down, reverse=True)
    assert got["filtered"] == ["model-b"]


def test_without_script_the_page_shows_the_plain_table(example):
    page = example("leaderboard") / "index.html"
    got = probe(page, 'sandbox="allow-same-origin"')  # the iframe's own scripts do not run
    assert got["boxes"] == 0 and "filtered" not in got  # no filter box: the script adds it
    assert len(got["before"]) == 24 and got["ascending"]["names"] == got["before"]  # a click does nothing
    assert got["heads"][:2] == ["System", "Rank (UB)"]


def test_the_script_is_inline_and_fetches_nothing(example):
    text = (example("leaderboard") / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b[^>]*>", text)
    assert scripts == ["<script>"]  # one inline script, no src
    body = text.split("<script>", 1)[1].split("</script>", 1)[0]
    assert not re.search(r"fetch\(|XMLHttpRequest|import\(|https?:", body)
    assert 'class="sortable"' in text
