"""One sign convention in every LaTeX matrix: a cell's superscript is + when its row system is the better one
and − when its column system is, whatever the family's estimate (a difference of scores of either direction,
of average ranks where 1 is best), and the caption says so. Before, "+" meant "the row scores higher" in a
pairwise matrix and "the row has the larger average rank, worse" in the Nemenyi matrix beside it.

Demšar's AUC example (configs/demsar.yaml: Wilcoxon for every pair, Friedman, Nemenyi) with
``pairwise: matrix``, as it is and with the metric turned into 1 - AUC, lower is better.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Callable

import pytest
import yaml

from conftest import CONFIGS, CliResult, build_results

CELL = re.compile(r"\\textsuperscript\{(\+|\$-\$)\}")


def build(cli: Callable[..., CliResult], work: Path, lower: bool) -> Path:
    doc = yaml.safe_load((CONFIGS / "demsar.yaml").read_text(encoding="utf-8"))
    doc.setdefault("outputs", {})["latex"] = {"pairwise": "matrix"}
    with (CONFIGS / doc["data"]["scores"]).open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if lower:  # 1 - AUC: the same ranking of systems, the scores' direction reversed
        for r in rows:
            r["value"] = f"{1 - float(r['value']):.4f}"
        doc["metrics"]["auc"]["higher_is_better"] = False
    with (work / "scores.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    doc["data"]["scores"] = "scores.csv"
    (work / "spec.yaml").write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    build_results(cli, work / "spec.yaml", work / "out", formats="json,latex")
    return work / "out"


def signs(tex: str) -> dict[tuple[str, str], str]:
    """{(row system, column system): '+' or '-'} of a lower-triangle matrix's cells."""
    head, body = tex.split("\\midrule\n")
    columns = [c.strip() for c in head.split("\\toprule\n")[1].split("\\\\")[0].split(" & ")[1:]]
    out = {}
    for line in body.split("\\bottomrule")[0].strip().splitlines():
        row, *cells = [c.strip() for c in line.rstrip(" \\").split(" & ")]
        for col, cell in zip(columns, cells):
            if (m := CELL.search(cell)):
                out[(row, col)] = "+" if m.group(1) == "+" else "-"
    return out


@pytest.mark.parametrize("lower", [False, True], ids=["higher-is-better", "lower-is-better"])
def test_plus_is_the_row_system_better_in_every_matrix(cli, tmp_path, lower):
    out = build(cli, tmp_path, lower)
    analyses = {a["kind"]: a for a in json.loads((out / "results.json").read_text())["analyses"]}
    # who is better in each pair, from the records: the estimate a - b in the metric's direction; the
    # difference of average ranks a - b (rank 1 is best)
    better = {"pairwise": {(p["a"], p["b"]): (p["estimate"] < 0) == lower for p in analyses["pairwise"]["pairs"]},
              "posthoc": {(p["a"], p["b"]): p["rank_difference"] < 0 for p in analyses["posthoc"]["pairs"]}}
    found = {}
    for kind in better:
        tex = (out / "tables" / f"auc--all--{kind}.tex").read_text(encoding="utf-8")
        assert "Signs: + when the row system is the better one" in tex.split("\\caption{")[1].split("\\label")[0]
        found[kind] = signs(tex)
        assert len(found[kind]) == 6, kind  # 4 systems: every pair once
        for (row, col), sign in found[kind].items():
            row_better = better[kind][(row, col)] if (row, col) in better[kind] else not better[kind][(col, row)]
            assert sign == ("+" if row_better else "-"), (kind, row, col)
    # on these data the two tests see the same direction in every pair: the matrices side by side agree
    assert found["pairwise"] == found["posthoc"]
