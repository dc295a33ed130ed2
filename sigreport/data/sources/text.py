"""MT and summarisation outputs: hypotheses and references as plain text files, scored by sacrebleu.

``data.scores: {format: text, hypotheses: {system: file}, references: [file, ...], metrics: [bleu, chrf,
ter]}``: line i of every file is sentence i. Each metric is held as sacrebleu's own per-sentence
sufficient statistics (``_extract_corpus_statistics``: BLEU's lengths and n-gram matches and totals,
chrF's character and word n-gram counts, TER's edits and reference length), and its corpus value is
sacrebleu's ``_compute_score_from_stats`` on their sums (the built-in aggregates
``sigreport.sacrebleu:<metric>``): on every bootstrap or permutation resample the value is exactly the
``corpus_score`` sacrebleu gives on those sentences (tests/data/test_sources_text.py), which is what
sacrebleu's own paired bootstrap does. sacrebleu (``pip install 'sigreport[mt]'``) is imported only
here; its version and each metric's signature go into results.json (``data.source``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np

from sigreport.data.sources.long import coded, constant, long_table, numbers
from sigreport.data.tables import Table
from sigreport.errors import DataError, Problem
from sigreport.spec import TEXT_METRICS, SpecFile, TextSource

AGGREGATE_PREFIX = "sigreport.sacrebleu:"


def sacrebleu_module() -> Any:
    try:
        import sacrebleu
    except ImportError:
        raise ImportError("format text needs sacrebleu: pip install 'sigreport[mt]'") from None
    return sacrebleu


@lru_cache(maxsize=None)
def scorer(metric: str, tokenize: str | None = None, lowercase: bool = False) -> Any:
    """The sacrebleu metric object that extracts and scores ``metric`` (bleu, chrf, chrf++, ter)."""
    sb = sacrebleu_module()
    if metric == "bleu":
        return sb.metrics.BLEU(lowercase=lowercase, **({"tokenize": tokenize} if tokenize else {}))
    if metric in ("chrf", "chrf++"):
        return sb.metrics.CHRF(word_order=2 if metric == "chrf++" else 0, lowercase=lowercase)
    return sb.metrics.TER(case_sensitive=not lowercase)


def aggregate(name: str) -> Callable[[np.ndarray, int], np.ndarray]:
    """The corpus value of ``sigreport.sacrebleu:<metric>`` from summed statistics ``(..., n_stats)``: sacrebleu's
    own ``_compute_score_from_stats`` on each row (its scores are 0-100)."""
    metric = name[len(AGGREGATE_PREFIX):]
    if metric not in TEXT_METRICS:
        raise ValueError(f"unknown sacrebleu aggregate {name!r}; known: {', '.join(TEXT_METRICS)}")

    def value(totals: np.ndarray, n_items: int) -> np.ndarray:
        s = scorer(metric)
        flat = np.asarray(totals, dtype=np.float64).reshape(-1, totals.shape[-1])
        as_int = np.rint(flat).astype(np.int64) if metric != "ter" else flat  # counts; TER's ref length is a mean
        out = np.array([s._compute_score_from_stats(list(row)).score for row in as_int], dtype=np.float64)
        return out.reshape(totals.shape[:-1])

    value.__qualname__ = name
    return value


def read_lines(path: Any, source: str, field: str) -> list[str]:
    """A text file's lines (UTF-8, the final line break optional); an OS or encoding error is a DataError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        why = "file not found" if isinstance(exc, FileNotFoundError) else exc.strerror or type(exc).__name__
        raise DataError(source, [Problem(source, None, field, f"{why}: {path}")]) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise DataError(str(path), [Problem(str(path), line, "", f"not UTF-8 text ({exc.reason})")]) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [x[:-1] if x.endswith("\r") else x for x in lines]


def text_source(sf: SpecFile, source: TextSource) -> tuple[Table, dict[str, object]]:
    """The long table of per-sentence statistics of every system and metric, and what results.json records."""
    where = str(sf.path)
    refs = [read_lines(sf.resolve(r), where, f"data.scores.references[{k}]") for k, r in enumerate(source.references)]
    files = [str(sf.resolve(r)) for r in source.references]
    n = len(refs[0])
    for k, r in enumerate(refs[1:], start=1):
        _same_length(files[k], len(r), files[0], n)
    corpus = source.corpus or (sf.spec.corpora[0] if sf.spec.corpora and len(sf.spec.corpora) == 1 else "test")
    parts: dict[str, list[Any]] = {"system": [], "metric": [], "value": [], "file": [], "line": []}
    stat_names: list[str] = []
    digest = hashlib.sha256()
    signatures = {}
    for s, (system, file) in enumerate(source.hypotheses.items()):
        path = sf.resolve(file)
        hyps = read_lines(path, where, f"data.scores.hypotheses.{system}")
        _same_length(str(path), len(hyps), files[0], n)
        digest.update(hashlib.sha256("\n".join(hyps).encode()).digest())
        for metric in source.metrics:
            m = scorer(metric, source.tokenize, source.lowercase)
            stats = np.asarray(m._extract_corpus_statistics(hyps, refs), dtype=np.float64).reshape(n, -1)
            signatures[metric] = str(m.get_signature())
            for j in range(stats.shape[1]):
                parts["metric"].append(np.full(n, _stat_code(stat_names, metric, j)))
                parts["value"].append(stats[:, j])
                parts["system"].append(np.full(n, s))
                parts["file"].append(np.full(n, len(files) + s))
                parts["line"].append(np.arange(1, n + 1))
    for r in refs:
        digest.update(hashlib.sha256("\n".join(r).encode()).digest())
    cols = sf.spec.data.columns
    cat = {k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()}
    items = cat["line"].astype(np.int64)
    columns = {cols.system: coded(cat["system"], list(source.hypotheses)), cols.corpus: constant(corpus, len(items)),
               cols.item: coded(items - 1, [str(i) for i in range(1, n + 1)]),
               cols.metric: coded(cat["metric"], stat_names), cols.value: numbers(cat["value"])}
    all_files = files + [str(sf.resolve(f)) for f in source.hypotheses.values()]
    table = long_table(f"{source.references[0]} (text)", digest.hexdigest(), columns, all_files, cat["file"], items)
    info = {"format": "text", "library": f"sacrebleu {sacrebleu_module().__version__}", "signatures": signatures}
    return table, info


def _stat_code(names: list[str], metric: str, j: int) -> int:
    name = stat_name(metric, j)
    if name not in names:
        names.append(name)
    return names.index(name)


def stat_name(metric: str, j: int) -> str:
    """The metric-column name of statistic j of a text metric (what ``statistics:`` lists)."""
    return f"{metric}:{j}"


def _same_length(path: str, lines: int, reference: str, n: int) -> None:
    if lines != n:
        at = min(lines, n) + 1
        raise DataError(path, [Problem(path, at, "", f"has {lines} lines, the reference {reference} has {n}: line i "
                                       "of every file must be sentence i")])
