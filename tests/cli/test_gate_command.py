"""sigreport gate end to end: exit codes 0, 1 and 2 (in process and as a real process), the markdown and JSON
outputs, fixed-sequence gatekeeping, a spec built first, and agreement with the report's decisions and its
own margins (one story)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import CONFIGS, ROOT, build_files, build_results, run_cli
from statsmodels.stats.weightstats import ttost_paired

from sigreport.results.decisions import decide_document


def scores(n: int = 60, seed: int = 11) -> tuple[str, dict]:
    """base; near (0.003 below base: non-inferior at margin 0.02, not at 0.001); worse (0.05 below); on two
    metrics (acc higher is better, err lower is better)."""
    rng = np.random.default_rng(seed)
    lines, values = ["system,corpus,item,metric,value"], {}
    for metric, sign in (("acc", 1.0), ("err", -1.0)):
        base = rng.uniform(0.3, 0.7, n)
        for s, d in (("base", 0.0), ("near", -0.003), ("worse", -0.05)):
            v = base + sign * d + rng.normal(0, 0.01, n)
            values[(s, metric)] = v
            lines += [f"{s},c,i{i},{metric},{float(x)!r}" for i, x in enumerate(v)]
    return "\n".join(lines) + "\n", values


SPEC = """
title: gate
systems: [base, near, worse]
baseline: base
data: {scores: scores.csv}
metrics:
  acc: {higher_is_better: true, decimals: 3}
  err: {higher_is_better: false, decimals: 3}
tests: {pairwise: paired_t, comparisons: vs_baseline}
"""


@pytest.fixture
def report(cli, workdir):
    text, values = scores()
    build_files(cli, workdir, SPEC, {"scores.csv": text})
    return workdir.path / "out", values


def gate(capsys, *args):
    return run_cli(capsys, "gate", *map(str, args))


def test_pass_fail_and_the_statistics(capsys, report):
    out, values = report
    code, text, err = gate(capsys, out, "--baseline", "base", "--candidate", "near", "--margin", "acc=0.02",
                           "--format", "json")
    assert code == 0, err
    doc = json.loads(text)
    (check,) = doc["checks"]
    assert check["verdict"] == "non-inferior" and doc["passed"]
    sm = ttost_paired(values[("near", "acc")], values[("base", "acc")], -0.02, 0.02)
    assert check["pvalue"] == pytest.approx(sm[1][1], rel=1e-9)  # the lower one-sided test: near - base > -D
    assert check["ci_level"] == pytest.approx(0.9) and check["ci_low"] > -0.02
    # a margin below the difference: not shown non-inferior, exit 1
    code, text, _ = gate(capsys, out, "--baseline", "base", "--candidate", "near", "--margin", "acc=0.0005")
    assert code == 1 and "not non-inferior" in text and "FAILED" in text
    # worse is 0.05 below: fails at 0.02
    code, text, _ = gate(capsys, out, "--baseline", "base", "--margin", "acc=0.02")
    assert code == 1 and "worse" in text
    # a lower-is-better metric: the upper one-sided test (near - base < D)
    code, text, _ = gate(capsys, out, "--baseline", "base", "--candidate", "near", "--margin", "err=0.02",
                         "--format", "json")
    (check,) = json.loads(text)["checks"]
    sm = ttost_paired(values[("near", "err")], values[("base", "err")], -0.02, 0.02)
    assert code == 0 and check["pvalue"] == pytest.approx(sm[2][1], rel=1e-9) and check["ci_high"] < 0.02


def test_fixed_sequence(capsys, report):
    out, _ = report
    # the primary fails: the secondary is not tested
    code, text, _ = gate(capsys, out, "--baseline", "base", "--candidate", "near", "--margin", "acc=0.0005",
                         "--margin", "err=0.02", "--metrics", "acc", "--secondary", "err", "--format", "json")
    checks = json.loads(text)["checks"]
    assert code == 1 and [(c["metric"], c["role"], c["verdict"]) for c in checks] == [
        ("acc", "primary", "not non-inferior"), ("err", "secondary", "not tested")]
    # the primary passes: the secondary is tested
    code, text, _ = gate(capsys, out, "--baseline", "base", "--candidate", "near", "--margin", "acc=0.02",
                         "--margin", "err=0.02", "--metrics", "acc", "--secondary", "err", "--format", "json")
    assert code == 0 and [c["verdict"] for c in json.loads(text)["checks"]] == ["non-inferior", "non-inferior"]
    # a secondary hypothesis that fails stops the sequence: the ones after it are not tested
    code, text, _ = gate(capsys, out, "--baseline", "base", "--margin", "acc=0.1", "--margin", "err=0.0001",
                         "--candidate", "near", "--candidate", "worse", "--metrics", "acc", "--secondary", "err",
                         "--format", "json")
    assert code == 1 and [(c["metric"], c["candidate"], c["verdict"]) for c in json.loads(text)["checks"]] == [
        ("acc", "near", "non-inferior"), ("acc", "worse", "non-inferior"), ("err", "near", "not non-inferior"),
        ("err", "worse", "not tested")]
    # a metric is primary or secondary, not both
    code, _, err = gate(capsys, out, "--baseline", "base", "--margin", "acc=0.1", "--metrics", "acc",
                        "--secondary", "acc")
    assert code == 2 and "either primary or secondary" in err


def test_markdown_names_estimate_interval_margin_verdict(capsys, report):
    out, _ = report
    code, text, _ = gate(capsys, out, "--baseline", "base", "--margin", "acc=0.02", "--format", "markdown")
    assert code == 1
    assert text.startswith("### Release gate: FAILED (baseline base)")
    row = next(line for line in text.splitlines() if line.startswith("| ") and "| near |" in line)
    assert "90% CI [" in row and "±0.02" in row and "**non-inferior**" in row
    row = next(line for line in text.splitlines() if "| worse |" in line)
    assert "**not non-inferior**" in row and "❌" in row
    assert "Fixed-sequence gatekeeping" in text


@pytest.mark.parametrize("args,fragment", [
    (["--baseline", "nobody", "--margin", "acc=0.1"], "system 'nobody' is not in the report"),
    (["--baseline", "base", "--margin", "bleu=0.1"], "metric 'bleu' is not in the report"),
    (["--baseline", "base", "--metrics", "acc"], "metric 'acc' has no margin"),
    (["--baseline", "base"], "no metric to gate"),
    (["--baseline", "base", "--margin", "acc=-1"], "is not METRIC=D"),
    (["--baseline", "base", "--margin", "acc"], "is not METRIC=D"),
    (["--baseline", "base", "--candidate", "base", "--margin", "acc=0.1"], "other than the baseline"),
])
def test_user_errors_exit_2(capsys, report, args, fragment):
    out, _ = report
    code, text, err = gate(capsys, out, *args)
    assert code == 2 and fragment in err and "Traceback" not in err and text == ""


def test_missing_report_exits_2(capsys, workdir):
    code, _, err = gate(capsys, workdir.path / "nothing", "--baseline", "a", "--margin", "acc=1")
    assert code == 2 and "no results.json" in err


def test_real_process_exit_codes(report):
    out, _ = report
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = lambda *a: subprocess.run([sys.executable, "-c", "import sys; from sigreport.cli import main; "  # noqa: E731
                                     "sys.exit(main(sys.argv[1:]))", "gate", str(out), *a],
                                    capture_output=True, text=True, env=env, timeout=120)
    assert run("--baseline", "base", "--candidate", "near", "--margin", "acc=0.02").returncode == 0
    assert run("--baseline", "base", "--margin", "acc=0.02").returncode == 1
    bad = run("--baseline", "base", "--margin", "acc=x")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 2 and "Traceback" not in bad.stderr


def test_a_spec_is_built_first(capsys, workdir):
    text, _ = scores()
    workdir.write("scores.csv", text)
    spec = workdir.write("spec.yaml", SPEC.replace("decimals: 3}\n  err", "decimals: 3, margin: 0.02}\n  err"))
    code, out, err = gate(capsys, spec, "--baseline", "base", "--candidate", "near")
    assert code == 0, err
    assert "PASSED" in out
    assert not (workdir.path / "out").exists()  # built into a temporary folder


def test_gate_reads_the_reports_margin_and_agrees_with_it(capsys, cli, workdir):
    text, _ = scores()
    doc = build_files(cli, workdir, SPEC.replace("decimals: 3}\n  err", "decimals: 3, margin: 0.02}\n  err"),
                      {"scores.csv": text})
    code, out, _ = gate(capsys, workdir.path / "out", "--baseline", "base", "--format", "json")
    checks = {c["candidate"]: c for c in json.loads(out)["checks"]}
    rec = next(a for a in doc["analyses"] if a["kind"] == "pairwise" and a["metric"] == "acc")
    for p in rec["pairs"]:  # vs_baseline pairs (system, base): the same orientation, the same unadjusted p
        assert checks[p["a"]]["pvalue"] == pytest.approx(p["equivalence"]["noninferiority_pvalue"], rel=1e-12)
        assert checks[p["a"]]["margin"] == 0.02
    assert code == 1 and checks["near"]["passed"] and not checks["worse"]["passed"]


@pytest.mark.parametrize("name", ["summarizers", "summarization", "release_gate"])
def test_one_story_with_the_decisions_on_examples(capsys, cli, tmp_path, name):
    """On the paired t examples, the gate's 'better' is exactly the Conclusions' 'significantly better', and a
    significantly better candidate is always non-inferior (whatever the margin)."""
    doc = build_results(cli, CONFIGS / f"{name}.yaml", tmp_path / name)
    decisions = decide_document(doc)
    metrics = list(doc["metrics"])
    baseline = doc["systems"][0]
    margins = [a for m in metrics for a in ("--margin", f"{m}=0.001")]
    code, out, err = gate(capsys, tmp_path / name, "--baseline", baseline, *margins, "--format", "json")
    assert code in (0, 1), err
    checks = json.loads(out)["checks"]
    assert checks
    for c in checks:
        block = decisions.get(c["metric"], c["corpus"])
        pair = next(p for p in block.pairs if {p.a, p.b} == {c["candidate"], baseline})
        assert (c["verdict"] == "better") == (pair.winner == c["candidate"])
        if pair.winner == c["candidate"]:
            assert c["pvalue"] <= c["alpha"]
        if pair.winner == baseline:  # significantly worse by more than nothing: never non-inferior at 0.001
            assert c["verdict"] == "not non-inferior" or c["estimate"] > -0.001
    assert (code == 0) == all(c["passed"] for c in checks)


def test_release_gate_example(capsys, cli, tmp_path):
    """configs/release_gate.yaml: pegasus passes against production bart-large (primary ROUGE-1, then the
    secondary metrics), with the margins the report was built with; lead-3 fails."""
    build_results(cli, CONFIGS / "release_gate.yaml", tmp_path / "r")
    code, out, _ = gate(capsys, tmp_path / "r", "--baseline", "bart-large", "--candidate", "pegasus", "--metrics",
                        "rouge1", "--secondary", "rougeL,length_ratio", "--format", "json")
    checks = json.loads(out)["checks"]
    assert code == 0 and [c["role"] for c in checks] == ["primary"] * 2 + ["secondary"] * 4
    assert {c["margin"] for c in checks if c["metric"] != "length_ratio"} == {0.01}
    code, out, _ = gate(capsys, tmp_path / "r", "--baseline", "bart-large", "--candidate", "lead-3")
    assert code == 1 and "not non-inferior" in out


def test_release_gate_exit_codes_in_a_real_process(example):
    """The gate as CI runs it (its own process, the exit status read by the shell) on the release_gate example
    as built by the session: 0 when every gated metric is non-inferior (pegasus: ROUGE-1, then ROUGE-L and the
    length ratio), 1 when one is not (lead-3), 2 on each kind of error, one line, no traceback (a system, a metric
    or a margin the report lacks, a badly formed margin, no report)."""
    report = example("release_gate")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(*a: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "import sys; from sigreport.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", "gate", *a], capture_output=True, text=True, env=env,
                              timeout=120)

    ok = run(str(report), "--baseline", "bart-large", "--candidate", "pegasus", "--metrics", "rouge1",
             "--secondary", "rougeL,length_ratio", "--format", "markdown")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("### Release gate: passed") and ok.stderr == ""
    failed = run(str(report), "--baseline", "bart-large", "--candidate", "lead-3")
    assert failed.returncode == 1 and "not non-inferior" in failed.stdout, failed.stderr
    every = run(str(report), "--baseline", "bart-large")  # t5-base and lead-3 are worse: the gate fails
    assert every.returncode == 1
    for args in (["--baseline", "gpt-9"], ["--baseline", "bart-large", "--metrics", "bleu"],
                 ["--baseline", "bart-large", "--margin", "rouge1=x"],
                 ["--baseline", "bart-large", "--candidate", "nobody"]):
        bad = run(str(report), *args)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stdout == "", (args, bad.stderr)
        assert bad.stderr.strip().count("\n") <= 1, (args, bad.stderr)  # one line (and at most a hint)
    missing = run(str(report / "no-such-folder"), "--baseline", "bart-large")
    assert missing.returncode == 2 and "no results.json" in missing.stderr and "Traceback" not in missing.stderr


def test_results_json_path_and_a_report_without_it(capsys, cli, workdir, report):
    out, _ = report
    code, text, _ = gate(capsys, out / "results.json", "--baseline", "base", "--candidate", "near", "--margin",
                         "acc=0.02")
    assert code == 0 and "PASSED" in text
    (out / "results.json").rename(out / "moved.json")
    code, _, err = gate(capsys, out, "--baseline", "base", "--margin", "acc=0.02")
    assert code == 2 and "no results.json" in err and "Traceback" not in err


def test_a_clustered_report_is_refused(capsys, cli, workdir):
    """The gate's t test takes the per-item SE: on clustered pairs (data.columns.cluster) it would be too narrow,
    so the gate refuses them in one line (exit 2), as metrics.M.margin is refused with clusters."""
    text, _ = scores()
    lines = text.splitlines()
    text = "\n".join([lines[0] + ",passage"] + [f"{x},p{int(x.split(',')[2][1:]) // 6}" for x in lines[1:]]) + "\n"
    build_files(cli, workdir, SPEC.replace("data: {scores: scores.csv}",
                                           "data: {scores: scores.csv, columns: {cluster: passage}}"),
                {"scores.csv": text})
    code, out, err = gate(capsys, workdir.path / "out", "--baseline", "base", "--candidate", "near",
                          "--margin", "acc=0.02", "--metrics", "acc")
    assert code == 2 and "clustered" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2
