"""results.json is written by a one-pass writer: the same bytes as ``json.dumps(indent=2, ensure_ascii=False,
allow_nan=False)`` (the format the golden files pin), for every example and for the edge cases below."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sigreport.results.io import dumps_indented
from sigreport.stats.result import EffectSize, to_jsonable


def reference(doc: object) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)


EDGE = [
    {}, [], "", 0, -0.0, 1e-300, 1e300, 0.1, 2.5, -7, 10**30, True, False, None,
    {"a": {}, "b": [], "c": [[]], "d": [{}], "e": {"f": {"g": [1, [2, [3]]]}}},
    {"quote\"back\\slash": "tab\tnew\nline\u2028 \x00 \x1f", "ünïcode": "日本語 ✓", "emoji": "\U0001f600"},
    {1: "int key", 2.5: "float key", True: "bool key", None: "none key"},
    [1.0, -1.0, 123456789.123456789, 5e-324, float(np.float64(0.3)), (1, 2), ("t",)],
]


@pytest.mark.parametrize("doc", EDGE)
def test_same_text_as_json_dumps(doc):
    assert dumps_indented(doc) == reference(doc)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, {"x": [math.nan]}])
def test_non_finite_numbers_are_refused_as_json_dumps_does(bad):
    with pytest.raises(ValueError):
        reference(bad)
    with pytest.raises(ValueError):
        dumps_indented(bad)


def test_unknown_objects_are_refused_as_json_dumps_does():
    with pytest.raises(TypeError):
        dumps_indented({"x": object()})
    with pytest.raises(TypeError):
        dumps_indented({(1, 2): "tuple key"})


def test_to_jsonable_fast_paths_keep_the_values():
    value = {"e": EffectSize(name="d", value=np.float64(0.5), ci_low=float("nan"),
                             ci_high=None), "n": np.int64(3), "b": np.bool_(True),
             "a": np.array([1.5, np.inf]), "t": (1, "x", None, False)}
    got = to_jsonable(value)
    assert got == {"e": {"name": "d", "value": 0.5, "ci_low": None, "ci_high": None}, "n": 3, "b": True,
                   "a": [1.5, None], "t": [1, "x", None, False]}
    assert type(got["n"]) is int and type(got["b"]) is bool and type(got["e"]["value"]) is float
    assert dumps_indented(got) == reference(got)


# ---------------------------------------------------------------------------------------------------------------
# The one-pass writer (records written as to_jsonable would convert them) against the two-pass rules.
# ---------------------------------------------------------------------------------------------------------------

import dataclasses  # noqa: E402
import random  # noqa: E402
import types  # noqa: E402
from typing import Any, ClassVar  # noqa: E402

from sigreport.results.io import dumps_jsonable  # noqa: E402


@dataclasses.dataclass(frozen=True)
class _Plain:
    x: Any
    y: Any = None


@dataclasses.dataclass(frozen=True)
class _Named:
    """Named JSON fields (a property among them) and an ``extra`` mapping that follows them."""

    a: Any
    b: Any
    extra: dict = dataclasses.field(default_factory=dict)
    json_fields: ClassVar[tuple[str, ...]] = ("b", "twice", "a")

    @property
    def twice(self) -> Any:
        return [self.a, self.a]


@dataclasses.dataclass(frozen=True)
class _One:
    only: Any


@dataclasses.dataclass(frozen=True)
class _Empty:
    pass


class _Str(str):
    pass


FLOATS = [0.0, -0.0, 1e-05, 1e16, 1e-300, 1e300, 5e-324, 0.1, -2.5, 123456789.123456789, math.nan, math.inf,
          -math.inf, 1.0]
STRINGS = ["", "a", "ünïcode", "日本語 ✓", "\U0001f600", "quote\"back\\slash", "tab\tnew\nline\u2028", "\x00\x1f",
           "S0 (a)"]


def _scalar(rng: random.Random) -> Any:
    kind = rng.randrange(12)
    return [lambda: rng.choice(FLOATS), lambda: rng.uniform(-1e6, 1e6), lambda: rng.choice(STRINGS),
            lambda: rng.randrange(-10**20, 10**20), lambda: rng.choice([True, False, None]),
            lambda: np.float64(rng.choice(FLOATS)), lambda: np.int64(rng.randrange(-99, 99)),
            lambda: np.bool_(rng.random() < 0.5), lambda: np.float32(rng.choice([0.5, math.nan])),
            lambda: _Str(rng.choice(STRINGS)), lambda: rng.random(), lambda: rng.randrange(3)][kind]()


def _key(rng: random.Random, plain_only: bool) -> Any:
    if plain_only or rng.random() < 0.85:
        return rng.choice(STRINGS + ["k", "n", "a", "b", "1"])
    return rng.choice([1, 2.5, True, None, -0.0])  # str(k) of these may merge with a string key ("1")


def _doc(rng: random.Random, depth: int) -> Any:
    if depth == 0 or rng.random() < 0.3:
        return _scalar(rng)
    n = rng.randrange(4)
    kind = rng.randrange(9)
    if kind == 0:
        return [_doc(rng, depth - 1) for _ in range(n)]
    if kind == 1:
        return tuple(_doc(rng, depth - 1) for _ in range(n))
    if kind == 2:
        return {_key(rng, False): _doc(rng, depth - 1) for _ in range(n)}
    if kind == 3:
        return _Plain(_doc(rng, depth - 1), _doc(rng, depth - 1))
    if kind == 4:
        extra = {_key(rng, rng.random() < 0.7): _doc(rng, depth - 1) for _ in range(n)}
        if rng.random() < 0.3:
            extra["a"] = "an extra that a named field hides"
        return _Named(_doc(rng, depth - 1), _doc(rng, depth - 1), extra)
    if kind == 5:
        return types.SimpleNamespace(p=_doc(rng, depth - 1), q=_doc(rng, depth - 1))
    if kind == 6:
        return np.array([rng.choice(FLOATS) for _ in range(n)])
    if kind == 7:
        return rng.choice([_One(_doc(rng, depth - 1)), _Empty()])
    return {_key(rng, True): _doc(rng, depth - 1) for _ in range(n)}


@pytest.mark.parametrize("seed", range(40))
def test_one_pass_writer_matches_to_jsonable_then_json_dumps(seed):
    rng = random.Random(seed)
    for _ in range(25):
        doc = _doc(rng, 5)
        assert dumps_jsonable(doc) == reference(to_jsonable(doc)) == dumps_indented(to_jsonable(doc))


def compact_reference(doc: object) -> str:
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


@pytest.mark.parametrize("seed", range(40))
def test_compact_writer_matches_json_dumps_with_compact_separators(seed):
    """The side file's writer (one line per pair, results.io._COMPACT): the random documents above and the edge
    cases give json.dumps's compact text, converted and not."""
    from sigreport.results.io import _COMPACT

    rng = random.Random(seed)
    for _ in range(25):
        doc = _doc(rng, 5)
        assert _COMPACT.converted(doc) == compact_reference(to_jsonable(doc)) == _COMPACT.indented(to_jsonable(doc))
    for doc in EDGE:
        assert _COMPACT.indented(doc) == compact_reference(doc)


def test_one_pass_writer_refuses_what_to_jsonable_leaves_unconverted():
    with pytest.raises(TypeError):
        dumps_jsonable({"x": object()})
    with pytest.raises(TypeError):
        dumps_jsonable(_Named(1, 2, {(1, 2): "tuple key"}))


def _results(name: str):
    from conftest import CONFIGS

    from sigreport.analyses import collect_results
    from sigreport.api.pipeline import prepare
    from sigreport.execute import run_plan
    from sigreport.version import __version__

    p = prepare(CONFIGS / f"{name}.yaml")
    return collect_results(p.spec_file.spec, p.dataset, run_plan(p.plan, p.dataset), __version__)


@pytest.mark.parametrize("name", ["summarizers", "classifiers", "demsar", "cv_5x2"])
def test_results_json_is_json_dumps_of_to_dict(name):
    from sigreport.results import to_json

    res = _results(name)
    assert to_json(res) == reference(res.to_dict()) + "\n"
    # the values to_dict does not convert are still written as they are: a NaN there is refused as before
    with pytest.raises(ValueError):
        to_json(dataclasses.replace(res, alpha=math.nan))
