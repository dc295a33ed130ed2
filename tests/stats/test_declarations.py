"""Every method is one declaration: each registered declaration has every field set, the registry refuses an
unknown name, and the spec's allowed values, the display names and the power rule are views of the
declarations (nothing restated elsewhere)."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from sigreport.render.views.methods import REFERENCES
from sigreport.results import names
from sigreport.spec import CVMethod, PairwiseMethod
from sigreport.stats import registry
from sigreport.stats.declaration import ALL_KINDS, MethodDeclaration, ProcedureDeclaration, check

ALL = [d for kind in ALL_KINDS for d in registry.methods(kind)]


def test_the_registry_holds_every_built_in_pairwise_and_cv_test():
    assert registry.names("pairwise")[:6] == ("paired_t", "wilcoxon", "sign", "bootstrap", "bootstrap_t", "permutation")
    assert registry.names("cv")[:5] == ("5x2cv_t", "5x2cv_f", "kfold_t", "corrected_resampled_t", "resampled_t")


@pytest.mark.parametrize("d", ALL, ids=lambda d: f"{d.kind}-{d.name}")
def test_every_declaration_sets_every_field(d: MethodDeclaration | ProcedureDeclaration):
    assert check(d, list(REFERENCES)) == []
    for f in dataclasses.fields(d):  # no field has a default: a declaration names every one
        assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING, f.name


def test_check_names_an_empty_or_unset_field():
    d = registry.method("pairwise", "paired_t")
    assert check(dataclasses.replace(d, display="")) == ["pairwise/paired_t: display is empty"]
    assert check(dataclasses.replace(d, references=())) == ["pairwise/paired_t: references is empty"]
    assert check(dataclasses.replace(d, statistic_head=("sym", ""))) != []
    assert check(dataclasses.replace(d, references=("nobody2099",)), list(REFERENCES)) == [
        "pairwise/paired_t: reference 'nobody2099' is not in the bibliography"]
    with pytest.raises(TypeError):  # a missing field is an error when the declaration is made
        MethodDeclaration(kind="pairwise", name="x", display="x")  # type: ignore[call-arg]


def test_an_unknown_name_raises_naming_the_known_ones():
    with pytest.raises(registry.UnknownMethod, match="unknown pairwise method 'pared_t'; known: paired_t, wilcoxon"):
        registry.method("pairwise", "pared_t")
    with pytest.raises(KeyError):
        registry.method("cv", "paired_t")


def test_spec_values_and_names_are_views_of_the_declarations():
    assert typing.get_args(PairwiseMethod) == ("auto", *registry.names("pairwise"))
    assert typing.get_args(CVMethod) == registry.names("cv")
    for d in (d for d in ALL if d.kind in ("pairwise", "cv")):
        assert names.PAIRWISE_NAMES[d.name] == d.display == names.test_name(d.kind, d.name)


def test_the_mde_rule_is_the_declared_one():
    from sigreport.analyses.power import EFFICIENCY

    rules = {d.name: d.mde.rule for d in registry.methods("pairwise")}
    assert rules == {"paired_t": "noncentral_t", "wilcoxon": "simulation", "sign": "simulation",
                     "bootstrap": "noncentral_t", "bootstrap_t": "noncentral_t", "permutation": "noncentral_t"}
    assert EFFICIENCY == pytest.approx({"wilcoxon": 0.954929658551372, "sign": 0.6366197723675814})  # 3/pi, 2/pi
    assert all(d.mde.rule == "none" and d.mde.reason for d in registry.methods("cv"))


def test_procedures_are_declared_with_their_names_references_and_records():
    from sigreport.render.views.methods import reference
    from sigreport.results.records import RECORD_TYPES, record_type

    classes = {cls.__name__: cls for cls in RECORD_TYPES}  # a declaration's ``record`` names its class

    assert names.POSTHOC_NAMES["nemenyi"] == "Nemenyi test" and names.BAYESIAN_NAMES["signed_rank"] == \
        "Bayesian signed-rank test"
    assert names.test_name("bayesian", "bayesian_bootstrap") == "Bayesian bootstrap of the mean difference (Rubin 1981)"
    for kind in ("omnibus", "posthoc", "bayesian"):
        for d in registry.methods(kind):
            assert record_type(kind, d.name) is classes[d.record]
            assert all(reference(k) for k in d.references)
    assert record_type("posthoc", "paired_t").__name__ == "PairwiseRecord"
    assert record_type("posthoc", "nemenyi").__name__ == "PosthocRecord"
    assert record_type("omnibus", "friedman").__name__ == "FriedmanRecord"


def test_corrections_omnibus_posthoc_and_classification_tests_are_declarations():
    """tests.correction, tests.omnibus, tests.posthoc and the McNemar variants are views of their declarations
    (in the order the spec listed them before, so the JSON Schema does not change); the names and the methods
    paragraph's citations are the declared ones."""
    from sigreport.spec import Correction, McNemarVariant, OmnibusMethod, PosthocMethod
    from sigreport.stats import correction
    from sigreport.stats.methods.classification import MCNEMAR_VARIANTS

    assert typing.get_args(Correction) == registry.spec_names("correction") == (
        "holm", "bonferroni", "hochberg", "hommel", "fdr_bh", "fdr_by", "none")
    assert typing.get_args(OmnibusMethod) == ("auto", *registry.spec_names("omnibus"), "none") == (
        "auto", "rm_anova", "friedman", "none")
    assert typing.get_args(PosthocMethod) == ("auto", *registry.spec_names("posthoc"), "none") == (
        "auto", "nemenyi", "bonferroni_dunn", "holm", "hochberg", "shaffer", "bergmann_hommel", "paired", "none")
    assert typing.get_args(McNemarVariant) == MCNEMAR_VARIANTS
    assert registry.by_spec_name("posthoc", "paired").name == "paired_t"
    p = [0.01, 0.04, 0.03, float("nan"), 0.2]
    for d in registry.methods("correction"):
        assert names.CORRECTION_NAMES[d.name] == names.correction_name(d.name) == d.display
        assert list(d.compute(p)) == pytest.approx(list(correction.adjust(p, d.name)), nan_ok=True)
    assert names.correction_name("holm") == "Holm" and registry.method("correction", "bonferroni").references == (
        "dunn1961",)
    assert names.test_name("mcnemar", "exact") == "McNemar's test" == registry.method("mcnemar", "mcnemar").display
    assert names.test_name("cochran_q", None) == "Cochran's Q test"
    with pytest.raises(registry.UnknownMethod, match="unknown correction method 'holmes'; known: holm, bonferroni"):
        names.correction_name("holmes")  # no fallback: an undeclared correction is an error, not its key
    with pytest.raises(registry.UnknownMethod, match="unknown posthoc 'pairs'; known: nemenyi"):
        registry.by_spec_name("posthoc", "pairs")


def test_check_wants_a_computed_procedure_s_compute_and_spec_name():
    d = registry.method("omnibus", "friedman")
    assert check(dataclasses.replace(d, compute=None)) == [
        "omnibus/friedman: a omnibus procedure declares its compute and its spec name"]
    assert check(dataclasses.replace(registry.method("mcnemar", "mcnemar"), compute=lambda x: x)) == [
        "mcnemar/mcnemar: a mcnemar procedure is run by sigreport.analyses (compute and spec_name None)"]
    assert check(dataclasses.replace(registry.method("correction", "holm"), references=())) == [
        "correction/holm: references is empty"]


def test_the_omnibus_and_posthoc_tests_run_their_declarations_compute(cli, workdir, monkeypatch):
    """The analysis calls the declaration's ``compute`` (a declaration whose compute is replaced is what runs),
    and what it returns is what the record holds."""
    from conftest import build_files

    calls: list[str] = []
    loaded = registry._all()
    for key in (("omnibus", "friedman"), ("posthoc", "nemenyi"), ("correction", "holm")):
        d = loaded[key]
        monkeypatch.setitem(loaded, key, dataclasses.replace(
            d, compute=lambda inp, _f=d.compute, _k=key: (calls.append(_k[0]), _f(inp))[1]))
    rows = ["system,corpus,item,metric,value"] + [
        f"{s},c,i{i},acc,{(i * 7 + j * 3) % 10 / 10 + j / 20:.2f}" for i in range(12) for j, s in enumerate("ABC")]
    doc = build_files(cli, workdir, "title: t\ndata: {scores: scores.csv}\nmetrics:\n  acc: {higher_is_better: true}\n"
                      "tests: {omnibus: friedman, posthoc: nemenyi}\n", {"scores.csv": "\n".join(rows) + "\n"})
    assert {"omnibus", "posthoc", "correction"} <= set(calls)
    kinds = {a["kind"]: a for a in doc["analyses"]}
    assert kinds["omnibus"]["method"] == "friedman" and kinds["posthoc"]["method"] == "nemenyi"


def test_agreement_measures_and_sphericity_corrections_are_declarations():
    """``agreement.measures`` and ``tests.sphericity`` are views of their declarations, in the order the spec
    listed them before (so the JSON Schema does not change); the names the report prints, the records and the
    methods paragraph's citations are the declared ones, and an undeclared name raises instead of printing its
    key."""
    from sigreport.results.records import AgreementRecord, RMAnovaRecord, record_type
    from sigreport.spec.models import AgreementMeasure, Sphericity
    from sigreport.stats.omnibus import CORRECTION_NAMES

    assert typing.get_args(AgreementMeasure) == registry.spec_names("agreement") == (
        "cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic", "fleiss_kappa", "krippendorff_alpha")
    assert typing.get_args(Sphericity) == ("auto", *registry.spec_names("sphericity")) == (
        "auto", "greenhouse_geisser", "huynh_feldt", "none")
    assert set(registry.names("sphericity")) == set(CORRECTION_NAMES)  # every correction the RM-ANOVA table shows
    for d in registry.methods("agreement"):
        assert names.AGREEMENT_NAMES[d.name] == names.agreement_name(d.name) == d.display
        assert record_type("agreement", d.name) is AgreementRecord and d.record == "AgreementRecord"
        assert d.random and "annotations" in d.applies
    for d in registry.methods("sphericity"):
        assert names.SPHERICITY_NAMES[d.name] == names.sphericity_name(d.name) == d.display
        assert d.record == RMAnovaRecord.__name__ and not d.random
    assert names.agreement_name("fleiss_kappa") == "Fleiss' kappa"
    assert names.sphericity_name("none") == "sphericity assumed"
    assert registry.method("sphericity", "huynh_feldt").references == ("huynh1976",)
    with pytest.raises(registry.UnknownMethod, match="unknown agreement method 'scotts_pi'; known: cohen_kappa, "):
        names.agreement_name("scotts_pi")
    with pytest.raises(registry.UnknownMethod, match="unknown sphericity method 'gg'; known: greenhouse_geisser, "):
        names.sphericity_name("gg")
    assert check(dataclasses.replace(registry.method("agreement", "cohen_kappa"), compute=None)) == [
        "agreement/cohen_kappa: a agreement procedure declares its compute and its spec name"]
    assert check(dataclasses.replace(registry.method("sphericity", "huynh_feldt"), references=())) == [
        "sphericity/huynh_feldt: references is empty"]


def test_an_undeclared_agreement_measure_raises_unknown_method():
    """The analysis asks the registry for the measure before it reads anything (so no input is needed here), not
    a chain of ``if measure == ...`` ending in a fallback."""
    from sigreport.analyses.labels import agreement_analysis

    with pytest.raises(registry.UnknownMethod, match="unknown agreement method 'scotts_pi'; known: cohen_kappa, "):
        agreement_analysis(None, None, None, "scotts_pi", "agreement/c/scotts_pi")  # type: ignore[arg-type]


def test_the_methods_paragraph_cites_the_agreement_measures_declared_references(monkeypatch):
    """The agreement sentence cites the references of the measures run, from their declarations."""
    from sigreport.render.views.methods import _others
    from sigreport.results.records import AgreementRecord

    loaded = registry._all()
    monkeypatch.setitem(loaded, ("agreement", "fleiss_kappa"), dataclasses.replace(
        loaded[("agreement", "fleiss_kappa")], references=("cohen1960", "cochran1950")))
    rec = AgreementRecord.__new__(AgreementRecord)  # only its kind and measure are read
    object.__setattr__(rec, "kind", "agreement")
    object.__setattr__(rec, "measure", "fleiss_kappa")
    sentence = next(s for s in _others([rec], {}) if s[0].startswith("Annotator agreement"))
    assert sentence[1].keys == ("cohen1960", "cochran1950")


def test_the_agreement_analysis_runs_its_declarations_compute(monkeypatch):
    """The analysis calls the measure's declared ``compute`` (a declaration whose compute is replaced is what
    runs), given the corpus's ratings, and the record holds what it returns."""
    import numpy as np

    from sigreport.analyses.labels import LabelParams, agreement_analysis
    from sigreport.data import AnnotationGroup, Annotations
    from sigreport.spec import AgreementSpec, TestsSpec
    from sigreport.stats import agreement as agr

    seen = []
    loaded = registry._all()
    d = loaded[("agreement", "fleiss_kappa")]
    monkeypatch.setitem(loaded, d.key, dataclasses.replace(
        d, compute=lambda inp: (seen.append(inp), dataclasses.replace(d.compute(inp), value=0.125))[1]))
    ratings = np.array([[i % 3, (i + i // 4) % 3, (2 * i) % 3] for i in range(12)])
    group = AnnotationGroup(corpus=None, items=tuple(f"i{i}" for i in range(12)), annotators=("r1", "r2", "r3"),
                            ratings=ratings)
    ann = Annotations(source="a.csv", labels=("x", "y", "z"), values=None, annotators=group.annotators,
                      groups={None: group})
    params = LabelParams(TestsSpec(), 0.05, 1, None, None, AgreementSpec(resamples=99), "fleiss_kappa")
    rec = agreement_analysis(params, ann, group, "fleiss_kappa", "agreement/fleiss_kappa")
    assert rec.value == 0.125 and len(seen) == 1
    assert seen[0].ratings is ratings and seen[0].n_labels == 3 and seen[0].resamples == 99
    direct = agr.fleiss_kappa(ratings, 3, group.annotators, 0.05, 99, seen[0].seed, ann.labels)  # the same call
    assert rec.se == direct.se and rec.ci_low == direct.ci_low and rec.bootstrap_ci_low == direct.bootstrap_ci_low
