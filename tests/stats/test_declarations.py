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
