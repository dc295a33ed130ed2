"""The serial executor runs nodes with BLAS on one thread and gives the caller's thread count back after."""

from __future__ import annotations

from typing import Any

from threadpoolctl import threadpool_info, threadpool_limits

from sigreport.execute import run_plan
from sigreport.plan import Node, Plan


def _blas_threads() -> list[int]:
    return [int(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas"]


def _seen(node_id: str, inputs: tuple[Any, ...], params: Any, deps: tuple[Any, ...]) -> list[int]:
    return _blas_threads()


class _NoBlocks:
    def lookup(self, key: Any) -> Any:  # the node reads no block
        raise KeyError(key)


def test_nodes_run_on_one_blas_thread_and_the_count_is_restored() -> None:
    import numpy  # noqa: F401  (loads the BLAS library threadpoolctl inspects)

    plan = Plan((Node("n", "test", None, None, _seen, None),))
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        inside = run_plan(plan, _NoBlocks())["n"]  # type: ignore[arg-type]
        after = _blas_threads()
    assert inside and all(t == 1 for t in inside)
    assert after == before
