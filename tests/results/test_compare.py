"""sigreport.results.compare: what counts as the same build on another machine (golden tests, verify)."""

from __future__ import annotations

import math

import pytest

from sigreport.results.compare import RTOL, compare_documents, compare_text, strip_figures

DOC = {"alpha": 0.05, "analyses": [{"id": "a", "n": 12, "significant": True, "p": 2.542037117177846e-07,
                                    "ci": {"low": -0.5, "high": 0.25, "level": 0.95}, "note": None}]}


def with_(path_value):
    import copy
    doc = copy.deepcopy(DOC)
    *path, last = path_value[0]
    target = doc
    for key in path:
        target = target[key]
    target[last] = path_value[1]
    return doc


def test_identical_documents():
    c = compare_documents(DOC, with_((["alpha"], 0.05)))
    assert c.identical and c.equal and c.max_rel_diff == 0.0 and c.summary() == "identical"


def test_last_digits_of_a_float_are_within_tolerance():
    # the observed cross-kernel difference of the classifiers example (Zen vs Sandybridge OpenBLAS kernels)
    c = compare_documents(DOC, with_((["analyses", 0, "p"], 2.542037117177963e-07)))
    assert c.equal and not c.identical and c.floats_differ == 1
    assert 1e-14 < c.max_rel_diff < 1e-12
    assert "largest relative difference" in c.summary()


@pytest.mark.parametrize("change", [
    (["analyses", 0, "p"], 2.542037117177846e-07 * (1 + 10 * RTOL)),  # beyond the tolerance
    (["analyses", 0, "ci", "high"], 0.25 * (1 + 10 * RTOL)),
    (["analyses", 0, "significant"], False),  # a decision
    (["analyses", 0, "n"], 13),  # a count
    (["analyses", 0, "id"], "b"),  # text
    (["analyses", 0, "note"], 0.0),  # null vs a number
    (["analyses", 0, "n"], 12.0),  # an integer became a float
    (["analyses", 0, "ci", "low"], math.inf),
])
def test_what_must_match_exactly_or_beyond_tolerance_is_a_difference(change):
    c = compare_documents(DOC, with_(change))
    assert not c.equal and len(c.differences) == 1
    assert c.differences[0].startswith("$.analyses[0]." + ".".join(map(str, change[0][2:])) + ":")


def test_keys_and_lengths_are_compared():
    extra = with_((["analyses", 0, "extra"], 1))
    assert compare_documents(DOC, extra).differences == ("$.analyses[0].extra: (missing) -> 1",)
    assert compare_documents(extra, DOC).differences == ("$.analyses[0].extra: 1 -> (missing)",)
    longer = {**DOC, "analyses": DOC["analyses"] * 2}
    assert compare_documents(DOC, longer).differences == ("$.analyses (length): 1 -> 2",)


def test_zero_in_exact_arithmetic_within_the_absolute_tolerance():
    assert compare_documents({"d": 1.1e-16}, {"d": -2.2e-16}).equal
    assert not compare_documents({"d": 1e-10}, {"d": -1e-10}).equal


def test_text_numbers_may_move_one_unit_in_the_last_printed_place():
    assert compare_text("p = 0.0317 (sys-11)", "p = 0.0317 (sys-11)").identical
    c = compare_text("<td>0.0317</td><td>\u22120.25</td>", "<td>0.0318</td><td>\u22120.25</td>")
    assert c.equal and c.floats_differ == 1
    assert not compare_text("<td>0.0317</td>", "<td>0.0319</td>").equal  # two units
    assert not compare_text("<td>0.0317</td>", "<td>0.032</td>").equal  # other decimals
    assert not compare_text("n = 14", "n = 15").equal  # an integer: a count
    assert not compare_text("sys-11 beats sys-09", "sys-11 beats sys-08").equal
    assert compare_text("1.23e-07", "1.24e-07").equal and not compare_text("1.23e-07", "1.23e-08").equal


def test_text_outside_numbers_must_match():
    c = compare_text("A beats B (p = 0.01)", "B beats A (p = 0.01)")
    assert not c.equal and "text differs" in c.differences[0]
    assert not compare_text("p<sub>adj</sub> 0.01", "p 0.01").equal


def test_strip_figures_keeps_the_label_and_drops_the_drawing():
    html = ('<figure><svg width="100%" style="max-width:343.6pt" role="img" aria-label="Differences in ROUGE">'
            '<defs><path d="M 0 1 L 2 3"/></defs><g><use xlink:href="#g1"/></g></svg>'
            '<figcaption>Forest</figcaption></figure><p>2 &lt; 3</p><svg><path d="M 1"/></svg>')
    assert strip_figures(html) == ('<figure><svg aria-label="Differences in ROUGE"/><figcaption>Forest'
                                   '</figcaption></figure><p>2 &lt; 3</p><svg/>')


def test_golden_html_holds_no_matplotlib_drawing():
    from conftest import GOLDEN

    for path in GOLDEN.glob("*/index.html"):
        text = path.read_text(encoding="utf-8")
        assert "<path" not in text and "<use" not in text and "glyph" not in text.lower(), path
