"""Confusion-matrix metrics: the seed's worked example, scikit-learn values, bootstrap properties."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigreport.stats.classification import (
    classification_metrics,
    confusion_matrix,
    f_name,
    per_item_correct,
)


def seed_example():
    """Seed 004 (digest example 6): TP 120, FP 40, FN 30, TN 310; codes 0 = 'pos', 1 = 'neg'."""
    gold = np.array([0] * 120 + [1] * 40 + [0] * 30 + [1] * 310)
    pred = np.array([0] * 120 + [0] * 40 + [1] * 30 + [1] * 310)
    return gold, pred


# A 4-class case with a class never predicted ('c') and a class never in gold ('d').
GOLD4 = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 0, 1, 2, 0, 1, 2, 2, 1, 0])
PRED4 = np.array([0, 0, 1, 0, 3, 1, 1, 0, 1, 1, 0, 1, 0, 3, 1, 0, 1, 0, 0, 3, 1, 1, 1, 0])

# A 3-class case where every metric is defined.
GOLD3 = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 0, 1, 2, 2, 2, 1, 0])
PRED3 = np.array([0, 1, 2, 1, 1, 2, 0, 2, 2, 0, 0, 2, 0, 1, 1, 1, 2, 0, 1, 0])


def values(result):
    return {k: v.value for k, v in result.metrics.items()}


def test_seed_example_binary_metrics():
    # Seed 004 / digest example 6: precision 0.75, recall 0.80, F1 0.774 (0.7742), accuracy 0.86,
    # specificity 0.886 (0.8857). Exact: F1 = 2*0.75*0.8/1.55 = 24/31, specificity = 310/350 = 31/35.
    gold, pred = seed_example()
    r = classification_metrics(gold, pred, ["pos", "neg"], positive_label="pos", n_resamples=0)
    assert r.matrix.tolist() == [[120, 30], [40, 310]]  # rows gold, columns predicted
    m = values(r)
    assert m["precision"] == pytest.approx(0.75, abs=1e-12)
    assert m["recall"] == pytest.approx(0.80, abs=1e-12)
    assert m["f1"] == pytest.approx(24 / 31, abs=1e-12)
    assert round(m["f1"], 4) == 0.7742
    assert m["accuracy"] == pytest.approx(0.86, abs=1e-12)
    assert m["specificity"] == pytest.approx(31 / 35, abs=1e-12)
    assert round(m["specificity"], 4) == 0.8857
    # The positive class's plain names are the per-class values of 'pos'.
    assert m["precision"] == m["precision_pos"] and m["f1"] == m["f1_pos"]
    # One-vs-rest symmetry: the negative class's recall is the positive class's specificity.
    assert m["recall_neg"] == m["specificity_pos"]
    assert r.warnings == ()


def test_f_beta_formula_on_seed_example():
    # Seed README: F_beta = (1 + b^2) P R / (b^2 P + R); with P = 0.75, R = 0.8:
    # F2 = 5*0.6/(4*0.75 + 0.8) = 3/3.8, F0.5 = 1.25*0.6/(0.25*0.75 + 0.8) = 0.75/0.9875.
    gold, pred = seed_example()
    f2 = classification_metrics(gold, pred, ["pos", "neg"], beta=2, positive_label="pos", n_resamples=0)
    assert f2.metrics["f2"].value == pytest.approx(3 / 3.8, abs=1e-12)
    f05 = classification_metrics(gold, pred, ["pos", "neg"], beta=0.5, positive_label="pos", n_resamples=0)
    assert f05.metrics["f0.5"].value == pytest.approx(0.75 / 0.9875, abs=1e-12)
    assert f_name(1.0) == "f1" and f_name(2) == "f2" and f_name(0.5) == "f0.5"


def test_against_sklearn_all_defined():
    # scikit-learn 1.9.1: confusion_matrix(GOLD3, PRED3) -> [[5,2,0],[1,4,1],[1,1,5]];
    # accuracy_score -> 0.7; precision_recall_fscore_support(GOLD3, PRED3, average=None) ->
    # P [0.7142857142857143, 0.5714285714285714, 0.8333333333333334],
    # R [0.7142857142857143, 0.6666666666666666, 0.7142857142857143],
    # F [0.7142857142857143, 0.6153846153846154, 0.7692307692307693];
    # average='macro' -> (0.7063492063492064, 0.6984126984126985, 0.6996336996336997);
    # average='micro' -> (0.7, 0.7, 0.7);
    # average='weighted' -> (0.7130952380952381, 0.7, 0.7038461538461539).
    # Specificity from multilabel_confusion_matrix(GOLD3, PRED3): tn/(tn+fp) ->
    # [0.8461538461538461, 0.7857142857142857, 0.9230769230769231], micro sum(tn)/sum(tn+fp) = 0.85.
    r = classification_metrics(GOLD3, PRED3, ["x", "y", "z"], n_resamples=0)
    assert r.matrix.tolist() == [[5, 2, 0], [1, 4, 1], [1, 1, 5]]
    m = values(r)
    expected = {
        "accuracy": 0.7,
        "precision_x": 0.7142857142857143, "precision_y": 0.5714285714285714, "precision_z": 0.8333333333333334,
        "recall_x": 0.7142857142857143, "recall_y": 0.6666666666666666, "recall_z": 0.7142857142857143,
        "f1_x": 0.7142857142857143, "f1_y": 0.6153846153846154, "f1_z": 0.7692307692307693,
        "precision_macro": 0.7063492063492064, "recall_macro": 0.6984126984126985, "f1_macro": 0.6996336996336997,
        "precision_micro": 0.7, "recall_micro": 0.7, "f1_micro": 0.7,
        "precision_weighted": 0.7130952380952381, "recall_weighted": 0.7, "f1_weighted": 0.7038461538461539,
        "specificity_x": 0.8461538461538461, "specificity_y": 0.7857142857142857,
        "specificity_z": 0.9230769230769231, "specificity_micro": 0.85,
    }
    for name, value in expected.items():
        assert m[name] == pytest.approx(value, abs=1e-12), name
    # Macro specificity = mean of the three above; weighted by support (7, 6, 7) / 20.
    spec = [0.8461538461538461, 0.7857142857142857, 0.9230769230769231]
    assert m["specificity_macro"] == pytest.approx(np.mean(spec), abs=1e-12)
    assert m["specificity_weighted"] == pytest.approx(np.dot(spec, [7, 6, 7]) / 20, abs=1e-12)
    assert r.warnings == ()


@pytest.mark.parametrize(
    ("beta", "f_values", "f_macro", "f_weighted"),
    [
        # scikit-learn 1.9.1: precision_recall_fscore_support(GOLD4, PRED4, labels=[0,1,2,3], beta=b,
        # zero_division=np.nan) with average=None / 'macro' / 'weighted' (F column).
        (1.0, [0.6666666666666666, 0.5555555555555556, 0.0, 0.0], 0.3055555555555556, 0.38425925925925924),
        (2.0, [0.7142857142857143, 0.6410256410256411, 0.0, 0.0], 0.33882783882783885, 0.42506105006105005),
        (0.5, [0.625, 0.49019607843137253, 0.0, 0.0], 0.27879901960784315, 0.3513071895424837),
    ],
)
def test_against_sklearn_with_undefined_classes(beta, f_values, f_macro, f_weighted):
    # scikit-learn 1.9.1, same call: P [0.6, 0.45454545454545453, nan, 0.0], R [0.75, 0.7142857142857143,
    # 0.0, nan]; macro P 0.3515151515151515, R 0.48809523809523814; weighted P 0.5321212121212121,
    # R 0.4583333333333333; micro P = R = F = accuracy_score = 0.4583333333333333.
    # zero_division=np.nan leaves undefined classes out of the averages, which is sigreport's rule.
    # Specificity (multilabel_confusion_matrix tn/(tn+fp)): [0.75, 0.6470588235294118, 1.0, 0.875],
    # micro 0.8194444444444444.
    r = classification_metrics(GOLD4, PRED4, ["a", "b", "c", "d"], beta=beta, n_resamples=0)
    m = values(r)
    fn = f_name(beta)
    assert m["precision_c"] is None and m["recall_d"] is None
    assert m["precision_a"] == pytest.approx(0.6, abs=1e-12)
    assert m["precision_b"] == pytest.approx(0.45454545454545453, abs=1e-12)
    assert m["precision_d"] == 0.0 and m["recall_c"] == 0.0
    assert m["precision_macro"] == pytest.approx(0.3515151515151515, abs=1e-12)
    assert m["recall_macro"] == pytest.approx(0.48809523809523814, abs=1e-12)
    assert m["precision_weighted"] == pytest.approx(0.5321212121212121, abs=1e-12)
    assert m["recall_weighted"] == pytest.approx(0.4583333333333333, abs=1e-12)
    for suffix in ("micro",):
        for name in ("precision", "recall", fn):
            assert m[f"{name}_{suffix}"] == pytest.approx(0.4583333333333333, abs=1e-12)
    assert m["accuracy"] == pytest.approx(0.4583333333333333, abs=1e-12)
    for lab, value in zip("abcd", f_values, strict=True):
        assert m[f"{fn}_{lab}"] == pytest.approx(value, abs=1e-12)
    assert m[f"{fn}_macro"] == pytest.approx(f_macro, abs=1e-12)
    assert m[f"{fn}_weighted"] == pytest.approx(f_weighted, abs=1e-12)
    spec = [0.75, 0.6470588235294118, 1.0, 0.875]
    for lab, value in zip("abcd", spec, strict=True):
        assert m[f"specificity_{lab}"] == pytest.approx(value, abs=1e-12)
    assert m["specificity_micro"] == pytest.approx(0.8194444444444444, abs=1e-12)
    # Undefined values come with words naming the class and the averaging rule.
    text = " ".join(r.warnings)
    assert "precision of class 'c' is undefined" in text
    assert "recall of class 'd' is undefined" in text
    assert "leave out the classes where precision is undefined: 'c'" in text


def test_bootstrap_interval_matches_binomial_standard_error():
    # Accuracy 0.86 on n = 500 items: the item bootstrap's SD is sqrt(p(1-p)/n) = 0.015518; its 95 %
    # percentile interval is close to 0.86 -/+ 1.959964 * 0.015518 = (0.82958, 0.89042). With 20000
    # resamples the Monte Carlo error of the 2.5 % quantile is about 0.0006, and accuracy moves in steps
    # of 0.002, so 0.004 is the tolerance.
    gold, pred = seed_example()
    r = classification_metrics(gold, pred, ["pos", "neg"], n_resamples=20000, seed=1)
    acc = r.metrics["accuracy"]
    half = 1.959964 * math.sqrt(0.86 * 0.14 / 500)
    assert acc.ci_low == pytest.approx(0.86 - half, abs=0.004)
    assert acc.ci_high == pytest.approx(0.86 + half, abs=0.004)


def test_same_seed_same_intervals_and_different_seed_differs():
    a = classification_metrics(GOLD3, PRED3, ["x", "y", "z"], n_resamples=300, seed=7)
    b = classification_metrics(GOLD3, PRED3, ["x", "y", "z"], n_resamples=300, seed=7)
    c = classification_metrics(GOLD3, PRED3, ["x", "y", "z"], n_resamples=300, seed=8)
    assert a.metrics == b.metrics
    assert a.metrics != c.metrics
    g = np.random.default_rng(3)
    d = classification_metrics(GOLD3, PRED3, ["x", "y", "z"], n_resamples=300, seed=g)
    e = classification_metrics(GOLD3, PRED3, ["x", "y", "z"], n_resamples=300, seed=np.random.default_rng(3))
    assert d.metrics == e.metrics


def test_interval_brackets_estimate_and_bootstrap_warning_for_rare_class():
    r = classification_metrics(GOLD4, PRED4, ["a", "b", "c", "d"], n_resamples=500, seed=0)
    for name, mv in r.metrics.items():
        if mv.value is None:
            assert mv.ci_low is None and mv.ci_high is None, name
        else:
            assert mv.ci_low <= mv.ci_high, name
    # 'd' is predicted 3 times in 24 items: some resamples never predict it, so precision_d is 0/0 there.
    assert any("bootstrap resamples left precision_d undefined" in w for w in r.warnings)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=2, max_value=5).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=1, max_size=40),
        )
    ),
    st.sampled_from([0.5, 1.0, 2.0]),
)
def test_metrics_in_unit_interval(data, beta):
    k, pairs = data
    gold = np.array([p[0] for p in pairs])
    pred = np.array([p[1] for p in pairs])
    r = classification_metrics(gold, pred, [f"l{i}" for i in range(k)], beta=beta, n_resamples=30, seed=0)
    assert r.matrix.sum() == len(pairs)
    assert np.array_equal(r.matrix, confusion_matrix(gold, pred, k))
    for name, mv in r.metrics.items():
        for v in (mv.value, mv.ci_low, mv.ci_high):
            assert v is None or 0.0 <= v <= 1.0 + 1e-12, name
    m = values(r)
    # Single-label data: micro precision = micro recall = micro F = accuracy.
    for name in ("precision_micro", "recall_micro", f"{f_name(beta)}_micro"):
        assert m[name] == pytest.approx(m["accuracy"], abs=1e-12)


def test_per_item_correct():
    assert per_item_correct(np.array([0, 1, 2]), np.array([0, 2, 2])).tolist() == [True, False, True]
    with pytest.raises(ValueError):
        per_item_correct(np.array([0, 1]), np.array([0]))


def test_no_items_is_a_warning_not_a_crash():
    r = classification_metrics(np.array([], dtype=int), np.array([], dtype=int), ["a", "b"])
    assert r.metrics["accuracy"].value is None
    assert all(v.value is None for v in r.metrics.values())
    assert any("no items" in w for w in r.warnings)


def test_programmer_errors_raise():
    with pytest.raises(ValueError, match="clash"):
        classification_metrics(GOLD3, PRED3, ["macro", "y", "z"])
    with pytest.raises(ValueError, match="outside"):
        classification_metrics(GOLD3, PRED3, ["x", "y"])
    with pytest.raises(ValueError, match="positive_label"):
        classification_metrics(GOLD3, PRED3, ["x", "y", "z"], positive_label="w")
    with pytest.raises(ValueError, match="beta"):
        classification_metrics(GOLD3, PRED3, ["x", "y", "z"], beta=0)
