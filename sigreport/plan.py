"""The analysis DAG: which analyses run on which data, in which order.

``build_plan(spec, dataset)`` expands the spec into :class:`AnalysisNode` objects (one per analysis
of one metric on one corpus) whose dependencies are checked by :mod:`graphlib` before anything
runs; ``run_plan(plan, dataset)`` runs them in that order and returns frozen results.
Statistics are reached only through :mod:`sigreport.analyses`.
"""

from __future__ import annotations

import dataclasses
import graphlib
from collections.abc import Callable, Mapping
from typing import Any

from sigreport.data import Dataset
from sigreport.spec import Spec


@dataclasses.dataclass(frozen=True)
class AnalysisNode:
    """One analysis: ``run(dataset, results_of_dependencies) -> result``."""

    id: str
    kind: str
    metric: str | None
    corpus: str | None
    depends_on: tuple[str, ...]
    run: Callable[[Dataset, Mapping[str, Any]], Any] = dataclasses.field(repr=False, compare=False)
    label: str = ""


@dataclasses.dataclass(frozen=True)
class Plan:
    nodes: tuple[AnalysisNode, ...]  # in a valid execution order

    def describe(self) -> str:
        """Text listing of the nodes and their dependencies (``sigreport plan``)."""
        lines = [f"{len(self.nodes)} analyses"]
        for n in self.nodes:
            deps = f"  <- {', '.join(n.depends_on)}" if n.depends_on else ""
            lines.append(f"  {n.id}  [{n.kind}{': ' + n.label if n.label else ''}]{deps}")
        return "\n".join(lines)


def order_nodes(nodes: list[AnalysisNode]) -> tuple[AnalysisNode, ...]:
    """Topological order (stable: ties keep the order given). Raises on cycles or unknown ids."""
    by_id = {n.id: n for n in nodes}
    if len(by_id) != len(nodes):
        raise ValueError("duplicate analysis ids in plan")
    for n in nodes:
        for d in n.depends_on:
            if d not in by_id:
                raise ValueError(f"analysis {n.id} depends on unknown {d}")
    sorter = graphlib.TopologicalSorter({n.id: n.depends_on for n in nodes})
    sorter.prepare()
    position = {n.id: i for i, n in enumerate(nodes)}
    ordered: list[AnalysisNode] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        for node_id in ready:
            ordered.append(by_id[node_id])
            sorter.done(node_id)
    return tuple(ordered)


def build_plan(spec: Spec, dataset: Dataset, previous: Mapping[str, Any] | None = None) -> Plan:
    """Expand the spec into analyses (see :mod:`sigreport.analyses` for what each one computes).

    ``previous`` maps analysis ids to the previous report's results.json entries (for
    ``selection: fixed``)."""
    from sigreport import analyses

    return Plan(order_nodes(analyses.nodes_for(spec, dataset, previous)))


def run_plan(plan: Plan, dataset: Dataset, progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]:
    """Run every node in order; results keyed by node id, in plan order."""
    results: dict[str, Any] = {}
    for i, node in enumerate(plan.nodes):
        if progress is not None:
            progress(i, len(plan.nodes), node.id)
        inputs = {d: results.get(d) for d in node.depends_on}
        result = node.run(dataset, inputs)
        if result is not None:
            results[node.id] = result
    if progress is not None:
        progress(len(plan.nodes), len(plan.nodes), "done")
    return results
