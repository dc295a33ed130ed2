"""scikit-learn's cross_validate output and predictions go in with no glue (sigreport.from_sklearn).

The per-fold scores sigreport analyses are scikit-learn's own cross_validate values (compared element by
element), the fold sizes are the splitter's, and the corrected resampled t uses their means."""

from __future__ import annotations

import numpy as np
import pytest

import sigreport
from sigreport.data import load_data
from sigreport.data.dataset import with_frames

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_iris, load_wine  # noqa: E402
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, cross_validate  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

MODELS = {"knn": KNeighborsClassifier(), "tree": DecisionTreeClassifier(random_state=0),
          "nb": GaussianNB()}


def _dataset(spec: dict, frame):
    sf = sigreport.load_spec(spec)
    return load_data(with_frames(sf, {"scores": frame}), {"scores": frame})


def test_repeated_folds_equal_sklearn_cross_validate():
    X, y = load_wine(return_X_y=True)
    cv = RepeatedKFold(n_splits=3, n_repeats=4, random_state=0)  # 3 folds of 178 items: 59, 59, 60
    results = {name: cross_validate(m, X, y, cv=cv, scoring=["accuracy", "f1_macro"], return_indices=True)
               for name, m in MODELS.items()}
    frame = sigreport.from_sklearn.cross_validate(results, corpus="wine", cv=cv)
    spec = {"title": "t", "metrics": {"accuracy": {"higher_is_better": True}, "f1_macro": {"higher_is_better": True}},
            "tests": {"design": "resampled", "cv_methods": ["corrected_resampled_t"]}}
    ds = _dataset(spec, frame)
    for metric in ("accuracy", "f1_macro"):
        block = ds.blocks[(metric, "wine")]
        assert block.items == tuple(f"{r}/{f}" for r in range(1, 5) for f in range(1, 4))
        for j, name in enumerate(block.systems):
            np.testing.assert_array_equal(block.scores[:, j], results[name][f"test_{metric}"])
        sizes = [(len(tr), len(te)) for tr, te in cv.split(X, y)]
        assert (block.n_train, block.n_test) == (np.mean([a for a, _ in sizes]), np.mean([b for _, b in sizes]))
        assert sorted({b for _, b in sizes}) == [59, 60]  # unequal folds: no rounding needed
    # the same sizes from the splitter itself (no return_indices)
    plain = {n: {k: v for k, v in r.items() if k != "indices"} for n, r in results.items()}
    again = _dataset(spec, sigreport.from_sklearn.cross_validate(plain, corpus="wine", cv=cv, y=y))
    assert again.blocks[("accuracy", "wine")].n_train == ds.blocks[("accuracy", "wine")].n_train
    # the corrected resampled t of the report uses them (Nadeau and Bengio: (1/J + n_test/n_train) var)
    r = sigreport.analyze(sigreport.load_spec(spec), scores=frame)
    pair = next(x for x in r.records if x.kind == "cv" and x.metric == "accuracy").pairs[0]
    block = ds.blocks[("accuracy", "wine")]
    d = block.scores[:, block.systems.index(pair.a)] - block.scores[:, block.systems.index(pair.b)]
    t = d.mean() / np.sqrt((1 / d.size + block.n_test / block.n_train) * d.var(ddof=1))
    assert pair.statistic == pytest.approx(t, rel=1e-12)


def test_5x2cv_from_a_repeated_stratified_splitter():
    X, y = load_iris(return_X_y=True)
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=5, random_state=1)
    results = {name: cross_validate(m, X, y, cv=cv) for name, m in MODELS.items()}  # one scorer: test_score
    frame = sigreport.from_sklearn.cross_validate(results, corpus="iris", metric="accuracy", cv=cv)
    assert list(frame.columns) == ["system", "corpus", "repeat", "fold", "metric", "value"]
    spec = {"title": "t", "metrics": {"accuracy": {"higher_is_better": True}}, "tests": {"design": "5x2cv"}}
    r = sigreport.analyze(sigreport.load_spec(spec), scores=frame)
    rec = next(x for x in r.records if x.kind == "cv" and x.method == "5x2cv_t")
    a, b = (np.asarray(results[s]["test_score"]).reshape(5, 2) for s in (rec.pairs[0].a, rec.pairs[0].b))
    p = a - b  # Dietterich (1998): t = p_1^(1) / sqrt(sum_i s_i^2 / 5), s_i^2 = sum_j (p_i^(j) - mean_i)^2
    s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    assert rec.pairs[0].statistic == pytest.approx(p[0, 0] / np.sqrt(s2.mean()), rel=1e-12)


def test_predictions_of_several_data_sets():
    import pandas as pd

    frames = []
    for name, (X, y) in {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True)}.items():
        preds = {s: m.fit(X[::2], y[::2]).predict(X[1::2]) for s, m in MODELS.items()}
        frames.append(sigreport.from_sklearn.predictions(y[1::2], preds, corpus=name))
    frame = pd.concat(frames, ignore_index=True)
    spec = {"title": "t", "classification": {"resamples": 199}}
    r = sigreport.analyze(sigreport.load_spec(spec), predictions=frame)
    from sklearn.metrics import accuracy_score

    for name, (X, y) in {"iris": load_iris(return_X_y=True), "wine": load_wine(return_X_y=True)}.items():
        rec = r[f"classification/{name}/classification"]
        for s in rec.systems:
            want = accuracy_score(y[1::2], MODELS[s.system].fit(X[::2], y[::2]).predict(X[1::2]))
            assert s.metrics["accuracy"].value == pytest.approx(want, rel=1e-15)


def test_helper_mistakes():
    with pytest.raises(ValueError, match="no test_f1"):
        sigreport.from_sklearn.cross_validate({"a": {"test_accuracy": [1.0]}}, corpus="c", metric="f1")
    with pytest.raises(ValueError, match="not whole repetitions"):
        sigreport.from_sklearn.cross_validate({"a": {"test_score": [1.0] * 5}}, corpus="c", n_splits=2)
    with pytest.raises(ValueError, match="has 2 labels, y_true 3"):
        sigreport.from_sklearn.predictions([1, 2, 3], {"a": [1, 2]}, corpus="c")
    spec = {"title": "t", "metrics": {"accuracy": {"higher_is_better": True}}, "tests": {"design": "resampled"}}
    frame = sigreport.from_sklearn.cross_validate({"a": {"test_score": [0.5, 0.6]}, "b": {"test_score": [0.4, 0.7]}},
                                                  corpus="c", metric="accuracy")
    with pytest.raises(sigreport.DataError, match="corrected_resampled_t needs n_train and n_test .* for corpus 'c'"):
        sigreport.analyze(sigreport.load_spec(spec), scores=frame)
    sized = {**spec, "tests": {"design": "resampled", "n_train": {"c": 90}, "n_test": {"c": 10}}}
    assert sigreport.analyze(sigreport.load_spec(sized), scores=frame).records
