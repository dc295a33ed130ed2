"""TREC runs and qrels, scored per query by ir_measures (its pytrec_eval provider, trec_eval's own code).

``data.scores: {format: trec, runs: runs/*.run, qrels: qrels.txt, measures: [nDCG@10, RR, AP]}``: each
run file is a system (named by the file name without its suffix), each query of the qrels an item, each
measure a per-query metric. A query of the qrels that a run does not answer scores 0, as ``trec_eval -c``
and ir_measures' aggregates count it (``missing: drop`` keeps only the queries every run answers). The
files are read here line by line so that a malformed line is reported with its file and line; the
measures are computed by ir_measures (``pip install 'sigreport[ir]'``), imported only here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.data.sources.long import coded, constant, long_table, numbers
from sigreport.data.sources.tables import matched_files
from sigreport.data.tables import MAX_ROWS_SHOWN, Table
from sigreport.errors import DataError, Problem
from sigreport.spec import SpecFile, TrecSource


def ir_measures_module() -> Any:
    try:
        import ir_measures
    except ImportError:
        raise ImportError("format trec needs ir_measures: pip install 'sigreport[ir]'") from None
    return ir_measures


def read_lines(path: Path, source: str, field: str) -> list[str]:
    try:
        return path.read_bytes().decode("utf-8-sig").splitlines()
    except FileNotFoundError:
        raise DataError(source, [Problem(source, None, field, f"file not found: {path}")]) from None
    except OSError as exc:
        raise DataError(source, [Problem(source, None, field, f"cannot read {path}: {exc.strerror}")]) from None
    except UnicodeDecodeError as exc:
        raise DataError(str(path), [Problem(str(path), None, "", f"not UTF-8 text ({exc.reason})")]) from None


def read_run(path: Path, source: str) -> dict[str, dict[str, float]]:
    """A run: query -> document -> score. Each non-blank line must be ``qid Q0 docid rank score tag``."""
    run: dict[str, dict[str, float]] = {}
    shown = str(path)
    bad: list[Problem] = []
    for number, line in enumerate(read_lines(path, source, "data.scores.runs"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            bad.append(Problem(shown, number, "", f"a run line has 6 fields (qid Q0 docid rank score tag); this one "
                               f"has {len(parts)}"))
        else:
            try:
                score = float(parts[4])
            except ValueError:
                bad.append(Problem(shown, number, "", f"the score (field 5) is not a number: {parts[4]!r}"))
            else:
                if not np.isfinite(score):
                    bad.append(Problem(shown, number, "", f"the score (field 5) is not finite: {parts[4]!r}"))
                elif parts[2] in run.setdefault(parts[0], {}):
                    bad.append(Problem(shown, number, "", f"document {parts[2]!r} is ranked twice for query "
                                       f"{parts[0]!r}"))
                else:
                    run[parts[0]][parts[2]] = score
        if len(bad) >= MAX_ROWS_SHOWN:
            break
    if bad:
        raise DataError(shown, bad)
    return run


def read_qrels(path: Path, source: str) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Qrels: query -> document -> relevance, and each query's first line. Lines: ``qid iteration docid rel``."""
    qrels: dict[str, dict[str, int]] = {}
    first: dict[str, int] = {}
    shown = str(path)
    bad: list[Problem] = []
    for number, line in enumerate(read_lines(path, source, "data.scores.qrels"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            bad.append(Problem(shown, number, "", f"a qrels line has 4 fields (qid iteration docid relevance); this "
                               f"one has {len(parts)}"))
        else:
            try:
                qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
                first.setdefault(parts[0], number)
            except ValueError:
                bad.append(Problem(shown, number, "", f"the relevance (field 4) is not a whole number: {parts[3]!r}"))
        if len(bad) >= MAX_ROWS_SHOWN:
            break
    if bad:
        raise DataError(shown, bad)
    if not qrels:
        raise DataError(shown, [Problem(shown, None, "", "the qrels file has no judgements")])
    return qrels, first


def trec_source(sf: SpecFile, source: TrecSource) -> tuple[Table, dict[str, object]]:
    """The long table of per-query values of every run and measure, and what results.json records."""
    irm = ir_measures_module()
    where = str(sf.path)
    try:
        measures = [irm.parse_measure(m) for m in source.measures]
    except (ValueError, NameError, TypeError, SyntaxError) as exc:
        raise DataError(where, [sf.problem(f"not an ir_measures measure: {exc}", "data", "scores", "measures")]) from None
    qrels_path = sf.resolve(source.qrels)
    qrels, qrels_line = read_qrels(qrels_path, where)
    runs = {p.stem: p for p in matched_files(sf, source.runs, ("data", "scores", "runs"))}
    queries = list(qrels)
    values: dict[str, np.ndarray] = {}
    answered = np.ones(len(queries), dtype=bool)
    index = {q: i for i, q in enumerate(queries)}
    digest = hashlib.sha256(qrels_path.read_bytes())
    for system, path in runs.items():
        run = read_run(path, where)
        digest.update(path.read_bytes())
        shared = set(run) & set(qrels)
        if not shared:
            shown = str(qrels_path)
            raise DataError(shown, [Problem(shown, None, "", f"judges none of the {len(run)} queries of run {path} "
                                            f"(qrels queries: {', '.join(queries[:5])}{', ...' if len(queries) > 5 else ''}; "
                                            f"run queries: {', '.join(list(run)[:5])}{', ...' if len(run) > 5 else ''}): "
                                            "a qrels file for other queries?")])
        answered &= np.array([q in run for q in queries])
        grid = np.zeros((len(measures), len(queries)))  # a query the run does not answer: 0, as trec_eval -c
        row = {str(m): k for k, m in enumerate(measures)}
        for metric in irm.pytrec_eval.iter_calc(measures, qrels, run):
            grid[row[str(metric.measure)], index[metric.query_id]] = metric.value
        values[system] = grid
    keep = answered if source.missing == "drop" else np.ones(len(queries), dtype=bool)
    return _table(sf, source, queries, keep, values, runs, qrels_path, qrels_line, digest.hexdigest()), {
        "format": "trec", "library": f"ir_measures {irm.__version__} (pytrec_eval)",
        "missing_queries": "scored 0 (trec_eval -c)" if source.missing == "zero" else "dropped"}


def _table(sf: SpecFile, source: TrecSource, queries: list[str], keep: np.ndarray, values: dict[str, np.ndarray],
           runs: dict[str, Path], qrels_path: Path, qrels_line: dict[str, int], digest: str) -> Table:
    cols = sf.spec.data.columns
    kept = np.flatnonzero(keep)
    n_m, n_q, n_s = len(source.measures), len(kept), len(values)
    corpus = source.corpus or (sf.spec.corpora[0] if sf.spec.corpora and len(sf.spec.corpora) == 1
                               else qrels_path.stem)
    system = np.repeat(np.arange(n_s), n_m * n_q)
    metric = np.tile(np.repeat(np.arange(n_m), n_q), n_s)
    query = np.tile(kept, n_s * n_m)
    value = np.concatenate([values[s][:, kept].ravel() for s in values]) if values else np.zeros(0)
    lines = np.array([qrels_line[q] for q in queries], dtype=np.int64)[query] if len(query) else np.zeros(0, np.int64)
    columns = {cols.system: coded(system, list(values)), cols.corpus: constant(corpus, len(query)),
               cols.item: coded(query, queries), cols.metric: coded(metric, source.measures), cols.value: numbers(value)}
    return long_table(f"{source.runs} (trec)", digest, columns, [str(qrels_path)], np.zeros(len(query), np.int64),
                      lines)
