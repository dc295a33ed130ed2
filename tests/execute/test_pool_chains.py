"""The process pool runs a corpus's whole chain of nodes (descriptives, pairwise and omnibus tests, post-hoc
tests) in one worker call, with no barrier between the plan's waves and no dependency sent back to a worker;
a node whose dependency lies in another batch (or in the cache) is sent that dependency; every run gives the
serial results."""

from __future__ import annotations

from typing import Any

from conftest import corpora_spec

from sigreport.api.pipeline import prepare
from sigreport.execute import run_plan
from sigreport.execute.pool import ProcessExecutor, batches
from sigreport.execute.runner import waves
from sigreport.plan import Node, Plan
from sigreport.results import to_json
from sigreport.analyses import collect_results
from sigreport.version import __version__


class Recording(ProcessExecutor):
    """The pool, with every batch it sends to a worker noted: the batch's node ids and the dependencies sent."""

    def start(self, dataset) -> None:
        super().start(dataset)
        self.sent: list[tuple[list[str], dict[str, Any]]] = []
        assert self.pool is not None
        submit = self.pool.submit

        def recorded(fn, batch, outside):
            self.sent.append(([n.id for n in batch], dict(outside)))
            return submit(fn, batch, outside)

        self.pool.submit = recorded  # type: ignore[method-assign]


def test_each_corpus_chain_runs_in_one_worker_call_and_gives_the_serial_bytes(tmp_path):
    """Eight corpora, two metrics, bootstrap, Friedman and Nemenyi: four waves, each corpus's eight nodes in one
    call with nothing sent along, and the results.json of the serial run."""
    corpora_spec(tmp_path, 5, 4, 25, "{pairwise: bootstrap, resamples: 199, omnibus: friedman, posthoc: nemenyi}")
    p = prepare(tmp_path / "spec.yaml")
    assert len(waves(p.plan)) >= 3  # a plan with barriers to remove
    ex = Recording(2)
    pooled = run_plan(p.plan, p.dataset, ex)
    chains = {c: sorted(n.id for n in p.plan.nodes if n.corpus == c) for c in {n.corpus for n in p.plan.nodes}}
    assert sorted(sorted(ids) for ids, _ in ex.sent) == sorted(chains.values())
    assert {kind for ids, _ in ex.sent for kind in (i.rsplit("/", 1)[1] for i in ids)} >= {
        "descriptives", "pairwise", "omnibus", "posthoc"}
    assert all(outside == {} for _, outside in ex.sent)  # nothing is sent back to a worker
    serial = run_plan(p.plan, p.dataset)
    spec = p.spec_file.spec
    assert to_json(collect_results(spec, p.dataset, pooled, __version__)) == \
        to_json(collect_results(spec, p.dataset, serial, __version__))


def chained(node_id: str, inputs: tuple, params: Any, deps: tuple) -> tuple:
    """A toy node: its id, its block and what its dependencies gave (so a wrong dependency shows)."""
    return (node_id, inputs, params, deps)


class Blocks:
    """A dataset whose blocks are their keys."""

    def lookup(self, key):
        return key

    def fingerprint(self, key):
        return "/".join(key)


class Store:
    """A cache in memory (every entry trusted)."""

    version = "test"

    def __init__(self):
        self.entries: dict[str, Any] = {}

    def get(self, key):
        return (True, self.entries[key]) if key in self.entries else (False, None)

    def put(self, key, value):
        self.entries[key] = value


def toy_plan() -> Plan:
    """Eight corpora with a chain a -> b each, a cross-corpus node x on every b, and then y on x and its corpus's b."""
    corpora = [f"c{c}" for c in range(8)]
    nodes = [Node(id=f"a/{c}", kind="a", metric=None, corpus=c, fn=chained, params=1, blocks=(("s", c),))
             for c in corpora]
    nodes += [Node(id=f"b/{c}", kind="b", metric=None, corpus=c, fn=chained, params=2, depends_on=(f"a/{c}",))
              for c in corpora]
    nodes.append(Node(id="x", kind="x", metric=None, corpus=None, fn=chained, params=3,
                      depends_on=tuple(f"b/{c}" for c in corpora)))
    nodes += [Node(id=f"y/{c}", kind="y", metric=None, corpus=c, fn=chained, params=4, depends_on=("x", f"b/{c}"))
              for c in corpora]
    return Plan(tuple(nodes))


def test_a_node_on_another_batchs_node_waits_for_it_and_is_sent_its_value():
    plan = toy_plan()
    grouped = batches(plan.nodes, 2)
    index = {n.id: b for b, group in enumerate(grouped) for n in group}
    assert index["a/c0"] == index["b/c0"] != index["y/c0"]  # y reads x, a batch made after c0's first
    assert all(index[d] < index[n.id] for n in plan.nodes for d in n.depends_on if index[d] != index[n.id])
    ex = Recording(2)
    serial = run_plan(plan, Blocks())
    assert run_plan(plan, Blocks(), ex) == serial
    sent = {tuple(ids): outside for ids, outside in ex.sent}
    assert sent[("y/c3",)] == {"x": serial["x"], "b/c3": serial["b/c3"]}
    assert sent[("a/c3", "b/c3")] == {}


def test_cached_nodes_are_dependencies_and_only_the_missing_nodes_run():
    """A rebuild with some entries gone runs only those nodes, taking the cached values as their dependencies."""
    plan = toy_plan()
    store = Store()
    cold = run_plan(plan, Blocks(), Recording(2), cache=store)
    assert cold == run_plan(plan, Blocks())
    from sigreport.plan import content_keys

    keys = content_keys(plan, Blocks(), store.version)
    store.entries[keys["a/c5"]] = ("cached a/c5",)  # a cached value stands in for the node (it is trusted)
    for gone in ("b/c5", "y/c5", "b/c6"):
        del store.entries[keys[gone]]
    ex = Recording(2)
    warm = run_plan(plan, Blocks(), ex, cache=store)
    assert sorted(i for ids, _ in ex.sent for i in ids) == ["b/c5", "b/c6", "y/c5"]
    assert warm["b/c5"] == ("b/c5", (), 2, (("cached a/c5",),))
    assert warm["b/c6"] == cold["b/c6"] and warm["y/c6"] == cold["y/c6"]
    assert warm["y/c5"][3] == (cold["x"], warm["b/c5"])
    progress: list[int] = []
    run_plan(plan, Blocks(), Recording(2), lambda i, total, _: progress.append(i), store)
    assert progress == list(range(len(plan.nodes) + 1))  # every node told, once, even all from the cache


def test_the_nodes_of_a_single_block_run_here_and_give_the_serial_bytes(tmp_path):
    """One metric on one corpus (a leaderboard): the block's chain runs in this process, no worker is sent
    anything (its family would travel back pickled: 33 s at 1,000 systems), and the results are the serial
    ones; with two corpora the same pool sends them to its workers."""
    from sigreport.execute.pool import worth_workers

    spec_path = corpora_spec(tmp_path, 6, 1, 30, "{pairwise: bootstrap, resamples: 199, omnibus: friedman, "
                                               "posthoc: nemenyi}", corpora=1)
    scores = tmp_path / "scores.csv"
    scores.write_text("".join(line for line in scores.read_text().splitlines(keepends=True) if ",m1," not in line))
    spec_path.write_text(spec_path.read_text().replace("  m1: {higher_is_better: true}\n", ""))
    p = prepare(spec_path)
    assert len({(n.metric, n.corpus) for n in p.plan.nodes}) == 1 and not worth_workers(p.plan.nodes)
    ex = Recording(2)
    here = run_plan(p.plan, p.dataset, ex)
    assert ex.sent == []
    spec = p.spec_file.spec
    assert to_json(collect_results(spec, p.dataset, here, __version__)) == \
        to_json(collect_results(spec, p.dataset, run_plan(p.plan, p.dataset), __version__))
    two = tmp_path / "two"
    two.mkdir()
    corpora_spec(two, 6, 2, 30, "{pairwise: bootstrap, resamples: 199, omnibus: friedman, posthoc: nemenyi}")
    p2 = prepare(two / "spec.yaml")
    ex2 = Recording(2)
    run_plan(p2.plan, p2.dataset, ex2)
    assert worth_workers(p2.plan.nodes) and ex2.sent
