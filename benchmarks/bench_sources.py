"""Benchmark of the native sources against their field libraries, on the same input in the same run.

Targets (issue 23): reading a 1M-line TREC run with its qrels and 3 measures (nDCG@10, RR, AP), and
100,000 hypothesis/reference pairs for BLEU and chrF, stay within 2x of the field library's own time:

* TREC: ``load_data`` of a ``format: trec`` spec (read the run and qrels, per-query values through
  ir_measures, the long table, its checks and blocks) against ir_measures reading the same files and
  computing the same per-query values (``iter_calc`` over ``read_trec_qrels`` / ``read_trec_run``);
* MT: ``load_data`` of a ``format: text`` spec (per-sentence BLEU and chrF statistics, the long table,
  checks and blocks) against sacrebleu's ``corpus_score`` for BLEU and chrF on the same lines.

The inputs are generated once into a temporary folder (not timed); each side runs ``--repeat`` times in
this process, and the best wall time of each is printed with their ratio.

Usage::

    python benchmarks/bench_sources.py
    python benchmarks/bench_sources.py --repeat 3 --queries 1000 --depth 1000 --sentences 100000
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = [f"w{i}" for i in range(3000)]


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def write_trec(folder: Path, queries: int, depth: int, judged: int = 50) -> None:
    rng = np.random.default_rng(0)
    with open(folder / "qrels.txt", "w") as f:
        for q in range(queries):
            for d in rng.choice(depth * 2, judged, replace=False):
                f.write(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n")
    with open(folder / "run.run", "w") as f:
        for q in range(queries):
            scores = np.sort(rng.random(depth))[::-1]
            docs = rng.permutation(depth * 2)[:depth]
            f.writelines(f"q{q} Q0 d{d} {r + 1} {s:.6f} run\n" for r, (d, s) in enumerate(zip(docs, scores)))


def write_mt(folder: Path, sentences: int) -> None:
    rng = np.random.default_rng(1)
    refs, hyps = [], []
    for _ in range(sentences):
        words = list(rng.choice(WORDS, int(rng.integers(8, 30))))
        refs.append(" ".join(words))
        hyps.append(" ".join(w if rng.random() > 0.3 else str(rng.choice(WORDS)) for w in words))
    (folder / "ref.txt").write_text("\n".join(refs) + "\n")
    (folder / "hyp.txt").write_text("\n".join(hyps) + "\n")


def trec_case(folder: Path, repeat: int) -> tuple[float, float]:
    import ir_measures

    import sigreport
    from sigreport.data import load_data

    measures = ["nDCG@10", "RR", "AP"]
    spec = sigreport.load_spec({"title": "bench", "data": {"scores": {
        "format": "trec", "runs": "run.run", "qrels": "qrels.txt", "measures": measures}}}, base_dir=folder)
    ours = best(lambda: load_data(spec), repeat)
    parsed = [ir_measures.parse_measure(m) for m in measures]

    def theirs() -> list[object]:
        qrels = list(ir_measures.read_trec_qrels(str(folder / "qrels.txt")))
        run = list(ir_measures.read_trec_run(str(folder / "run.run")))
        return list(ir_measures.iter_calc(parsed, qrels, run))

    return ours, best(theirs, repeat)


def mt_case(folder: Path, repeat: int) -> tuple[float, float]:
    import sacrebleu

    import sigreport
    from sigreport.data import load_data

    spec = sigreport.load_spec({"title": "bench", "data": {"scores": {
        "format": "text", "hypotheses": {"sys": "hyp.txt"}, "references": ["ref.txt"], "metrics": ["bleu", "chrf"]}},
        "tests": {"pairwise": "bootstrap"}}, base_dir=folder)
    ours = best(lambda: load_data(spec), repeat)

    def theirs() -> tuple[object, object]:
        hyps = (folder / "hyp.txt").read_text().splitlines()
        refs = [(folder / "ref.txt").read_text().splitlines()]
        return sacrebleu.metrics.BLEU().corpus_score(hyps, refs), sacrebleu.metrics.CHRF().corpus_score(hyps, refs)

    return ours, best(theirs, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=1000, help="documents per query in the run (lines = q x d)")
    parser.add_argument("--sentences", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_trec(folder, args.queries, args.depth)
        write_mt(folder, args.sentences)
        rows = [(f"TREC run, {args.queries * args.depth:,} lines, 3 measures", "ir_measures", *trec_case(folder, args.repeat)),
                (f"MT, {args.sentences:,} pairs, BLEU + chrF", "sacrebleu", *mt_case(folder, args.repeat))]
    print(f"{'case':45} {'sigreport':>10} {'library':>22} {'ratio':>6}  target <= 2.0")
    for name, lib, ours, theirs in rows:
        print(f"{name:45} {ours:9.2f}s {lib:>12} {theirs:8.2f}s {ours / theirs:6.2f}  "
              f"{'pass' if ours / theirs <= 2.0 else 'over'}")


if __name__ == "__main__":
    main()
