"""Plans are data: they pickle, run the same after a round trip, and every node has a stable content key
that changes exactly when its function, parameters, data or dependencies change."""

from __future__ import annotations

import pickle

from conftest import CONFIGS

from sigreport.version import __version__
from sigreport.api.pipeline import prepare
from sigreport.execute import run_plan
from sigreport.plan import content_keys
from sigreport.results import to_json
from sigreport.analyses import collect_results


def _json(p, results) -> str:
    return to_json(collect_results(p.spec_file.spec, p.dataset, results, __version__))


def test_plan_pickles_and_round_trips_to_the_same_results():
    for name in ("summarizers", "classifiers", "demsar"):
        p = prepare(CONFIGS / f"{name}.yaml")
        plan2 = pickle.loads(pickle.dumps(p.plan))
        assert [n.id for n in plan2.nodes] == [n.id for n in p.plan.nodes]
        assert _json(p, run_plan(plan2, p.dataset)) == _json(p, run_plan(p.plan, p.dataset)), name


def test_content_keys_are_stable_and_follow_the_data(tmp_path):
    p = prepare(CONFIGS / "summarization.yaml")
    keys = content_keys(p.plan, p.dataset, __version__)
    assert keys == content_keys(prepare(CONFIGS / "summarization.yaml").plan, p.dataset, __version__)
    assert len(set(keys.values())) == len(keys)
    # change one metric's data: only that metric's nodes get new keys
    src = (CONFIGS / "summarization.yaml").read_text()
    data = (CONFIGS / "data" / "summarization.csv").read_text().splitlines()
    header = data[0].split(",")
    col = {c: i for i, c in enumerate(header)}
    metric = data[1].split(",")[col["metric"]]
    row = data[1].split(",")
    row[col["value"]] = str(float(row[col["value"]]) + 0.001)
    data[1] = ",".join(row)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "summarization.csv").write_text("\n".join(data) + "\n")
    (tmp_path / "summarization.yaml").write_text(src)
    p2 = prepare(tmp_path / "summarization.yaml")
    keys2 = content_keys(p2.plan, p2.dataset, __version__)
    changed = {i for i in keys if keys[i] != keys2[i]}
    assert changed and all(i.startswith(f"{metric}/") for i in changed), changed
    assert keys != content_keys(p.plan, p.dataset, "another-version")


def test_block_fingerprints_hash_names_as_one_update_with_the_same_bytes():
    """data.model._digest feeds a tuple of names in one update: the digest equals feeding them one by one
    (the cache keys of earlier builds stay valid), and still follows every name."""
    import hashlib

    from sigreport.data.model import _digest

    def one_by_one(h, obj):  # the general loop, for a tuple of str
        h.update(f"[{len(obj)}".encode())
        for v in obj:
            h.update(repr(v).encode())

    for names in [(), ("a",), tuple(f"item {i}'\"\\" for i in range(1000)), ("x", "é", "中")]:
        fast, slow = hashlib.sha256(), hashlib.sha256()
        _digest(fast, names)
        one_by_one(slow, names)
        assert fast.hexdigest() == slow.hexdigest()
    a, b = hashlib.sha256(), hashlib.sha256()
    _digest(a, ("ab", "c"))
    _digest(b, ("a", "bc"))
    assert a.hexdigest() != b.hexdigest()  # repr quotes keep the boundaries
