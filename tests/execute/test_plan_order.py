"""The plan's DAG checks: nodes in dependency order, cycles and unknown dependencies refused."""

from __future__ import annotations

import pytest

from sigreport.plan import Node, order_nodes


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

