"""Every example's report tables as headless Chromium lays them out at a desktop's 1280 px and a phone's 390 px (one
Chromium process: a page of iframes, one per report and width, measured by its script; Chromium's window is no
narrower than 500 px, so 390 px is an iframe). Skipped where Chromium is not installed (scripts/test installs it).

* At 1280 px no cell of any table is beyond its table's visible box: a pairwise table of twelve columns was wider
  than the page's column, and its decision ("Significant") was cut off (12 of summarization's 37 tables, 8 of
  classifiers' 55 had a column cut); a box that scrolls sideways counts as cut, too.
* At 390 px the pair, the decisions and the adjusted p-values of every pairwise table are on the screen without
  scrolling: they were always off it, behind n, the estimate, its interval, the statistic, df, crit and p.

Pairwise tables are found by their rows (a pair ``a vs b`` first), decisions by their cells (yes / no on every row)
and p_adj by its head, not by anything the screen form adds, so the test reads what a reader sees.
"""

from __future__ import annotations

import pytest

from conftest import CHROMIUM, CONFIGS, chromium_probe

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
WIDTHS = (1280, 390)

# Runs in the outer page: measures each iframe once it has loaded, then writes every measure as JSON into <pre>.
PROBE = """<!DOCTYPE html><html><body style="margin:0">%(frames)s<pre id="out"></pre><script>
const frames = [...document.querySelectorAll('iframe')], out = [];
function measure(f) {
  const d = f.contentDocument, vw = d.documentElement.clientWidth, tables = [];
  for (const t of d.querySelectorAll('figure.tbl table')) {
    const box = t.closest('.scroll') || t.parentElement, b = box.getBoundingClientRect();
    const right = Math.min(b.left + box.clientWidth, vw), heads = [...t.tHead.rows[0].cells];
    const rows = [...t.tBodies[0].rows], all = [t.tHead.rows[0], ...rows];
    const pairwise = rows.length > 0 && rows.every(r => r.cells[0].querySelector('.pair'));
    const key = heads.map((h, j) => j === 0 || /p<sub>adj<\\/sub>/.test(h.innerHTML)
      || rows.every(r => r.cells[j] && /^(yes|no|\\u2014)$/.test(r.cells[j].textContent.trim())));
    const cut = new Set(), off = new Set();
    for (const r of all) for (let j = 0; j < r.cells.length; j++) {
      const c = r.cells[j].getBoundingClientRect();
      if (c.right > right + 0.5) cut.add(heads[j].textContent);
      if (pairwise && key[j] && (c.right > vw + 0.5 || c.left < -0.5)) off.add(heads[j].textContent);
    }
    tables.push({id: t.id, pairwise, keys: key.filter(k => k).length, cut: [...cut], off: [...off]});
  }
  out.push({page: f.dataset.page, width: +f.dataset.width, tables});
  if (out.length === frames.length) document.getElementById('out').textContent = JSON.stringify(out);
}
for (const f of frames) {  // an iframe may have loaded before this script ran
  const d = f.contentDocument;
  if (d && d.readyState === 'complete' && d.URL !== 'about:blank') measure(f); else f.addEventListener('load', () => measure(f));
}
</script></body></html>
"""


@pytest.fixture(scope="module")
def measured(example, tmp_path_factory) -> dict[tuple[str, int], list[dict]]:
    """(example, width) -> what :data:`PROBE` measured of each table of its report page."""
    frames = "".join(f'<iframe data-page="{name}" data-width="{w}" src="{(example(name) / "index.html").as_uri()}" '
                     f'style="display:block;border:0;width:{w}px;height:900px"></iframe>'
                     for name in EXAMPLES for w in WIDTHS)
    wrapper = tmp_path_factory.mktemp("table-screens") / "probe.html"
    wrapper.write_text(PROBE % {"frames": frames}, encoding="utf-8")
    got = chromium_probe(wrapper, max(WIDTHS) + 40, budget_ms=20000)
    return {(m["page"], m["width"]): m["tables"] for m in got}


@pytest.mark.parametrize("name", EXAMPLES)
def test_no_table_column_is_cut_at_1280(measured, name):
    tables = measured[(name, 1280)]
    assert tables
    cut = {t["id"]: t["cut"] for t in tables if t["cut"]}
    assert not cut, f"{len(cut)} of {len(tables)} tables cut at 1280 px: {cut}"


@pytest.mark.parametrize("name", EXAMPLES)
def test_pair_decision_and_p_adj_are_on_a_phone_screen(measured, name):
    pairwise = [t for t in measured[(name, 390)] if t["pairwise"]]
    off = {t["id"]: t["off"] for t in pairwise if t["off"]}
    assert not off, f"{len(off)} of {len(pairwise)} pairwise tables with these columns off a 390 px screen: {off}"


def test_every_example_has_pairwise_tables_with_decisions(measured):
    """The probe finds what it checks: pairwise tables, and in them a decision or p_adj beside the pair."""
    with_keys = [t for name in EXAMPLES for t in measured[(name, 390)] if t["pairwise"] and t["keys"] >= 2]
    assert len({t["id"] for t in with_keys}) >= 20
