"""Writes the example data of the sources (configs/trec.yaml, mt.yaml, lm_eval.yaml, wide.yaml, outcomes.yaml,
sklearn.yaml): synthetic and seeded, or from data shipped in a package (wine, in scikit-learn); no network.
Run from the repository: python configs/data/make_sources.py (sklearn_cv needs scikit-learn)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
WORDS = ("the a cat dog sat ran on under mat house big small red green quickly slowly and of river tree light "
         "stone old new").split()


def trec(folder: Path, n_queries: int = 30, n_docs: int = 200, depth: int = 50, seed: int = 7) -> None:
    """Qrels for 30 queries and three runs of rising quality (a relevant document's score gets a boost)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    relevant = {}
    with open(folder / "qrels.txt", "w") as qrels:
        for q in range(1, n_queries + 1):
            docs = rng.choice(n_docs, 12, replace=False)
            relevant[q] = {int(d): int(rng.integers(1, 3)) if k < 6 else 0 for k, d in enumerate(docs)}
            for d, rel in relevant[q].items():
                qrels.write(f"q{q} 0 d{d} {rel}\n")
    for name, boost in (("bm25", 0.6), ("dense", 0.9), ("rerank", 1.2)):
        with open(folder / "runs" / f"{name}.run", "w") as run:
            for q in range(1, n_queries + 1):
                scores = rng.normal(size=n_docs)
                for d, rel in relevant[q].items():
                    scores[d] += boost * rel
                top = np.argsort(-scores)[:depth]
                for rank, d in enumerate(top, start=1):
                    run.write(f"q{q} Q0 d{d} {rank} {scores[d]:.4f} {name}\n")


def mt(folder: Path, n: int = 120, seed: int = 11) -> None:
    """References and three systems' outputs: each a noisier copy of the references."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    refs = [" ".join(rng.choice(WORDS, rng.integers(4, 14))) + " ." for _ in range(n)]
    (folder / "ref.en").write_text("\n".join(refs) + "\n")
    for name, noise in (("baseline", 0.45), ("transformer", 0.3), ("ensemble", 0.25)):
        out = []
        for r in refs:
            words = [w if rng.random() > noise else str(rng.choice(WORDS)) for w in r.split()]
            out.append(" ".join(words))
        (folder / f"{name}.en").write_text("\n".join(out) + "\n")


def lm_eval(folder: Path, seed: int = 3) -> None:
    """A hand-made lm-evaluation-harness --log_samples folder (no model was run): the layout of
    EvaluationTracker.save_results_samples (lm_eval/loggers/evaluation_tracker.py: <output_path>/<model name
    with '/' as '__'>/samples_<task>_<date>.jsonl, one JSON object a line, arguments as gen_args_i/arg_j,
    target as text) and the per-sample dict of evaluator.evaluate (lm_eval/evaluator.py: doc_id, doc, target,
    arguments, resps, filtered_resps, filter, metrics, doc_hash, prompt_hash, target_hash, then each metric's
    value). arc_easy logs acc and acc_norm under the filter 'none'; gsm8k logs exact_match under two filters."""
    rng = np.random.default_rng(seed)
    date = "2026-01-05T10-20-30.123456"
    for model, skill in (("org__model-small", 0.45), ("org__model-base", 0.6), ("org__model-large", 0.7)):
        out = folder / model
        out.mkdir(parents=True, exist_ok=True)
        with open(out / f"samples_arc_easy_{date}.jsonl", "w") as f:
            for doc_id in range(80):
                hard = doc_id % 5 / 10
                acc = float(rng.random() < skill - hard + 0.2)
                norm = float(rng.random() < skill - hard + 0.25)
                f.write(json.dumps(_sample(doc_id, "none", {"acc": acc, "acc_norm": norm}, f"choice {doc_id % 4}")) + "\n")
        with open(out / f"samples_gsm8k_{date}.jsonl", "w") as f:
            for doc_id in range(60):
                strict = float(rng.random() < skill - 0.2)
                flexible = max(strict, float(rng.random() < skill - 0.1))
                for filt, value in (("strict-match", strict), ("flexible-extract", flexible)):
                    f.write(json.dumps(_sample(doc_id, filt, {"exact_match": value}, str(doc_id * 3))) + "\n")


def _sample(doc_id: int, filt: str, metrics: dict[str, float], target: str) -> dict[str, object]:
    prompt = f"Question {doc_id}?"
    return {"doc_id": doc_id, "doc": {"question": prompt, "answer": target}, "target": target,
            "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": f" {target}"}},
            "resps": [[["-1.25", "False"]]], "filtered_resps": [["-1.25", "False"]], "filter": filt,
            "metrics": list(metrics), "doc_hash": f"{doc_id:064x}", "prompt_hash": f"{doc_id + 1:064x}",
            "target_hash": f"{doc_id + 2:064x}", **metrics}


def wide(folder: Path) -> None:
    """The UCI accuracy table (uci_accuracy.csv) as people keep it: data sets x algorithms."""
    import csv

    rows = list(csv.DictReader(open(folder / "uci_accuracy.csv")))
    systems = list(dict.fromkeys(r["system"] for r in rows))
    corpora = list(dict.fromkeys(r["corpus"] for r in rows))
    value = {(r["corpus"], r["system"]): r["value"] for r in rows}
    with open(folder / "uci_wide.csv", "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["dataset", *systems])
        for c in corpora:
            out.writerow([c, *(value[(c, s)] for s in systems)])


def outcomes(folder: Path, n: int = 60, seed: int = 5) -> None:
    """Paired yes/no outcomes: 60 patients, whether each of three treatments helped (one row per patient)."""
    rng = np.random.default_rng(seed)
    frailty = rng.normal(size=n)
    with open(folder / "outcomes.csv", "w") as f:
        f.write("patient,placebo,drug_a,drug_b\n")
        for i in range(n):
            helped = [rng.random() < 1 / (1 + np.exp(frailty[i] - b)) for b in (-0.6, 0.2, 0.5)]
            f.write(f"p{i + 1}," + ",".join("yes" if h else "no" for h in helped) + "\n")


def sklearn_cv(folder: Path) -> None:
    """Three scikit-learn classifiers under 5 x 3 repeated k-fold on wine (shipped with scikit-learn), through
    sigreport.from_sklearn.cross_validate: per-fold accuracy and macro F1 with each fold's sizes."""
    from sklearn.datasets import load_wine
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_validate
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    import sigreport

    X, y = load_wine(return_X_y=True)
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=5, random_state=0)
    models = {"knn": KNeighborsClassifier(), "tree": DecisionTreeClassifier(random_state=0), "nb": GaussianNB()}
    results = {name: cross_validate(m, X, y, cv=cv, scoring=["accuracy", "f1_macro"], return_indices=True)
               for name, m in models.items()}
    frame = sigreport.from_sklearn.cross_validate(results, corpus="wine", cv=cv)
    frame.to_csv(folder / "sklearn_cv.csv", index=False, float_format="%.17g")


if __name__ == "__main__":
    trec(HERE / "trec")
    mt(HERE / "mt")
    lm_eval(HERE / "lm_eval")
    wide(HERE)
    outcomes(HERE)
    sklearn_cv(HERE)
