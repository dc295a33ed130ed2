"""Writes the example data of the native sources (configs/trec.yaml, configs/mt.yaml, configs/lm_eval.yaml,
configs/outcomes.yaml): synthetic, seeded, no network. Run from the repository: python configs/data/make_sources.py
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


if __name__ == "__main__":
    trec(HERE / "trec")
    mt(HERE / "mt")
