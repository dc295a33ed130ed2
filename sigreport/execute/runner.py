"""Run a plan's nodes in dependency order on the blocks of the dataset it is given.

The runner knows nothing of analysis kinds. It answers what it can from the cache (each node looked up
by its content key; a cached node's value is a dependency like any other) and hands the rest to an
executor, which looks each node's blocks up in the dataset (:meth:`~sigreport.plan.BlockSource.lookup`) and
calls the node's function with them, the node's parameters and its dependencies' results. An
:class:`Executor` is handed the DAG in waves (every node whose dependencies are done); a
:class:`GraphExecutor` (the process pool) is handed every node left at once and orders them itself, so
that a worker can run a chain of nodes without waiting at a wave's end (how it groups them is its own
decision: :func:`sigreport.execute.pool.batches`). Either way each value is stored in the cache as it
comes back, and progress is told node by node. Every executor
gives the same results: a node's randomness comes from the spec's seed and the node's parameters and
data (bootstrap and permutation replicates: the corpus, B and the number of items; see
``sigreport.analyses.common.RESAMPLE_CONTRACT``), never from the order or place it runs in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from sigreport.plan import BlockSource, Node, Plan, content_keys

Progress = Callable[[int, int, str], None]
Task = tuple[Node, tuple[Any, ...]]  # a node and its dependencies' results
Finished = Callable[[Node, Any], None]  # told each node's value as it comes back


def run_node(node: Node, dataset: BlockSource, deps: tuple[Any, ...]) -> Any:
    """Run one node: look its blocks up and call its function."""
    return node.fn(node.id, tuple(dataset.lookup(k) for k in node.blocks), node.params, deps)


class Store(Protocol):
    """Where results are kept between runs (a :class:`sigreport.execute.cache.Cache` or a section of it, or
    a wrapper that checks what it gives back): ``get`` gives ``(True, value)`` for a trusted entry, else
    ``(False, None)``; ``version`` names the code (part of every content key)."""

    version: str

    def get(self, key: str) -> tuple[bool, Any]: ...

    def put(self, key: str, value: Any) -> None: ...


class Executor(Protocol):
    """Runs independent nodes; ``run`` returns their results in the order given."""

    def start(self, dataset: BlockSource) -> None: ...

    def run(self, tasks: Sequence[Task], done: Callable[[Node], None]) -> list[Any]: ...

    def close(self) -> None: ...


@runtime_checkable
class GraphExecutor(Executor, Protocol):
    """An executor that schedules the nodes itself: ``run_graph`` runs ``nodes`` (in plan order; each node's
    dependencies are among them or in ``known``, the values the runner already has) and calls ``finished``
    with each node and its value once it is back, in any order, each node once."""

    def run_graph(self, nodes: Sequence[Node], known: Mapping[str, Any], finished: Finished) -> None: ...


class SerialExecutor:
    """Runs every node in this process, one after the other (BLAS held to one thread while it runs:
    :func:`sigreport.speed.blas.one_thread`)."""

    def start(self, dataset: BlockSource) -> None:
        from sigreport.speed.blas import one_thread

        self.dataset = dataset
        self._restore: Callable[[], None] | None = one_thread()

    def run(self, tasks: Sequence[Task], done: Callable[[Node], None]) -> list[Any]:
        out = []
        for node, deps in tasks:
            out.append(run_node(node, self.dataset, deps))
            done(node)
        return out

    def close(self) -> None:
        from sigreport.stats.resampling import release_workspace

        self.dataset = None  # type: ignore[assignment]
        release_workspace()  # the resampling engine's per-thread buffer, kept between nodes of this run
        restore = getattr(self, "_restore", None)
        if restore is not None:
            restore()
            self._restore = None


def waves(plan: Plan) -> list[list[Node]]:
    """The plan's nodes grouped so that each group depends only on earlier groups (plan order kept)."""
    level: dict[str, int] = {}
    for n in plan.nodes:
        level[n.id] = 1 + max((level[d] for d in n.depends_on), default=-1)
    out: list[list[Node]] = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for n in plan.nodes:
        out[level[n.id]].append(n)
    return out


def in_waves(ex: Executor, plan: Plan, todo: Sequence[Node], results: dict[str, Any],
             done: Callable[[Node], None], keep: Finished) -> None:
    """Run the nodes ``todo`` of ``plan`` on ``ex`` wave by wave (``results`` holds the values known so far;
    every wave is handed over, even one with nothing left to run, as before the cache was looked up at once)."""
    left = {n.id for n in todo}
    for wave in waves(plan):
        tasks = [(n, tuple(results.get(d) for d in n.depends_on)) for n in wave if n.id in left]
        for (node, _), value in zip(tasks, ex.run(tasks, done)):
            keep(node, value)


def run_plan(plan: Plan, dataset: BlockSource, executor: Executor | None = None,
             progress: Progress | None = None, cache: Store | None = None) -> dict[str, Any]:
    """Run every node; results keyed by node id, in plan order (nodes that return None are left out)."""
    ex = executor or SerialExecutor()
    total = len(plan.nodes)
    results: dict[str, Any] = {}
    finished = [0]

    def done(node: Node) -> None:
        finished[0] += 1
        if progress is not None:
            progress(finished[0], total, node.id)

    def keep(node: Node, value: Any) -> None:
        results[node.id] = value
        if cache is not None:
            cache.put(keys[node.id], value)

    def ran(node: Node, value: Any) -> None:
        keep(node, value)
        done(node)

    keys = content_keys(plan, dataset, cache.version) if cache is not None else {}
    if progress is not None:
        progress(0, total, "starting")
    ex.start(dataset)
    try:
        todo = []
        for node in plan.nodes:
            hit, value = cache.get(keys[node.id]) if cache is not None else (False, None)
            if hit:
                results[node.id] = value
                done(node)
            else:
                todo.append(node)
        if isinstance(ex, GraphExecutor):
            ex.run_graph(todo, dict(results), ran)
        else:
            in_waves(ex, plan, todo, results, done, keep)
    finally:
        ex.close()
    return {n.id: results[n.id] for n in plan.nodes if results.get(n.id) is not None}
