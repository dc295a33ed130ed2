"""results.json read back into the typed records it was written from: every example (and variants that add the
kinds no example has: Bayesian comparisons, several runs, minimum detectable differences) survives
``to_json(from_json(x)) == x`` byte for byte, with the records of the same classes and values; older and
hand-made documents still read where the archive reads them."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import sigreport
from conftest import CONFIGS, GOLDEN
from sigreport.results import from_json, to_json
from sigreport.results.decisions import decide_document
from sigreport.results.io import from_dict
from sigreport.results.reading import DocumentShapeError, Reader
from sigreport.results.records import (AgreementPair, BayesianPair, DetectableDifference, FriedmanRecord, PairRow,
                                       PairwiseRecord, PosthocRecord, Record, RMAnovaRecord, RunPair, RunSummary,
                                       SystemClassification)
from sigreport.stats.classification import MetricValue
from sigreport.stats.omnibus import CorrectedF, FriedmanResult, ImanDavenport, RMAnovaResult, SphericityResult
from sigreport.stats.pairwise import DifferenceSummary, PairedEffectSizes
from sigreport.stats.result import EffectSize, PairedTestResult

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


def with_data(folder: Path, name: str, more: str) -> Path:
    """An example spec with its data paths absolute and ``more`` appended to its ``tests`` section (last)."""
    text = (CONFIGS / f"{name}.yaml").read_text(encoding="utf-8").replace("data/", str(CONFIGS / "data") + "/")
    spec = folder / f"{name}-variant.yaml"
    spec.write_text(text.rstrip("\n") + "\n" + more, encoding="utf-8")
    return spec


def runs(folder: Path) -> Path:
    """Three systems with several runs each and a Bayesian comparison (the runs kind of no example)."""
    rng = np.random.default_rng(4)
    item = rng.normal(0.6, 0.1, 30)
    rows = ["system,corpus,item,run,metric,value"]
    for s, shift in (("A", 0.03), ("B", 0.0), ("C", 0.01)):
        for r in range(3):
            x = item + shift + rng.normal(0, 0.01) + rng.normal(0, 0.05, 30)
            rows += [f"{s},dev,t{i},seed{r},acc,{v:.5f}" for i, v in enumerate(x)]
    (folder / "runs.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    spec = folder / "runs.yaml"
    spec.write_text("title: runs\nseed: 1\ndata: {scores: runs.csv}\nmetrics:\n  acc: {higher_is_better: true, "
                    "decimals: 3}\ntests:\n  resamples: 500\n  power: 0.8\n  bayesian:\n    rope: {acc: 0.01}\n"
                    "    samples: 2000\n", encoding="utf-8")
    return spec


VARIANTS = {
    "summarization+bayes+power": lambda d: with_data(d, "summarization", "  power: 0.8\n  bayesian:\n    rope: "
                                                     "{rouge1: 0.01}\n    samples: 2000\n"),
    "cv_5x2+bayes": lambda d: with_data(d, "cv_5x2", "  bayesian:\n    rope: {accuracy: 0.01}\n"),
    "uci+power": lambda d: with_data(d, "uci", "  power: 0.9\n"),
    "runs": runs,
}


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[str, sigreport.Results] = {}

    def get(name: str) -> sigreport.Results:
        if name not in cache:
            spec = CONFIGS / f"{name}.yaml" if name in EXAMPLES else VARIANTS[name](tmp_path_factory.mktemp("v"))
            cache[name] = sigreport.analyze(sigreport.load_spec(spec))
        return cache[name]

    return get


def as_written(record: Record) -> Record:
    """``record`` as results.json can hold it: a pair's test at its family's interval level (the level a
    discrete interval reaches is its ``ci_level_achieved``, not a field of the pair)."""
    if not isinstance(record, PairwiseRecord):
        return record
    pairs = tuple(dataclasses.replace(p, test=dataclasses.replace(p.test, ci_level=record.ci_level))
                  for p in record.pairs)
    return dataclasses.replace(record, pairs=pairs)


@pytest.mark.parametrize("name", EXAMPLES + sorted(VARIANTS))
def test_results_json_reads_back_into_the_same_records_and_bytes(analysed, name):
    results = analysed(name)
    text = to_json(results)
    back = from_json(text)
    assert to_json(back) == text
    assert [type(r) for r in back.records] == [type(r) for r in results.records]
    assert back.records == tuple(as_written(r) for r in results.records)
    assert (back.metrics, back.systems, back.corpora, back.alpha, back.seed) == (
        results.metrics, results.systems, results.corpora, results.alpha, results.seed)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir() if (p / "results.json").exists()))
def test_every_golden_results_json_round_trips_byte_for_byte(name):
    text = (GOLDEN / name / "results.json").read_text(encoding="utf-8")
    back = from_json(text)
    assert to_json(back) == text and back.unread == ()


def test_the_variants_hold_the_kinds_no_example_has(analysed):
    kinds = {r.kind for name in VARIANTS for r in analysed(name).records}
    assert {"bayesian", "runs", "cv", "omnibus", "posthoc"} <= kinds
    assert any(p.mde is not None for name in VARIANTS for r in analysed(name).records
               if isinstance(r, PairwiseRecord) for p in r.pairs)


def test_nested_results_come_back_typed(analysed):
    back = {name: from_json(to_json(analysed(name))) for name in ("summarization+bayes+power", "uci", "demsar",
                                                                   "classifiers", "runs", "cv_5x2+bayes")}
    pw = back["summarization+bayes+power"]["rouge1/cnn-dm/pairwise"]
    assert isinstance(back["summarization+bayes+power"]["rouge1/cnn-dm/bayesian"].pairs[0], BayesianPair)
    row = pw.pairs[0]
    assert isinstance(row, PairRow) and isinstance(row.test, PairedTestResult)
    assert isinstance(row.test.effect_size, EffectSize) and isinstance(row.differences, DifferenceSummary)
    assert isinstance(row.effect_sizes, PairedEffectSizes) and isinstance(row.effect_sizes.g_av, EffectSize)
    assert isinstance(row.mde, DetectableDifference) and row.mde.power == 0.8
    assert (row.test.method, row.test.alternative, row.test.ci_level) == (pw.method, pw.alternative, pw.ci_level)
    assert set(row.test.extra) == {"shapiro_pvalue", "normality_rejected"}  # paired t's method-specific fields
    anova = back["summarization+bayes+power"]["rouge1/cnn-dm/omnibus"]
    assert isinstance(anova, RMAnovaRecord) and isinstance(anova.sphericity, SphericityResult)
    assert all(isinstance(c, CorrectedF) for c in anova.corrections.values()) and len(anova.corrections) == 4
    friedman = back["demsar"]["auc/*/omnibus"]
    assert isinstance(friedman.iman_davenport, ImanDavenport)
    assert isinstance(back["uci"]["accuracy/*/posthoc"], PosthocRecord)
    sign = back["uci"]["accuracy/*/pairwise"].pairs[0]
    assert sign.test.extra["ci_level_achieved"] > 0.95 and sign.test.ci_level == 0.95
    cls = next(r for r in back["classifiers"].records if r.kind == "classification")
    assert isinstance(cls.systems[0], SystemClassification) and isinstance(cls.systems[0].metrics["mcc"], MetricValue)
    assert isinstance(cls.systems[0].confusion_matrix.matrix, tuple)
    kappa = next(r for r in back["classifiers"].records if r.kind == "agreement" and r.pairs)
    assert isinstance(kappa.pairs[0], AgreementPair)
    run = back["runs"]["acc/dev/runs"]
    assert isinstance(run.systems[0], RunSummary) and isinstance(run.pairs[0], RunPair)
    assert isinstance(run.systems[0].values, tuple) and len(run.systems[0].values) == 3
    assert isinstance(back["runs"]["acc/dev/bayesian"].pairs[0], BayesianPair)
    assert back["cv_5x2+bayes"]["accuracy/spam/bayesian"].method == "correlated_t"


def test_an_rm_anova_record_holds_its_result_and_copies_none_of_its_fields(analysed):
    built = analysed("summarization+bayes+power")["rouge1/cnn-dm/omnibus"]
    back = from_json(to_json(analysed("summarization+bayes+power")))["rouge1/cnn-dm/omnibus"]
    header = {f.name for f in dataclasses.fields(Record)} | set(Record.HEADER_OPTIONAL)
    own = {f.name for f in dataclasses.fields(RMAnovaRecord)} - header
    assert not own & {f.name for f in dataclasses.fields(RMAnovaResult)}, "a field of the result copied"
    for r in (built, back):
        assert isinstance(r, RMAnovaRecord) and isinstance(r.anova, RMAnovaResult)
        assert r.anova.warnings == () and r.anova.method == r.method  # its warnings are the record's
        assert (r.n, r.pvalue, r.sphericity, r.table) == (r.anova.n, r.anova.pvalue, r.anova.sphericity, r.anova.table)
    assert back.anova == built.anova and back.anova.ss_error is not None  # the sums of squares read from its table
    assert back.anova.sphericity_detail.pvalue_second_order == built.mauchly_pvalue_second_order


def test_a_friedman_record_holds_its_result_and_copies_none_of_its_fields(analysed):
    built = analysed("demsar")["auc/*/omnibus"]
    back = from_json(to_json(analysed("demsar")))["auc/*/omnibus"]
    header = {f.name for f in dataclasses.fields(Record)} | set(Record.HEADER_OPTIONAL)
    own = {f.name for f in dataclasses.fields(FriedmanRecord)} - header
    assert not own & {f.name for f in dataclasses.fields(FriedmanResult)}, "a field of the result copied"
    for r in (built, back):
        assert isinstance(r, FriedmanRecord) and isinstance(r.friedman, FriedmanResult)
        assert r.friedman.warnings == () and r.friedman.method == r.method  # its warnings are the record's
        assert list(r.average_ranks.values()) == list(r.friedman.average_ranks) and r.statistic == r.friedman.statistic
    assert back.friedman == built.friedman and back.systems == built.systems and len(built.systems) == built.k


def golden_doc(name: str) -> dict:
    return json.loads((GOLDEN / name / "results.json").read_text(encoding="utf-8"))


def test_a_whole_document_that_does_not_fit_names_the_field():
    doc = golden_doc("summarizers")
    broken = copy.deepcopy(doc)
    del broken["analyses"][1]["pairs"][0]["a"]
    with pytest.raises(DocumentShapeError, match=r"analyses\[1\]\.pairs\[0\]\.a: missing"):
        from_dict(broken)
    broken = copy.deepcopy(doc)
    del broken["title"]
    with pytest.raises(DocumentShapeError, match=r"^title: missing"):
        from_dict(broken)
    broken = copy.deepcopy(doc)
    broken["analyses"][0]["systems"] = {"A": 1}
    with pytest.raises(DocumentShapeError, match=r"analyses\[0\]\.systems: expected a list"):
        from_dict(broken)


def test_a_version_1_document_with_fields_and_kinds_added_later_reads_and_names_them():
    """results.json promises that later versions of schema 1 only add: a field or kind this sigreport does not
    know is skipped, named in ``Results.unread`` and in one warning; only another schema version is refused."""
    doc = golden_doc("summarizers")
    later = copy.deepcopy(doc)
    later["provenance"] = {"host": "ci"}  # top level
    later["metrics"]["rouge1_recall"]["unit"] = "%"  # in the header's metrics
    later["analyses"][0]["colour"] = "red"  # in a record
    later["analyses"][0]["systems"][0]["colour"] = "blue"  # in a record's nested object
    later["analyses"].insert(1, {"id": "x/y/tea", "kind": "tea_leaves", "leaves": 3})  # a kind
    later["analyses"][2]["pairs"][0]["new_statistic"] = 1.5  # a pair's method-specific field: kept in extra
    with pytest.warns(UserWarning, match="results.json: 5 fields and kinds this sigreport does not read") as w:
        back = from_dict(later)
    assert len(w) == 1 and "provenance" in str(w[0].message)
    assert back.unread == ("provenance", "metrics.rouge1_recall.unit", "analyses[0].colour",
                           "analyses[0].systems[0].colour", "analyses[1] (kind 'tea_leaves')")
    known = from_dict(doc)
    assert [r.id for r in back.records] == [r.id for r in known.records] and known.unread == ()
    assert back.records[0] == known.records[0]
    assert back.records[1].pairs[0].extra == {**known.records[1].pairs[0].extra, "new_statistic": 1.5}
    assert back.metrics == known.metrics
    for version in (2, 0, None, "1"):
        other = {**doc, "schema_version": version}
        with pytest.raises(ValueError, match=rf"schema_version {version!r}.*reads schema_version 1 only"):
            from_dict(other)
    with pytest.raises(ValueError, match="reads schema_version 1 only"):
        from_dict({k: v for k, v in doc.items() if k != "schema_version"})


def test_an_older_document_without_the_fields_added_later_reads():
    """Fields added after the first version have defaults: a document written before them reads whole."""
    doc = golden_doc("summarization")
    for a in doc["analyses"]:
        for p in a.get("pairs", ()):
            for later in ("differences", "effect_sizes", "mde"):
                p.pop(later, None)
        for later in ("table", "generalized_eta_squared", "mauchly_pvalue_second_order", "mauchly_p",
                      "epsilon_hf_uncapped"):
            a.pop(later, None)
    back = from_dict(doc)
    pw = back["rouge1/cnn-dm/pairwise"]
    assert pw.pairs[0].differences is None and pw.pairs[0].mde is None
    assert back["rouge1/cnn-dm/omnibus"].table == () and back["rouge1/cnn-dm/omnibus"].mauchly_p == "first_order"


def test_a_partial_document_reads_typed_with_empty_values():
    """The archive's hand-made and damaged-but-checked documents: what is missing reads as empty, unknown kinds
    and fields are left out, and the decisions read what is there."""
    reader = Reader(partial=True)
    desc = reader.record({"id": "m/c/descriptives", "kind": "descriptives",
                          "systems": [{"system": "A", "mean": 0.2}, {"system": "B", "mean": 0.1}]}, "")
    pw = reader.record({"id": "m/c/pairwise", "kind": "pairwise", "colour": "red",
                        "pairs": [{"a": "A", "b": "B", "significant": True, "estimate": 0.1, "pvalue": 0.01}]}, "")
    assert reader.record({"id": "x", "kind": "tea_leaves"}, "") is None
    assert desc.systems[0].mean == 0.2 and desc.systems[0].sd is None and desc.n_items == 0
    assert isinstance(pw, PairwiseRecord) and pw.pairs[0].test.estimate == 0.1 and pw.pairs[0].pvalue == 0.01
    assert pw.pairs[0].pvalue_adjusted is None and pw.method == "" and pw.pairs[0].test.extra == {}
    doc = {"schema_version": 1, "metrics": {"m": {"higher_is_better": True, "decimals": 2}},
           "analyses": [{"id": "m/c/descriptives", "kind": "descriptives",
                         "systems": [{"system": "A", "mean": 0.2}, {"system": "B", "mean": 0.1}]},
                        {"id": "m/c/pairwise", "kind": "pairwise", "method": "paired_t",
                         "pairs": [{"a": "A", "b": "B", "significant": True, "estimate": 0.1}]},
                        {"id": "m/c/new", "kind": "tea_leaves"}]}
    [block] = decide_document(doc)
    assert block.best == ("A",) and block.beats == {"A": frozenset({"B"})}


def test_a_partial_document_of_the_wrong_shape_reads_as_empty_where_it_is_wrong():
    reader = Reader(partial=True)
    pw = reader.record({"id": "m/c/pairwise", "kind": "pairwise", "warnings": "one warning, not a list",
                        "pairs": [{"a": "A", "b": "B", "significant": True, "differences": [1, 2]}]}, "")
    assert pw.warnings == () and pw.pairs[0].differences is None and pw.pairs[0].significant is True
    with pytest.raises(DocumentShapeError, match=r"x\.warnings: expected a list"):
        Reader().record({**golden_doc("summarizers")["analyses"][1], "warnings": "one"}, "x")
