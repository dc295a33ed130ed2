"""Run a plan's nodes in dependency order on the blocks of the dataset it is given.

The runner knows nothing of analysis kinds: it looks each node's blocks up in the dataset
(:meth:`~sigreport.plan.BlockSource.lookup`), hands them with the node's parameters and its
dependencies' results to the node's function, and collects the records by node id in plan order.
Where the function runs is the executor's business (:class:`SerialExecutor` here; every executor must
give the same results, since each node's randomness comes from the seed and its id only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from sigreport.plan import BlockSource, Node, Plan

Progress = Callable[[int, int, str], None]


class Executor(Protocol):
    def run(self, node: Node, inputs: tuple[Any, ...], deps: tuple[Any, ...]) -> Any: ...


class SerialExecutor:
    """Runs every node in this process, one after the other."""

    def run(self, node: Node, inputs: tuple[Any, ...], deps: tuple[Any, ...]) -> Any:
        return node.fn(node.id, inputs, node.params, deps)


def run_plan(plan: Plan, dataset: BlockSource, executor: Executor | None = None,
             progress: Progress | None = None) -> dict[str, Any]:
    """Run every node in order; results keyed by node id, in plan order (nodes that return None are left out)."""
    ex = executor or SerialExecutor()
    results: dict[str, Any] = {}
    for i, node in enumerate(plan.nodes):
        if progress is not None:
            progress(i, len(plan.nodes), node.id)
        inputs = tuple(dataset.lookup(k) for k in node.blocks)
        deps = tuple(results.get(d) for d in node.depends_on)
        result = ex.run(node, inputs, deps)
        if result is not None:
            results[node.id] = result
    if progress is not None:
        progress(len(plan.nodes), len(plan.nodes), "done")
    return results
