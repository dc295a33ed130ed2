"""Broken prediction and annotation tables: one clear line per problem naming the file and rows; exit code 2."""

from __future__ import annotations

import pytest

from conftest import assert_user_error

PREDS = """\
system,corpus,item,gold,pred
A,c,t1,pos,pos
A,c,t2,neg,pos
A,c,t3,neg,neg
B,c,t1,pos,neg
B,c,t2,neg,neg
B,c,t3,neg,neg
"""
PRED_SPEC = """\
title: t
data:
  predictions: preds.csv
classification:
  resamples: 99
"""
ANNS = """\
item,annotator,label
t1,x,1
t2,x,2
t1,y,1
t2,y,1
"""
ANN_SPEC = """\
title: t
data:
  annotations: anns.csv
"""

# (name, spec, predictions, annotations, fragments expected in stderr)
CASES = [
    ("gold disagrees between systems", PRED_SPEC, PREDS.replace("B,c,t2,neg,neg", "B,c,t2,pos,neg"), None,
     ["preds.csv is invalid (1 problem)", "gold labels disagree between systems for the same item at lines 3, 6",
      "first: corpus 'c', item 't2': A says 'neg', B says 'pos'"]),
    ("label not declared", PRED_SPEC + "  labels: [pos, neg]\n", PREDS.replace("A,c,t3,neg,neg", "A,c,t3,neg,neu"),
     None, ["predicted label 'neu' at line 4 is not in classification.labels (pos, neg)"]),
    ("label not in agreement order", ANN_SPEC + "agreement:\n  level: ordinal\n  order: ['1', '2']\n", None,
     ANNS.replace("t2,y,1", "t2,y,3"), ["anns.csv is invalid", "label '3' at line 5 is not in agreement.order (1, 2)"]),
    ("one annotator", ANN_SPEC, None, ANNS.replace(",y,", ",x,").replace("t1,x,1\nt2,x,2\n", "", 1),
     ["only one annotator ('x') in column 'annotator': agreement needs two or more"]),
    ("missing column", PRED_SPEC, PREDS.replace("pred\n", "prediction\n"), None,
     ["missing column 'pred'; present: 'system', 'corpus', 'item', 'gold', 'prediction'"]),
    ("mapped column missing", PRED_SPEC.replace("classification:", "  label_columns:\n    gold: reference\n"
                                                 "classification:"), PREDS, None,
     ["missing column 'reference'", "(mapped in data.label_columns)"]),
    ("empty labels", PRED_SPEC, PREDS.replace("A,c,t2,neg,pos", "A,c,t2,neg,").replace("B,c,t1,pos,neg", "B,c,t1,,neg"),
     None, ["empty gold label at line 5", "empty predicted label at line 3"]),
    ("duplicate rows", PRED_SPEC, PREDS + "A,c,t1,pos,neg\n", None,
     ["duplicate (system, corpus, item) rows at lines 2, 8 (first: A, c, t1)"]),
    ("reserved label", PRED_SPEC, PREDS.replace("A,c,t3,neg,neg", "A,c,t3,neg,macro"), None,
     ["label 'macro' at line 4: macro, micro and weighted name metric averages"]),
    ("system lacks an item", PRED_SPEC, PREDS.replace("B,c,t3,neg,neg\n", ""), None,
     ["corpus 'c': B lacks item 't3' that another system has", "data.missing: drop_items"]),
    ("duplicate annotation", ANN_SPEC, None, ANNS + "t1,x,2\n", ["duplicate (item, annotator) rows at lines 2, 6"]),
    ("empty annotation label", ANN_SPEC, None, ANNS.replace("t2,y,1", "t2,y,"),
     ["empty label (leave the row out for a missing rating) at line 5"]),
    ("interval labels not numbers", ANN_SPEC + "agreement:\n  level: interval\n", None,
     ANNS.replace("t2,x,2", "t2,x,high"),
     ["agreement.level is interval, but label 'high' at line 3 is not a number"]),
    ("positive label unknown", PRED_SPEC + "  positive_label: yes_\n", PREDS, None,
     ["spec.yaml is invalid", "classification.positive_label (line 6): positive_label 'yes_' is not a label of"]),
    ("unknown test metric", PRED_SPEC + "  test_metrics: [accuracy, auc]\n", PREDS, None,
     ["classification.test_metrics[1] (line 6): 'auc' is not a classification metric"]),
    ("f1 needs positive label", PRED_SPEC + "  test_metrics: [f1]\ntests:\n  pairwise: bootstrap\n", PREDS, None,
     ["'f1' is the f1 of the positive class: set classification.positive_label"]),
    ("corpus-level metric with paired t", PRED_SPEC + "  test_metrics: [f1_macro]\n", PREDS, None,
     ["classification.test_metrics[0] (line 6): 'f1_macro' is a corpus-level metric",
      "only bootstrap and permutation apply, not paired_t"]),
    ("wrong beta name", PRED_SPEC + "  beta: 2\n  test_metrics: [f1_macro]\ntests:\n  pairwise: bootstrap\n", PREDS,
     None,
     ["the F-measure here is f2 (classification.beta = 2); write f2_macro"]),
    ("system not in predictions", PRED_SPEC + "systems: [A, Z]\n", PREDS, None,
     ["systems[1] (line 6): system 'Z' is not in", "present: A, B"]),
    ("declared twice", PRED_SPEC + "  labels: [pos, neg, pos]\n", PREDS, None,
     ["classification.labels (line 6): listed more than once: pos"]),
    ("two files, problems in both", PRED_SPEC.replace("  predictions: preds.csv\n",
                                                      "  predictions: preds.csv\n  annotations: anns.csv\n"),
     PREDS + "A,c,t1,pos,neg\n", ANNS + "t1,x,2\n",
     ["spec.yaml is invalid (2 problems)", "preds.csv: duplicate (system, corpus, item) rows",
      "anns.csv: duplicate (item, annotator) rows"]),
    ("yaml boolean label", PRED_SPEC + "  positive_label: yes\n", PREDS, None,
     ["classification.positive_label (line 6): YAML reads True as a boolean", "quote the label, e.g. 'yes'"]),
    ("corpus of the spec not in annotations", ANN_SPEC + "corpora: [zz]\n", None,
     "corpus," + ANNS.replace("\nt", "\nc,t"),
     ["corpora (line 4): none of the corpora is in", "present: c"]),
    ("weighted kappa on nominal labels", ANN_SPEC + "agreement:\n  measures: [cohen_kappa, weighted_kappa_linear]\n",
     None, ANNS, ["agreement.measures[1] (line 5): weighted_kappa_linear needs ordered labels"]),
    ("predictions file missing", PRED_SPEC, None, None, ["data.predictions: file not found"]),
]


@pytest.mark.parametrize("name,spec,preds,anns,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_label_input(cli, workdir, name, spec, preds, anns, fragments):
    workdir.write("spec.yaml", spec)
    if preds is not None:
        workdir.write("preds.csv", preds)
    if anns is not None:
        workdir.write("anns.csv", anns)
    assert_user_error(cli, workdir.path / "spec.yaml", workdir.path / "out", name, fragments)


def test_drop_items_instead_of_error(cli, workdir):
    workdir.write("spec.yaml", PRED_SPEC.replace("  predictions: preds.csv\n",
                                                 "  predictions: preds.csv\n  missing: drop_items\n"))
    workdir.write("preds.csv", PREDS.replace("B,c,t3,neg,neg\n", ""))
    r = cli("build", "-q", "-o", workdir.path / "out", "--formats", "json", workdir.path / "spec.yaml")
    assert r.code == 0, r.err
    (c,) = [a for a in workdir.results()["analyses"] if a["kind"] == "classification"]
    assert c["n_items"] == 2 and c["dropped_items"] == 1
    assert any("1 item(s) dropped" in w for w in c["warnings"])


def test_numeric_labels_may_be_unquoted_in_the_spec(cli, workdir):
    workdir.write("spec.yaml", ANN_SPEC + "agreement:\n  level: ordinal\n  order: [1, 2]\n  resamples: 99\n")
    workdir.write("anns.csv", ANNS)
    r = cli("build", "-q", "-o", workdir.path / "out", "--formats", "json", workdir.path / "spec.yaml")
    assert r.code == 0, r.err
    kinds = {a["measure"]: a for a in workdir.results()["analyses"]}
    assert kinds["weighted_kappa_linear"]["labels"] == ["1", "2"]
