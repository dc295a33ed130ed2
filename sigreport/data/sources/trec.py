"""TREC runs and qrels, scored per query by ir_measures (its pytrec_eval provider: trec_eval 9's code).

``data.scores: {format: trec, runs: runs/*.run, qrels: qrels.txt, measures: [nDCG@10, RR, AP]}``: each
run file is a system, named by its run tag (the 6th field, as trec_eval reports a run; ``system_name:
stem`` names it by the file name without its suffix), each query of the qrels an item, each measure a
per-query metric. A query of the qrels that a run does not answer is scored as an empty ranking, as
``trec_eval -c`` scores it (0 for every measure of the ranking, its judged count for NumRel); ``missing:
drop`` keeps only the queries every run answers. Either way results.json counts each run's unanswered
queries. The files are read here line by line so that a malformed line is reported with its file and
line, every problem of every file at once; the measures are computed by ir_measures (``pip install
'sigreport[ir]'``), imported only here. Measure names are ir_measures' (``AP``, ``P@5``) or trec_eval's
(``map``, ``P_5``, ``ndcg_cut_10``), the latter through ``ir_measures.parse_trec_measure``.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import math
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.data.sources.long import coded, constant, long_table, numbers
from sigreport.data.sources.tables import matched_files
from sigreport.data.tables import MAX_ROWS_SHOWN, Table
from sigreport.errors import DataError, Problem
from sigreport.spec import SpecFile, TrecSource
from sigreport.speed.collector import paused

# trec_eval names parse_trec_measure does not know: trec_eval 8's "R-prec" (trec_eval 9 prints Rprec)
OLD_TREC_EVAL_NAMES = {"R-prec": "Rprec"}


@dataclasses.dataclass(frozen=True)
class Run:
    """One run file read: its ranking (query -> document -> score), its run tag and the line it is first on."""

    path: Path
    ranking: dict[str, dict[str, float]]
    tag: str | None
    tag_line: int | None


def ir_measures_module() -> Any:
    try:
        import ir_measures
    except ImportError:
        raise ImportError("format trec needs ir_measures: pip install 'sigreport[ir]'") from None
    return ir_measures


def read_lines(path: Path, source: str, field: str, problems: list[Problem]) -> list[str]:
    """The file's lines; none, with a problem added, when it cannot be read (the other files are still read)."""
    try:
        return path.read_bytes().decode("utf-8-sig").splitlines()
    except FileNotFoundError:
        problems.append(Problem(source, None, field, f"file not found: {path}"))
    except OSError as exc:
        problems.append(Problem(source, None, field, f"cannot read {path}: {exc.strerror}"))
    except UnicodeDecodeError as exc:
        problems.append(Problem(str(path), None, "", f"not UTF-8 text ({exc.reason})"))
    return []


def read_run(path: Path, source: str, by_tag: bool, problems: list[Problem]) -> Run:
    """A run: query -> document -> score. Each non-blank line is ``qid Q0 docid rank score tag``; fields after
    the tag are ignored, as trec_eval ignores them. Named by tag, a file holds one tag (trec_eval keeps the
    last line's without a check, naming the whole file's values by it).

    A line that is right in every way (its tag the file's, a finite score, a document new to its query) takes
    the first branch, the exact checks every other line; the result is the same either way (tested)."""
    run: dict[str, dict[str, float]] = {}
    shown = str(path)
    bad: list[Problem] = []
    tag: str | None = None
    tag_line: int | None = None
    isfinite = math.isfinite  # math, not numpy: a Python float per line (5x faster)
    query: str | None = None
    ranked: dict[str, float] = {}
    for number, line in enumerate(read_lines(path, source, "data.scores.runs", problems), start=1):
        parts = line.split()
        if len(parts) >= 6 and (parts[5] == tag or (tag is not None and not by_tag)):
            try:
                score = float(parts[4])
            except ValueError:
                score = math.nan
            if isfinite(score):
                if parts[0] != query:
                    query = parts[0]
                    ranked = run.setdefault(query, {})
                if parts[2] not in ranked:
                    ranked[parts[2]] = score
                    continue
        if not parts:
            continue
        if len(parts) < 6:
            bad.append(Problem(shown, number, "", f"a run line has 6 fields (qid Q0 docid rank score tag; trec_eval "
                               f"ignores any after them); this one has {len(parts)}"))
        else:
            if tag is None:
                tag, tag_line = parts[5], number
            elif by_tag and parts[5] != tag:
                bad.append(Problem(shown, number, "", f"run tag {parts[5]!r} differs from {tag!r} of line {tag_line}: "
                                   "a run file holds one run, named by its tag (split the file, or name each run by "
                                   "its file: system_name: stem)"))
            try:
                score = float(parts[4])
            except ValueError:
                bad.append(Problem(shown, number, "", f"the score (field 5) is not a number: {parts[4]!r}"))
            else:
                if not isfinite(score):
                    bad.append(Problem(shown, number, "", f"the score (field 5) is not finite: {parts[4]!r}"))
                elif parts[2] in run.setdefault(parts[0], {}):
                    bad.append(Problem(shown, number, "", f"document {parts[2]!r} is ranked twice for query "
                                       f"{parts[0]!r}"))
                else:
                    run[parts[0]][parts[2]] = score
        if len(bad) >= MAX_ROWS_SHOWN:
            break
    problems += bad
    return Run(path, run, tag, tag_line)


def read_qrels(path: Path, source: str, problems: list[Problem]) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Qrels: query -> document -> relevance, and each query's first line. Lines: ``qid iteration docid rel``.

    A document judged twice for one query is refused, whether the grades agree or not (trec_eval stops on it:
    "duplicate docs", form_res_rels.c), as a document ranked twice in a run is."""
    qrels: dict[str, dict[str, int]] = {}
    at: dict[tuple[str, str], int] = {}
    first: dict[str, int] = {}
    shown = str(path)
    bad: list[Problem] = []
    before = len(problems)
    lines = read_lines(path, source, "data.scores.qrels", problems)
    for number, line in enumerate(lines, start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            bad.append(Problem(shown, number, "", f"a qrels line has 4 fields (qid iteration docid relevance); this "
                               f"one has {len(parts)}"))
        else:
            try:
                grade = int(parts[3])
            except ValueError:
                bad.append(Problem(shown, number, "", f"the relevance (field 4) is not a whole number: {parts[3]!r}"))
            else:
                judged = qrels.setdefault(parts[0], {})
                if parts[2] in judged:
                    before = at[(parts[0], parts[2])]
                    grades = (f"both {grade}" if judged[parts[2]] == grade
                              else f"{judged[parts[2]]} on line {before}, {grade} here")
                    bad.append(Problem(shown, number, "", f"document {parts[2]!r} of query {parts[0]!r} is judged "
                                       f"twice, on lines {before} and {number} ({grades}): one judgement a document"))
                else:
                    judged[parts[2]] = grade
                    at[(parts[0], parts[2])] = number
                    first.setdefault(parts[0], number)
        if len(bad) >= MAX_ROWS_SHOWN:
            break
    problems += bad
    if not qrels and len(problems) == before:  # read, and no line is wrong: blank
        problems.append(Problem(shown, None, "", "the qrels file has no judgements"))
    return qrels, first


def parse_measures(irm: Any, sf: SpecFile, names: list[str], problems: list[Problem]) -> list[Any]:
    """Each spec name as an ir_measures measure: its own name (``AP``, ``P@5``) or trec_eval's (``map``, ``P_5``,
    ``ndcg_cut_10``, ``R-prec``); a name that is neither, that names several measures, one measure twice, or
    one pytrec_eval does not compute is a problem (with a close name when there is one)."""
    found: list[Any] = []
    seen: dict[str, str] = {}
    for k, name in enumerate(names):
        measure, why = _measure(irm, name)
        if measure is None:
            problems.append(sf.problem(why, "data", "scores", "measures", k))
            continue
        if str(measure) in seen:
            problems.append(sf.problem(f"{name!r} is {measure}, as {seen[str(measure)]!r} is: name each measure once",
                                       "data", "scores", "measures", k))
        seen.setdefault(str(measure), name)
        found.append(measure)
    return found


def _measure(irm: Any, name: str) -> tuple[Any, str]:
    """The measure ``name`` names, or None and why not. An ir_measures name pytrec_eval does not compute (``P``
    without a cutoff) is tried as trec_eval's (``P``: its family P_5 ... P_1000)."""
    try:
        measure = irm.parse_measure(name)
    except (ValueError, NameError, TypeError, SyntaxError) as exc:
        why = f"not an ir_measures measure ({exc}) nor a trec_eval one{_close(irm, name)}"
    else:
        if _computed(irm, measure):
            return measure, ""
        why = f"{name!r} ({measure}) is not computed by pytrec_eval, ir_measures' provider this format uses"
    import pytrec_eval

    trec_name = OLD_TREC_EVAL_NAMES.get(name, name)
    if trec_name in pytrec_eval.supported_nicknames:  # parse_trec_measure would print to stdout
        return None, f"{name!r} is trec_eval's group of measures {name}: name each one"
    try:
        parsed = irm.parse_trec_measure(trec_name)
    except (ValueError, TypeError):
        return None, why
    if len(parsed) != 1:
        return None, (f"{name!r} is trec_eval's family of {len(parsed)} measures ({', '.join(map(str, parsed[:3]))}, "
                      "...): name each one")
    return parsed[0], ""


def _computed(irm: Any, measure: Any) -> bool:
    """Whether pytrec_eval computes ``measure`` (ir_measures asserts on a measure without its parameters)."""
    try:
        return bool(irm.pytrec_eval.supports(measure))
    except (AssertionError, ValueError, TypeError):
        return False


def _close(irm: Any, name: str) -> str:
    """'; did you mean nDCG@10?' for ``ndcg@10``: the measure name of another case or a close spelling."""
    base, sep, rest = name.partition("@")
    registry = irm.measures.registry  # every name and alias (NDCG, MAP), each measure printed by its own name
    known = sorted(registry)
    match = [k for k in known if k.lower() == base.lower()] or difflib.get_close_matches(base, known, n=1)
    return f"; did you mean {registry[match[0]]}{sep}{rest}?" if match else ""


def trec_source(sf: SpecFile, source: TrecSource) -> tuple[Table, dict[str, object]]:
    """The long table of per-query values of every run and measure, and what results.json records."""
    irm = ir_measures_module()
    where = str(sf.path)
    problems: list[Problem] = []
    measures = parse_measures(irm, sf, list(source.measures), problems)
    qrels_path = sf.resolve(source.qrels)
    with paused():  # dicts of numbers, no cycles: the collector's passes would only walk them (a fifth of the reading)
        qrels, qrels_line = read_qrels(qrels_path, where, problems)
        runs = _named_runs(sf, source, qrels, qrels_path, problems)
    if problems:
        _raise_all(problems)
    queries = list(qrels)
    index = {q: i for i, q in enumerate(queries)}
    values: dict[str, np.ndarray] = {}
    answered = np.ones(len(queries), dtype=bool)
    unanswered: dict[str, int] = {}
    unjudged: dict[str, int] = {}
    digest = hashlib.sha256(qrels_path.read_bytes())
    for system, run in runs.items():
        digest.update(run.path.read_bytes())
        answers = np.array([q in run.ranking for q in queries])
        answered &= answers
        if not answers.all():
            unanswered[system] = int((~answers).sum())
        extra = len(set(run.ranking) - set(qrels))  # ignored, as trec_eval ignores them, and counted
        if extra:
            unjudged[system] = extra
        values[system] = _scores(irm, measures, qrels, run.ranking, queries, index)
    keep = answered if source.missing == "drop" else np.ones(len(queries), dtype=bool)
    info: dict[str, object] = {
        "format": "trec", "library": f"ir_measures {irm.__version__} (pytrec_eval)",
        "missing_queries": "scored as empty rankings (trec_eval -c)" if source.missing == "zero" else "dropped"}
    if unanswered:
        info["unanswered_queries"] = unanswered
    if unjudged:
        info["queries_not_in_qrels"] = unjudged
    aliases = {n: str(m) for n, m in zip(source.measures, measures) if n != str(m)}
    if aliases:
        info["measures"] = aliases
    paths = {s: r.path for s, r in runs.items()}
    return _table(sf=sf, source=source, queries=queries, keep=keep, values=values, runs=paths, qrels_path=qrels_path,
                  qrels_line=qrels_line, digest=digest.hexdigest()), info


def _scores(irm: Any, measures: list[Any], qrels: dict[str, dict[str, int]], ranking: dict[str, dict[str, float]],
            queries: list[str], index: dict[str, int]) -> np.ndarray:
    """measures x queries: each query's values, an unanswered one's those of an empty ranking, as trec_eval -c
    gives them (its NumRel the judged count, not 0). An empty ranking's 0/0 (IPrec's precision of no document,
    NaN in trec_eval's code too) is scored 0, as its value adds nothing to trec_eval -c's mean."""
    full = {q: {} for q in queries if q not in ranking} | ranking
    grid = np.zeros((len(measures), len(queries)))
    row = {str(m): k for k, m in enumerate(measures)}
    for metric in irm.pytrec_eval.iter_calc(measures, qrels, full):
        if metric.query_id in index:
            grid[row[str(metric.measure)], index[metric.query_id]] = metric.value
    empty = [index[q] for q in queries if q not in ranking]
    grid[:, empty] = np.nan_to_num(grid[:, empty], nan=0.0, posinf=0.0, neginf=0.0)
    return grid


def _named_runs(sf: SpecFile, source: TrecSource, qrels: dict[str, dict[str, int]], qrels_path: Path,
                problems: list[Problem]) -> dict[str, Run]:
    """Every run file read, by its system name (tag or file stem); two files of one name are a problem naming
    both, as is a run that answers none of the qrels queries."""
    where = str(sf.path)
    by_tag = source.system_name == "tag"
    runs: dict[str, Run] = {}
    for path in matched_files(sf, source.runs, ("data", "scores", "runs")):
        before = len(problems)
        run = read_run(path, where, by_tag, problems)
        name = run.tag if by_tag else path.stem
        if run.tag is None:
            if len(problems) == before:
                problems.append(Problem(str(path), None, "", "the run file has no lines (qid Q0 docid rank score tag)"))
            continue
        if name in runs:
            what, hint = (("run tag", "give each run its own tag, or name runs by file (system_name: stem)") if by_tag
                          else ("file name without its suffix", "rename one, or name runs by tag (system_name: tag)"))
            problems.append(Problem(str(path), run.tag_line if by_tag else None, "",
                                    f"runs {runs[name].path} and {path} have one name, {name!r} (their {what}): "
                                    f"{hint}"))
            continue
        if qrels and not set(run.ranking) & set(qrels):
            problems.append(_none_judged(run, qrels_path, list(qrels)))
        runs[name] = run
    return runs


def _none_judged(run: Run, qrels_path: Path, queries: list[str]) -> Problem:
    shown = str(qrels_path)
    asked = list(run.ranking)
    return Problem(shown, None, "", f"judges none of the {len(asked)} queries of run {run.path} "
                   f"(qrels queries: {', '.join(queries[:5])}{', ...' if len(queries) > 5 else ''}; "
                   f"run queries: {', '.join(asked[:5])}{', ...' if len(asked) > 5 else ''}): "
                   "a qrels file for other queries?")


def _raise_all(problems: list[Problem]) -> None:
    """One DataError with every problem: headed by the file when they are all in one, else each naming its file."""
    files = list(dict.fromkeys(p.file for p in problems))
    if len(files) == 1:
        raise DataError(files[0], problems)
    raise DataError(f"the TREC input ({len(files)} files)",
                    [dataclasses.replace(p, field=f"{p.file}: {p.field}" if p.field else p.file) for p in problems])


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
