"""MT and summarisation outputs: hypotheses and references as plain text files, scored by sacrebleu.

``data.scores: {format: text, hypotheses: {system: file}, references: [file, ...], metrics: [bleu, chrf,
ter]}``: line i of every file is sentence i. Each metric is held as sacrebleu's own per-sentence
sufficient statistics (``_extract_corpus_statistics``: BLEU's lengths and n-gram matches and totals,
chrF's character and word n-gram counts, TER's edits and reference length), and its corpus value is
sacrebleu's ``_compute_score_from_stats`` on their sums (the built-in aggregates
``sigreport.sacrebleu:<metric>``): on every bootstrap or permutation resample the value is exactly the
``corpus_score`` sacrebleu gives on those sentences (tests/data/test_sources_text.py), which is what
sacrebleu's own paired bootstrap does. Files are read and metrics configured as sacrebleu's command line
does by default (a byte-order mark kept, and warned about; TER case-insensitive), so the values are the
ones ``sacrebleu ref -i hyp -m bleu chrf ter`` prints. sacrebleu (``pip install 'sigreport[mt]'``) is
imported only here; its version and each metric's signature go into results.json (``data.source``).
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
def scorer(metric: str, tokenize: str | None = None, lowercase: bool = False, ter_case_sensitive: bool = False) -> Any:
    """The sacrebleu metric object that extracts and scores ``metric`` (bleu, chrf, chrf++, ter), with
    sacrebleu's own defaults for every option the spec does not set, as its command line has them:
    ``lowercase`` is BLEU's and chrF's (``-lc``, ``--chrf-lowercase``), TER is case-insensitive unless
    ``ter_case_sensitive`` (``--ter-case-sensitive``), so the values and signatures are sacrebleu's."""
    sb = sacrebleu_module()
    if metric == "bleu":
        return sb.metrics.BLEU(lowercase=lowercase, **({"tokenize": tokenize} if tokenize else {}))
    if metric in ("chrf", "chrf++"):
        return sb.metrics.CHRF(word_order=2 if metric == "chrf++" else 0, lowercase=lowercase)
    return sb.metrics.TER(case_sensitive=ter_case_sensitive)


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


BOM = "\ufeff"


def read_lines(path: Any, source: str, field: str) -> list[str]:
    """A text file's lines as sacrebleu's command line reads them, so that the scores are its scores: UTF-8
    with a byte-order mark kept (``open(encoding="utf-8")`` keeps U+FEFF, scored as part of the first word),
    split at line feeds (the final one optional), trailing whitespace stripped from each line (its
    ``line.rstrip()``, a carriage return included). An OS or encoding error is a DataError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        why = "file not found" if isinstance(exc, FileNotFoundError) else exc.strerror or type(exc).__name__
        raise DataError(source, [Problem(source, None, field, f"{why}: {path}")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise DataError(str(path), [Problem(str(path), line, "", f"not UTF-8 text ({exc.reason})")]) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [x.rstrip() for x in lines]


TextFile = tuple[str, str, list[str]]  # (the spec's field, the file's path, its lines)


def read_files(sf: SpecFile, source: TextSource) -> tuple[list[TextFile], list[TextFile]]:
    """The reference and hypothesis files, read; an empty file or another number of lines than the first
    reference's is a DataError naming every such file at once."""
    where = str(sf.path)

    def read(field: str, name: str) -> TextFile:
        path = sf.resolve(name)
        return field, str(path), read_lines(path, where, field)

    refs = [read(f"data.scores.references[{k}]", r) for k, r in enumerate(source.references)]
    hyps = [read(f"data.scores.hypotheses.{system}", f) for system, f in source.hypotheses.items()]
    problems = line_problems(refs + hyps)
    if problems:
        files = {p.file for p in problems}
        raise DataError(problems[0].file if len(files) == 1 else where, problems)
    return refs, hyps


def line_problems(files: list[TextFile]) -> list[Problem]:
    """An empty file (no sentence to score: sacrebleu's statistics of nothing), or a file whose number of
    lines differs from the first reference's (line i of every file is sentence i). When several files have
    problems each message names its file and field (the error's head names one file only)."""
    first, n = files[0][1], len(files[0][2])
    once: dict[str, TextFile] = {}  # a file two systems share is named once, by its first field
    for f in files:
        once.setdefault(f[1], f)
    found: list[tuple[str, str, int | None, str]] = []
    for field, path, lines in once.values():
        if not lines:
            found.append((field, path, None, "is empty (no lines): there is no sentence to score"))
        elif n and len(lines) != n:
            found.append((field, path, min(len(lines), n) + 1, f"has {len(lines)} lines, the reference {first} has "
                          f"{n}: line i of every file must be sentence i"))
    several = len({path for _, path, _, _ in found}) > 1
    return [Problem(path, line, field if several else "", f"{path} {message}" if several else message)
            for field, path, line, message in found]


def bom_warnings(files: list[TextFile]) -> list[str]:
    """A byte-order mark at the start of a file is almost always an editor's mistake: sacrebleu keeps it as
    part of the first sentence's first word (so does sigreport, to give sacrebleu's scores), and it costs
    that sentence its first n-grams. Named, with the way out."""
    return list(dict.fromkeys(f"{path} starts with a byte-order mark (U+FEFF): scored as part of the first word of "
                              "its line 1, as sacrebleu does; save the file as UTF-8 without a BOM unless the mark is "
                              "meant" for _, path, lines in files if lines and lines[0].startswith(BOM)))


def text_source(sf: SpecFile, source: TextSource) -> tuple[Table, dict[str, object]]:
    """The long table of per-sentence statistics of every system and metric, and what results.json records
    (sacrebleu's version, each metric's signature, and a warning per file that starts with a byte-order mark)."""
    ref_files, hyp_files = read_files(sf, source)
    refs = [lines for _, _, lines in ref_files]
    files = [path for _, path, _ in ref_files]
    n = len(refs[0])
    corpus = source.corpus or (sf.spec.corpora[0] if sf.spec.corpora and len(sf.spec.corpora) == 1 else "test")
    parts: dict[str, list[Any]] = {"system": [], "metric": [], "value": [], "file": [], "line": []}
    stat_names: list[str] = []
    digest = hashlib.sha256()
    signatures = {}
    for s, (_, _, hyps) in enumerate(hyp_files):
        digest.update(hashlib.sha256("\n".join(hyps).encode()).digest())
        for metric in source.metrics:
            m = scorer(metric, source.tokenize, source.lowercase, source.ter_case_sensitive)
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
    all_files = files + [path for _, path, _ in hyp_files]
    table = long_table(f"{source.references[0]} (text)", digest.hexdigest(), columns, all_files, cat["file"], items)
    info: dict[str, object] = {"format": "text", "library": f"sacrebleu {sacrebleu_module().__version__}",
                               "signatures": signatures}
    warnings = bom_warnings(ref_files + hyp_files)
    if warnings:
        info["warnings"] = warnings
    return table, info


def _stat_code(names: list[str], metric: str, j: int) -> int:
    name = stat_name(metric, j)
    if name not in names:
        names.append(name)
    return names.index(name)


def stat_name(metric: str, j: int) -> str:
    """The metric-column name of statistic j of a text metric (what ``statistics:`` lists)."""
    return f"{metric}:{j}"
