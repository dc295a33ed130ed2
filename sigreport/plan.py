"""The analysis DAG as data: which function runs on which data block, with which parameters, after what.

A :class:`Node` names a module-level function, its frozen parameters, the keys of the data blocks it
reads and the nodes it depends on. Nothing in a node refers to the data itself, so a plan pickles, can
be sent to another process or machine, and every node has a stable content key
(:func:`content_key`: function, parameters, block fingerprints, dependency keys, sigreport version)
for caching. This module knows no analysis kind and runs nothing (see :mod:`sigreport.execute`).
"""

from __future__ import annotations

import dataclasses
import enum
import graphlib
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

BlockKey = tuple[str, ...]


class NodeFunction(Protocol):
    """``fn(node_id, inputs, params, deps) -> record``: ``inputs`` are the looked-up blocks in the order
    of ``Node.blocks``, ``deps`` the dependencies' results in the order of ``Node.depends_on``."""

    def __call__(self, node_id: str, inputs: tuple[Any, ...], params: Any, deps: tuple[Any, ...]) -> Any: ...


@dataclasses.dataclass(frozen=True)
class Node:
    """One analysis: ``fn`` applied to the blocks ``blocks`` of a dataset with ``params``."""

    id: str
    kind: str
    metric: str | None
    corpus: str | None
    fn: NodeFunction = dataclasses.field(repr=False)
    params: Any = dataclasses.field(repr=False)
    blocks: tuple[BlockKey, ...] = ()
    depends_on: tuple[str, ...] = ()
    label: str = ""


class BlockSource(Protocol):
    """What a plan runs on: data blocks by key, and a fingerprint of each block's content."""

    def lookup(self, key: BlockKey) -> Any: ...

    def fingerprint(self, key: BlockKey) -> str: ...


@dataclasses.dataclass(frozen=True)
class Plan:
    nodes: tuple[Node, ...]  # in a valid execution order

    def describe(self) -> str:
        """Text listing of the nodes and their dependencies (``sigreport plan``)."""
        lines = [f"{len(self.nodes)} analyses"]
        for n in self.nodes:
            deps = f"  <- {', '.join(n.depends_on)}" if n.depends_on else ""
            lines.append(f"  {n.id}  [{n.kind}{': ' + n.label if n.label else ''}]{deps}")
        return "\n".join(lines)

    def by_id(self) -> dict[str, Node]:
        return {n.id: n for n in self.nodes}


def order_nodes(nodes: list[Node]) -> tuple[Node, ...]:
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
    ordered: list[Node] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=position.__getitem__)
        for node_id in ready:
            ordered.append(by_id[node_id])
            sorter.done(node_id)
    return tuple(ordered)


def canonical(obj: Any) -> Any:
    """Parameters as plain JSON data with a fixed key order (pydantic models, dataclasses, enums, tuples)."""
    if hasattr(obj, "model_dump"):
        return canonical(obj.model_dump(mode="json"))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"__type__": type(obj).__qualname__,
                **{f.name: canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, Mapping):
        return {str(k): canonical(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    if isinstance(obj, enum.Enum):
        return canonical(obj.value)
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"plan parameters must be plain data, got {type(obj).__name__}")


def function_name(fn: Callable[..., Any]) -> str:
    """``module:qualname`` of a node function (it must be importable by that name elsewhere)."""
    return f"{fn.__module__}:{fn.__qualname__}"


def content_keys(plan: Plan, source: BlockSource, version: str) -> dict[str, str]:
    """A stable sha256 content key per node: function, parameters, block fingerprints, dependency keys and
    the sigreport version. Equal keys mean equal results (the functions are deterministic)."""
    keys: dict[str, str] = {}
    prints: dict[tuple, str] = {}  # a block is read by several nodes (a metric's tests on one corpus)

    def fingerprint(k: tuple) -> str:
        if k not in prints:
            prints[k] = source.fingerprint(k)
        return prints[k]

    for n in plan.nodes:
        doc = {"fn": function_name(n.fn), "params": canonical(n.params), "id": n.id,
               "blocks": [[list(k), fingerprint(k)] for k in n.blocks],
               "deps": [keys[d] for d in n.depends_on], "version": version}
        keys[n.id] = hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return keys
