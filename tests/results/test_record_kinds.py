"""One registry of analysis kinds (``records.RECORD_KINDS``): each kind's record class, read back through it, the
views keyed by its kinds; ``Record`` a keyword-only dataclass whose subclasses list their results.json fields."""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import GOLDEN

from sigreport.render.views import VIEWS
from sigreport.results import reading, records
from sigreport.results.io import from_json, to_json
from sigreport.results.records import RECORD_KINDS, RECORD_TYPES, Record, record_type


def test_record_is_a_keyword_only_frozen_dataclass_base():
    assert dataclasses.is_dataclass(Record) and Record.__dataclass_params__.frozen
    header = {f.name for f in dataclasses.fields(Record)}
    assert header == {"id", "kind", "metric", "corpus", "warnings"}
    for cls in RECORD_TYPES:
        assert issubclass(cls, Record) and cls.__dataclass_params__.frozen, cls
        assert all(f.kw_only for f in dataclasses.fields(cls)), cls


@pytest.mark.parametrize("cls", RECORD_TYPES, ids=lambda c: c.__name__)
def test_a_record_writes_exactly_the_fields_it_lists_in_its_order(cls):
    names = [f.name for f in dataclasses.fields(cls)]
    flattened = getattr(cls, "FLATTENED", ())  # a record holding its stats result writes it flattened
    own = [n for n in cls.json_fields if n not in flattened]
    held = getattr(cls, "HOLDS", ())
    assert sorted(own) == sorted(n for n in names if n not in held), "a record lists every field itself"
    assert cls.json_fields[:2] == ("id", "kind")
    for name in Record.HEADER_OPTIONAL:  # a header field the kind has no field for reads as None
        if name not in names:
            assert getattr(cls, name) is None


def test_a_header_field_a_kind_has_stays_required():
    fields = {f.name: f for f in dataclasses.fields(records.PairwiseRecord)}
    assert all(fields[n].default is dataclasses.MISSING for n in ("level", "method", "alpha", "selection"))


def test_every_kind_has_a_record_class_and_a_view():
    assert set(VIEWS) == set(RECORD_KINDS)
    assert set(RECORD_TYPES) == {c for by in RECORD_KINDS.values() for c in by.values()}
    assert all(None in by for by in RECORD_KINDS.values()), "each kind has a class for any method"


def test_reading_chooses_the_class_from_the_registry():
    assert reading.record_type is records.record_type
    assert record_type("omnibus", "friedman") is records.FriedmanRecord
    assert record_type("omnibus", "rm_anova") is records.RMAnovaRecord
    assert record_type("posthoc", "paired_t") is records.PairwiseRecord
    assert record_type("posthoc", "nemenyi") is records.PosthocRecord
    assert record_type("posthoc", ["not", "a", "name"]) is records.PosthocRecord
    assert record_type("tea_leaves", None) is None


@pytest.mark.parametrize("example", sorted(p.name for p in GOLDEN.iterdir() if (p / "results.json").is_file()))
def test_every_golden_record_reads_into_its_kinds_class_and_writes_the_same_bytes(example):
    text = (GOLDEN / example / "results.json").read_text(encoding="utf-8")
    res = from_json(text)
    assert len(res.records) == len(json.loads(text)["analyses"])
    for r in res.records:
        assert type(r) is record_type(r.kind, r.method), r.id
    assert to_json(res) == text
