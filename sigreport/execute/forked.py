"""Run independent nodes in forked worker processes that share a list of nodes out (the figure tasks).

Unlike :class:`~sigreport.execute.pool.ProcessExecutor` (a pool that lives for the whole run and gets the
dataset once), this executor forks its workers for each wave (:func:`sigreport.speed.workers.start`:
they inherit the nodes and their blocks, only results travel back), or sends the nodes with their blocks
(pickled) to workers forked and made ready ahead of their work, unless they are too large to be worth
sending (:func:`worth_sending`) (:class:`sigreport.speed.workers.Ready`:
a figure worker imports matplotlib and makes its first measurements while the build reads its data).
Results are the same bytes as the serial executor's; without ``fork``, on the plain path
(``SIGREPORT_PLAIN=1``) or for a single node, the nodes run here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sigreport.execute.runner import Task
from sigreport.plan import BlockSource, Node
from sigreport.speed import workers

Item = tuple[Node, tuple[Any, ...], tuple[Any, ...]]  # a node, its blocks, its dependencies' results


def run_item(item: Item) -> Any:
    """Call a node's function on its looked-up blocks (a module function: a ready worker is sent it by name)."""
    node, inputs, deps = item
    return node.fn(node.id, inputs, node.params, deps)


SEND_ROWS = 10_000
"""The rows (a block's ``rows``: a figure's record, its pairs) beyond which a wave's nodes are not sent to the
workers made ready ahead but run in workers forked now, which inherit them (:func:`worth_sending`)."""


def worth_sending(dataset: BlockSource, tasks: Sequence[Task]) -> bool:
    """Whether a wave's nodes go to the workers made ready ahead, pickled with their blocks: unless their
    blocks hold more than :data:`SEND_ROWS` rows in all (a block source without ``rows`` counts none).

    Why: a worker made ready ahead saves its imports and first measurements (about half a CPU-second), but
    what it is sent travels pickled both ways; a 1,000-system leaderboard's family (499,500 pairs, 277 MB
    pickled) took 12 s to send and 21 s to read back, against a fork that inherits it at once."""
    rows = getattr(dataset, "rows", None)
    return rows is None or sum(rows(k) for node, _ in tasks for k in node.blocks) <= SEND_ROWS


class ForkedExecutor:
    """Runs each wave's nodes in ``jobs`` forked workers, or in the workers ``ready`` made ready ahead.
    ``meanwhile``: work of the caller's done here once, while the first wave's workers run (a build builds
    its report's views while its figures are drawn); when it fails, the workers are stopped, not waited for."""

    def __init__(self, jobs: int, ready: workers.Ready | None = None, meanwhile: Callable[[], None] | None = None):
        self.jobs, self.ready, self.meanwhile = max(1, int(jobs)), ready, meanwhile
        self.dataset: BlockSource | None = None

    def start(self, dataset: BlockSource) -> None:
        self.dataset = dataset

    def run(self, tasks: Sequence[Task], done: Callable[[Node], None]) -> list[Any]:
        assert self.dataset is not None
        items: list[Item] = [(node, tuple(self.dataset.lookup(k) for k in node.blocks), deps) for node, deps in tasks]
        here = lambda i: run_item(items[i])  # noqa: E731 - done here, or in workers forked now
        if self.ready is not None and self.ready.size and worth_sending(self.dataset, tasks):
            waiting = self.ready.run(run_item, items, here)
        else:
            jobs = min(self.jobs, len(items))
            waiting = workers.start(here, len(items), jobs if jobs > 1 else 0)
        meanwhile, self.meanwhile = self.meanwhile, None
        if meanwhile is not None:
            try:
                meanwhile()
            except BaseException:
                waiting.cancel()
                raise
        out = waiting()
        for node, _ in tasks:
            done(node)
        return out

    def close(self) -> None:
        self.dataset = None
