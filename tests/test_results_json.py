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
    value = {"e": EffectSize("d", np.float64(0.5), float("nan"), None), "n": np.int64(3), "b": np.bool_(True),
             "a": np.array([1.5, np.inf]), "t": (1, "x", None, False)}
    got = to_jsonable(value)
    assert got == {"e": {"name": "d", "value": 0.5, "ci_low": None, "ci_high": None}, "n": 3, "b": True,
                   "a": [1.5, None], "t": [1, "x", None, False]}
    assert type(got["n"]) is int and type(got["b"]) is bool and type(got["e"]["value"]) is float
    assert dumps_indented(got) == reference(got)
