"""Classification and agreement analyses: predicted labels against gold, and annotators against each other.

Each kind has a frozen result type whose fields are its results.json fields:

* ``classification`` (per corpus): per system the confusion matrix (rows gold, columns predicted) and
  every metric of :func:`sigreport.stats.classification.classification_metrics` with its bootstrap
  percentile interval over items.
* ``mcnemar`` (per corpus, two or more systems): McNemar's test on per-item correctness for every pair
  (``tests.comparisons``), p-values adjusted with ``tests.correction`` over the pairs of the corpus.
* ``cochran_q`` (per corpus, three or more systems, unless ``tests.omnibus: none``): Cochran's Q; the
  McNemar pairs are then its post-hoc tests.
* ``agreement`` (per corpus of the annotations, and per corpus of the predictions for
  ``systems_vs_gold``): one entry per measure. Two annotators: the coefficient, its agreement matrix.
  Three or more: Fleiss' kappa and Krippendorff's alpha are single coefficients; Cohen's (weighted)
  kappa is given for every pair of annotators in ``pairs`` and ``value`` is their mean (Light 1971,
  ``value_kind: mean_of_pairs``). ``systems_vs_gold``: one pair per system (``value_kind: per_pair``,
  no pooled value).

Statistics come from :mod:`sigreport.stats.classification`, :mod:`~sigreport.stats.contingency` and
:mod:`~sigreport.stats.agreement`; nothing is computed here but bookkeeping.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np

from sigreport.analyses.common import analysis_id, derived_seed
from sigreport.data import Annotations, AnnotationGroup, OutcomeGroup, Outcomes, PredictionGroup, Predictions
from sigreport.plan import Node
from sigreport.spec import AgreementSpec, ClassificationSpec, OutcomesSpec, Spec, TestsSpec
from sigreport.stats import agreement as agr
from sigreport.stats import contingency, registry
from sigreport.stats.declaration import AgreementInput
from sigreport.stats.methods.agreement import KAPPA_WEIGHTS
from sigreport.stats.classification import MetricValue, classification_metrics, f_name, matthews_corrcoef
from sigreport.results.records import (AgreementPair, AgreementRecord, ClassificationRecord, CochranQRecord,
                                       ConfusionMatrix, McNemarPair, McNemarRecord, SystemClassification)
from sigreport.stats.result import finite_or_none, is_significant

CLASSIFICATION = "classification"
OUTCOMES = "outcomes"  # the 'metric' of the analyses of paired yes/no outcomes (data.outcomes)
AGREEMENT = "agreement"
WEIGHTS = KAPPA_WEIGHTS  # the two-rater kappas' weights, from their declarations


# -------------------------------------------------------------------------------------------- parameters


@dataclasses.dataclass(frozen=True)
class LabelParams:
    """What label analyses read of the spec: plain, frozen data (it enters the nodes' content keys)."""

    tests: TestsSpec
    alpha: float
    seed: int
    baseline: str | None
    classification: ClassificationSpec | None
    agreement: AgreementSpec | None
    measure: str | None = None
    ci_level: float = 0.95  # every interval's level (Spec.interval_level: tests.ci_level, else 1 - alpha)

    @classmethod
    def of(cls, spec: Spec, measure: str | None = None) -> "LabelParams":
        return cls(spec.tests, spec.alpha, spec.seed, spec.baseline, spec.classification, spec.agreement, measure,
                   spec.interval_level())

    def metric_level(self) -> float:
        """The classification metrics' level: ``classification.ci_level`` when set (printed), else the rule's."""
        own = self.classification.ci_level if self.classification is not None else None
        return float(own) if own is not None else self.ci_level


# -------------------------------------------------------------------------------------------- classification


def _matrix(m: np.ndarray) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(x) for x in row) for row in np.asarray(m))


def classification_analysis(spec: LabelParams, preds: Predictions, group: PredictionGroup, node_id: str
                            ) -> ClassificationRecord:
    cls = spec.classification or ClassificationSpec()
    level = spec.metric_level()
    seed = np.random.default_rng(derived_seed(spec.seed, node_id))
    systems = []
    warnings: list[str] = []
    positive = cls.positive_label if cls.positive_label in group.labels else None
    if cls.positive_label is not None and positive is None:
        warnings.append(f"the positive label {cls.positive_label!r} does not occur in corpus {group.corpus!r}: "
                        "no metric of the positive class there")
    for j, system in enumerate(preds.systems):
        r = classification_metrics(group.gold, group.pred[:, j], group.labels, cls.beta, positive,
                                   cls.resamples, seed, level)
        mcc = matthews_corrcoef(group.gold, group.pred[:, j], len(group.labels), 1 - level, cls.resamples,
                                derived_seed(spec.seed, f"{node_id}/mcc/{system}"))
        metrics = dict(r.metrics)
        metrics["mcc"] = MetricValue(value=mcc.value, ci_low=mcc.ci_low, ci_high=mcc.ci_high)  # a new key, appended
        systems.append(SystemClassification(system=system, n=r.n, metrics=metrics, confusion_matrix=ConfusionMatrix(
            labels=r.labels, matrix=_matrix(r.matrix))))
        warnings += [f"{system}: {w}" for w in r.warnings + mcc.warnings]
    if group.dropped_items:
        warnings.append(f"{group.dropped_items} item(s) dropped because some system lacks them "
                        "(data.missing: drop_items)")
    return ClassificationRecord(id=node_id, kind=CLASSIFICATION, metric=CLASSIFICATION, corpus=group.corpus,
                                labels=group.labels, positive_label=positive, beta=float(cls.beta),
                                f_name=f_name(cls.beta), ci_level=float(level), ci_method="bootstrap_percentile",
                                n_resamples=int(cls.resamples), n_items=len(group.items),
                                dropped_items=group.dropped_items, systems=tuple(systems), warnings=tuple(warnings))


def label_pairs(systems: tuple[str, ...], spec: LabelParams) -> list[tuple[int, int]]:
    """The pairs compared, as :func:`sigreport.analyses.system_pairs`: all pairs (i < j), or each system
    with the baseline (system, baseline)."""
    if spec.tests.comparisons == "vs_baseline" and spec.baseline is not None and spec.baseline in systems:
        c = systems.index(spec.baseline)
        return [(i, c) for i in range(len(systems)) if i != c]
    return list(itertools.combinations(range(len(systems)), 2))


def mcnemar_analysis(spec: LabelParams, preds: Predictions | Outcomes, group: PredictionGroup | OutcomeGroup,
                     node_id: str, omnibus: CochranQRecord | None, metric: str = CLASSIFICATION) -> McNemarRecord:
    cls = spec.classification or ClassificationSpec()
    exact = {"auto": None, "exact": True, "chi2": False}[cls.mcnemar]
    correct = group.correct()
    pairs = label_pairs(preds.systems, spec)
    results = [contingency.mcnemar(correct[:, i], correct[:, j], exact=exact,
                                   continuity_correction=cls.mcnemar_correction, alpha=spec.alpha) for i, j in pairs]
    plain = [contingency.mcnemar(correct[:, i], correct[:, j], exact=False, continuity_correction=False,
                                 alpha=spec.alpha) for i, j in pairs]
    q = [contingency.cochran_q(correct[:, [i, j]]).statistic for i, j in pairs]
    raw = np.array([np.nan if r.pvalue is None else r.pvalue for r in results])
    adjusted = registry.method("correction", spec.tests.correction).compute(raw) if len(raw) else raw
    n = correct.shape[0]
    acc = correct.mean(axis=0) if n else np.full(correct.shape[1], np.nan)
    entries = []
    for (i, j), r, p_adj, u, q_ij in zip(pairs, results, adjusted, plain, q):
        p_adj_v = finite_or_none(p_adj)
        entries.append(McNemarPair(
            a=preds.systems[i], b=preds.systems[j], n=n, n00=r.n00, n01=r.n01, n10=r.n10, n11=r.n11,
            accuracy_a=finite_or_none(acc[i]), accuracy_b=finite_or_none(acc[j]), statistic=r.statistic, df=r.df,
            pvalue=r.pvalue, pvalue_adjusted=p_adj_v, exact=r.exact, continuity_correction=r.continuity_correction,
            significant=is_significant(p_adj_v, spec.alpha), critical_value=r.critical_value, reason=r.reason,
            warnings=r.warnings, statistic_uncorrected=u.statistic, pvalue_uncorrected=u.pvalue,
            cochran_q=finite_or_none(q_ij) if q_ij is not None else None))
    warnings = []
    if n == 0:
        warnings.append("There are no items on this corpus, so no test can be computed.")
    return McNemarRecord(id=node_id, kind="mcnemar", metric=metric, corpus=group.corpus, method=cls.mcnemar,
                         comparisons=spec.tests.comparisons, correction=spec.tests.correction,
                         family=spec.tests.family, family_size=len(entries), alpha=spec.alpha,
                         after="cochran_q" if omnibus is not None else None,
                         omnibus_significant=omnibus.significant if omnibus is not None else None,
                         pairs=tuple(entries), warnings=tuple(warnings))


def cochran_analysis(spec: LabelParams, preds: Predictions | Outcomes, group: PredictionGroup | OutcomeGroup,
                     node_id: str, metric: str = CLASSIFICATION) -> CochranQRecord:
    correct = group.correct()
    r = contingency.cochran_q(correct)
    acc = correct.mean(axis=0) if correct.shape[0] else np.full(correct.shape[1], np.nan)
    return CochranQRecord(id=node_id, kind="cochran_q", metric=metric, corpus=group.corpus, n=r.n, k=r.k,
                          accuracy={s: finite_or_none(a) for s, a in zip(preds.systems, acc)}, statistic=r.statistic,
                          df=r.df, pvalue=r.pvalue, significant=is_significant(r.pvalue, spec.alpha),
                          alpha=spec.alpha, warnings=r.warnings)


# -------------------------------------------------------------------------------------------- agreement


def default_measures(aspec: AgreementSpec, n_annotators: int) -> list[str]:
    """Two annotators: Cohen's kappa (+ linear and quadratic weighted for ordered labels); three or more:
    also Fleiss' kappa and Krippendorff's alpha (the pairwise kappas form a matrix)."""
    if aspec.measures:
        return list(dict.fromkeys(aspec.measures))
    out = ["cohen_kappa"]
    if aspec.level != "nominal":
        out += ["weighted_kappa_linear", "weighted_kappa_quadratic"]
    if n_annotators >= 3:
        out += ["fleiss_kappa", "krippendorff_alpha"]
    return out


def _pair_of(r: agr.AgreementResult, matrix: np.ndarray | None) -> AgreementPair:
    null = agr.cohen_kappa_null_test(matrix, WEIGHTS[r.measure]) if matrix is not None and r.measure in WEIGHTS \
        else None
    return AgreementPair(a=r.annotators[0], b=r.annotators[1], value=r.value, observed_agreement=r.observed_agreement,
                         expected_agreement=r.expected_agreement, se=r.se, ci_low=r.ci_low, ci_high=r.ci_high,
                         bootstrap_ci_low=r.bootstrap_ci_low, bootstrap_ci_high=r.bootstrap_ci_high,
                         interpretation=r.interpretation, n_items=r.n_items,
                         matrix=None if matrix is None else _matrix(matrix), warnings=r.warnings,
                         se_null=null.se_null if null is not None else None,
                         z_null=null.statistic if null is not None else None,
                         pvalue_null=null.pvalue if null is not None else None)


def _analysis(*, node_id: str, corpus: str | None, source: str, measure: str, labels: tuple[str, ...],
              annotators: tuple[str, ...], r: agr.AgreementResult | None, n_resamples: int, level: str,
              value_kind: str = "coefficient", matrix: np.ndarray | None = None,
              pairs: tuple[AgreementPair, ...] = (), value: float | None = None, n_items: int = 0,
              warnings: tuple[str, ...] = (), ci_level: float = 0.95) -> AgreementRecord:
    common = dict(id=node_id, kind=AGREEMENT, metric=AGREEMENT, corpus=corpus, source=source, measure=measure,
                  labels=labels, annotators=annotators, value_kind=value_kind, n_resamples=n_resamples, pairs=pairs)
    if r is not None:
        return AgreementRecord(
            **common, level=r.level, value=r.value, observed_agreement=r.observed_agreement,
            expected_agreement=r.expected_agreement, se=r.se, se_null=r.se_null, ci_low=r.ci_low, ci_high=r.ci_high,
            ci_level=r.ci_level, ci_method=r.ci_method, bootstrap_ci_low=r.bootstrap_ci_low,
            bootstrap_ci_high=r.bootstrap_ci_high, interpretation=r.interpretation, n_items=r.n_items,
            matrix=None if matrix is None else _matrix(matrix), warnings=tuple(warnings) + tuple(r.warnings))
    return AgreementRecord(
        **common, level=level, value=value, observed_agreement=None, expected_agreement=None, se=None, se_null=None,
        ci_low=None, ci_high=None, ci_level=ci_level, ci_method="none", bootstrap_ci_low=None,
        bootstrap_ci_high=None, interpretation=agr.landis_koch(value), n_items=n_items, matrix=None,
        warnings=tuple(warnings))


def _measure_level(measure: str, aspec: AgreementSpec) -> str:
    if measure == "krippendorff_alpha":
        return aspec.level
    return "ordinal" if measure.startswith("weighted") else "nominal"


def _light(pairs: tuple[AgreementPair, ...], what: str) -> tuple[float | None, list[str]]:
    values = [p.value for p in pairs if p.value is not None]
    warnings = []
    if len(values) < len(pairs):
        missing = [f"{p.a}-{p.b}" for p in pairs if p.value is None]
        warnings.append(f"The mean of the pairwise {what} leaves out the pairs where it is undefined: "
                        f"{', '.join(missing)}.")
    if not values:
        warnings.append(f"No pair of annotators has a defined {what}, so their mean is undefined.")
        return None, warnings
    return float(np.mean(values)), warnings


def agreement_analysis(spec: LabelParams, ann: Annotations, group: AnnotationGroup, measure: str, node_id: str
                       ) -> AgreementRecord:
    """One declared agreement measure (:mod:`sigreport.stats.methods.agreement`) on one corpus of annotations; an
    undeclared one raises :class:`~sigreport.stats.registry.UnknownMethod` naming the declared ones."""
    declared = registry.method(AGREEMENT, measure)
    aspec = spec.agreement or AgreementSpec()
    seed = derived_seed(spec.seed, node_id)
    k = len(ann.labels)
    x = group.ratings
    m = x.shape[1]
    names = group.annotators
    level = _measure_level(measure, aspec)
    common = dict(node_id=node_id, corpus=group.corpus, source="annotations", measure=measure, labels=ann.labels,
                  n_resamples=aspec.resamples, level=level)  # every annotation measure's record shares these
    if m < 2:
        who = f"only {names[0]} rated" if m == 1 else "nobody rated"
        where = f"corpus {group.corpus!r}" if group.corpus is not None else "these items"
        return _analysis(**common, annotators=names, r=None,
                         warnings=(f"{who[0].upper() + who[1:]} items of {where}, so there is no agreement to "
                                   "measure (two or more annotators are needed).",), ci_level=spec.ci_level)
    r = declared.compute(AgreementInput(ratings=x, n_labels=k, labels=ann.labels, annotators=names,
                                        values=ann.values, level=aspec.level, alpha_ci=1 - spec.ci_level,
                                        resamples=aspec.resamples, seed=seed))
    if measure not in WEIGHTS:  # one coefficient over every rater
        return _analysis(**common, annotators=r.annotators, r=r)
    weights = WEIGHTS[measure]
    if m == 2:
        matrix = agr.agreement_matrix(x[:, 0], x[:, 1], k)
        null = agr.cohen_kappa_null_test(matrix, weights)
        rec = _analysis(**common, annotators=names, r=r, matrix=matrix)
        return dataclasses.replace(rec, se_null=rec.se_null if rec.se_null is not None else null.se_null,
                                   z_null=null.statistic, pvalue_null=null.pvalue)
    iu = list(zip(*np.triu_indices(m, k=1)))
    pairs = tuple(_pair_of(p, agr.agreement_matrix(x[:, i], x[:, j], k)) for p, (i, j) in zip(r, iu))
    what = "kappas" if weights is None else f"{weights} weighted kappas"
    value, warnings = _light(pairs, what)
    n_items = int(np.sum((x >= 0).sum(axis=1) >= 2))
    return _analysis(**common, annotators=names, r=None, value_kind="mean_of_pairs", pairs=pairs, value=value,
                     n_items=n_items, warnings=tuple(warnings), ci_level=spec.ci_level)


def systems_vs_gold_analysis(spec: LabelParams, preds: Predictions, group: PredictionGroup, measure: str, node_id: str
                             ) -> AgreementRecord:
    """Kappa between each system's predictions and the gold labels (one pair per system): the declared measure's
    compute on two raters, the system and gold."""
    declared = registry.method(AGREEMENT, measure)
    aspec = spec.agreement or AgreementSpec()
    labels = tuple(aspec.order) if aspec.order else group.labels  # a declared order is the whole scale
    recode = np.array([labels.index(lab) for lab in group.labels], dtype=np.int64)
    gold = recode[group.gold]
    k = len(labels)
    rng = np.random.default_rng(derived_seed(spec.seed, node_id))
    pairs = []
    for j, system in enumerate(preds.systems):
        pred = recode[group.pred[:, j]]
        r = declared.compute(AgreementInput(ratings=np.column_stack((pred, gold)), n_labels=k, labels=labels,
                                            annotators=(system, "gold"), values=None, level="nominal",
                                            alpha_ci=1 - spec.ci_level, resamples=aspec.resamples, seed=rng))
        pairs.append(_pair_of(r, agr.agreement_matrix(pred, gold, k)))
    return _analysis(node_id=node_id, corpus=group.corpus, source="systems_vs_gold", measure=measure, labels=labels,
                     annotators=("gold",) + preds.systems, r=None, n_resamples=aspec.resamples,
                     level=_measure_level(measure, aspec), value_kind="per_pair", pairs=tuple(pairs),
                     n_items=len(group.items), ci_level=spec.ci_level)


# -------------------------------------------------------------------------------------------- the plan


# Node functions: fn(node_id, inputs, params, deps); inputs are ((predictions or annotations, group),).


def run_classification(node_id: str, inputs: tuple[Any, ...], params: LabelParams, deps: tuple[Any, ...]) -> Any:
    (preds, group), = inputs
    return classification_analysis(params, preds, group, node_id)


def run_cochran(node_id: str, inputs: tuple[Any, ...], params: LabelParams, deps: tuple[Any, ...]) -> Any:
    (preds, group), = inputs
    return cochran_analysis(params, preds, group, node_id)


def run_mcnemar(node_id: str, inputs: tuple[Any, ...], params: LabelParams, deps: tuple[Any, ...]) -> Any:
    (preds, group), = inputs
    return mcnemar_analysis(params, preds, group, node_id, deps[0] if deps else None)


def run_outcome_cochran(node_id: str, inputs: tuple[Any, ...], params: LabelParams, deps: tuple[Any, ...]) -> Any:
    (outcomes, group), = inputs
    return cochran_analysis(params, outcomes, group, node_id, OUTCOMES)


def run_outcome_mcnemar(node_id: str, inputs: tuple[Any, ...], params: LabelParams, deps: tuple[Any, ...]) -> Any:
    (outcomes, group), = inputs
    return mcnemar_analysis(params, outcomes, group, node_id, deps[0] if deps else None, OUTCOMES)


def run_agreement(node_id: str, inputs: tuple[Any, ...], params: LabelParams, deps: tuple[Any, ...]) -> Any:
    (ann, group), = inputs
    return agreement_analysis(params, ann, group, params.measure, node_id)


def run_vs_gold(node_id: str, inputs: tuple[Any, ...], params: LabelParams, deps: tuple[Any, ...]) -> Any:
    (preds, group), = inputs
    return systems_vs_gold_analysis(params, preds, group, params.measure, node_id)


def outcome_nodes(spec: Spec, outcomes: Outcomes) -> list[Node]:
    """McNemar's test for every pair and, with three or more systems, Cochran's Q first, per corpus of the paired
    yes/no outcomes (the options of ``outcomes`` in the classification options' places)."""
    o = spec.outcomes or OutcomesSpec()
    params = dataclasses.replace(LabelParams.of(spec), classification=ClassificationSpec(
        mcnemar=o.mcnemar, mcnemar_correction=o.mcnemar_correction))
    nodes: list[Node] = []
    for corpus in outcomes.corpora:
        block = (("outcomes", corpus),)
        qid = None
        if len(outcomes.systems) >= 3 and spec.tests.omnibus != "none":
            qid = analysis_id(OUTCOMES, corpus, "cochran_q")
            nodes.append(Node(id=qid, kind="cochran_q", metric=OUTCOMES, corpus=corpus, fn=run_outcome_cochran,
                              params=params, blocks=block, depends_on=(),
                              label="Cochran's Q on paired yes/no outcomes"))
        mid = analysis_id(OUTCOMES, corpus, "mcnemar")
        nodes.append(Node(id=mid, kind="mcnemar", metric=OUTCOMES, corpus=corpus, fn=run_outcome_mcnemar, params=params,
                          blocks=block, depends_on=(qid,) if qid else (),
                          label=f"McNemar {o.mcnemar}, {spec.tests.correction}"))
    return nodes


def label_nodes(spec: Spec, preds: Predictions | None, ann: Annotations | None) -> list[Node]:
    """Plan nodes for the predictions (classification, McNemar, Cochran's Q, systems vs gold) and the
    annotations (agreement), per corpus."""
    nodes: list[Node] = []
    aspec = spec.agreement or AgreementSpec()
    cls = spec.classification or ClassificationSpec()
    params = LabelParams.of(spec)
    if preds is not None:
        for corpus in preds.corpora:
            block = (("predictions", corpus),)
            cid = analysis_id(CLASSIFICATION, corpus, "classification")
            nodes.append(Node(id=cid, kind="classification", metric=CLASSIFICATION, corpus=corpus,
                              fn=run_classification, params=params, blocks=block, depends_on=(),
                              label=f"confusion matrices and metrics, bootstrap B = {cls.resamples}"))
            qid = None
            if len(preds.systems) >= 3 and spec.tests.omnibus != "none":
                qid = analysis_id(CLASSIFICATION, corpus, "cochran_q")
                nodes.append(Node(id=qid, kind="cochran_q", metric=CLASSIFICATION, corpus=corpus, fn=run_cochran,
                                  params=params, blocks=block, depends_on=(),
                                  label="Cochran's Q on per-item correctness"))
            if len(preds.systems) >= 2:
                mid = analysis_id(CLASSIFICATION, corpus, "mcnemar")
                nodes.append(Node(id=mid, kind="mcnemar", metric=CLASSIFICATION, corpus=corpus, fn=run_mcnemar,
                                  params=params, blocks=block, depends_on=(qid,) if qid else (),
                                  label=f"McNemar {cls.mcnemar}, {spec.tests.correction}"))
    if ann is not None:
        for corpus, group in ann.groups.items():
            for measure in default_measures(aspec, len(group.annotators)):
                aid = analysis_id(AGREEMENT, corpus, measure)
                nodes.append(Node(id=aid, kind="agreement", metric=AGREEMENT, corpus=corpus, fn=run_agreement,
                                  params=LabelParams.of(spec, measure), blocks=(("annotations", corpus),),
                                  depends_on=(), label=f"{measure}, {len(group.annotators)} annotators"))
    if preds is not None and spec.agreement is not None and aspec.systems_vs_gold:
        kappas = [m for m in default_measures(aspec, 2) if m in WEIGHTS] or ["cohen_kappa"]
        for corpus in preds.corpora:
            for measure in kappas:
                gid = analysis_id(AGREEMENT, corpus, f"{measure}-vs-gold")
                nodes.append(Node(id=gid, kind="agreement", metric=AGREEMENT, corpus=corpus, fn=run_vs_gold,
                                  params=LabelParams.of(spec, measure), blocks=(("predictions", corpus),),
                                  depends_on=(), label=f"{measure}, each system vs gold"))
    return nodes
