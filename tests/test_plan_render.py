"""The plan's DAG checks and the PDF renderer's refusal to fetch anything."""

from __future__ import annotations

import pytest

from sigreport.plan import Node, order_nodes
from sigreport.render.pdf import FetchRefused, refuse_fetch, render_pdf


def _nothing(node_id, inputs, params, deps):
    return None


def _node(i: str, *deps: str) -> Node:
    return Node(i, "k", None, None, _nothing, None, (), deps)


def test_order_respects_dependencies_and_keeps_given_order():
    nodes = [_node("c", "b"), _node("a"), _node("b", "a"), _node("d")]
    assert [n.id for n in order_nodes(nodes)] == ["a", "d", "b", "c"]


def test_cycles_and_unknown_dependencies_are_refused():
    import graphlib

    with pytest.raises(graphlib.CycleError):
        order_nodes([_node("a", "b"), _node("b", "a")])
    with pytest.raises(ValueError, match="unknown"):
        order_nodes([_node("a", "zzz")])


def test_pdf_fetches_nothing(tmp_path):
    with pytest.raises(FetchRefused):
        refuse_fetch("http://example.com/logo.png")
    html = ('<html><body><h1>x</h1><img src="http://example.com/a.png"><img src="file:///etc/hostname">'
            '<link rel="stylesheet" href="https://example.com/s.css"></body></html>')
    render_pdf(html, tmp_path / "r.pdf")
    assert (tmp_path / "r.pdf").read_bytes()[:5] == b"%PDF-"
