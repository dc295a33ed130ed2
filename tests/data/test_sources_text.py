"""MT outputs as text files (data.scores format text): per-sentence sufficient statistics from sacrebleu,
so that corpus BLEU, chrF and TER are resampled exactly.

The reference values are sacrebleu's own ``corpus_score`` on the same sentences: on the full set (the
report's value) and on random subsets with repeats (what a bootstrap resample is)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import sigreport
from sigreport.data import load_data
from sigreport.escaping import markdown_text

sacrebleu = pytest.importorskip("sacrebleu")

WORDS = "the a cat dog sat ran on under mat house big small red green quickly slowly and of".split()


def write_text_set(folder, n=60, systems=("base", "better"), seed=0):
    """Synthetic references and two systems' hypotheses (edits of the references), one sentence a line."""
    rng = np.random.default_rng(seed)
    refs = [" ".join(rng.choice(WORDS, rng.integers(3, 12))) + "." for _ in range(n)]
    (folder / "ref.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    for k, system in enumerate(systems):
        hyps = []
        for r in refs:
            words = r.split()
            for i in range(len(words)):
                if rng.random() < 0.4 - 0.15 * k:
                    words[i] = str(rng.choice(WORDS))
            hyps.append(" ".join(words))
        (folder / f"{system}.txt").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    return refs


def spec_of(metrics=("bleu", "chrf", "ter"), **extra):
    return {"title": "t", "data": {"scores": {"format": "text", "hypotheses": {"base": "base.txt", "better": "better.txt"},
                                              "references": ["ref.txt"], "metrics": list(metrics), **extra}},
            "tests": {"pairwise": "bootstrap", "resamples": 199}}


def write_spec(tmp_path, spec=None):
    """``spec`` (default: spec_of()) as mt.yaml in ``tmp_path``; its path."""
    import yaml

    (tmp_path / "mt.yaml").write_text(yaml.safe_dump(spec or spec_of()), encoding="utf-8")
    return tmp_path / "mt.yaml"


@pytest.mark.parametrize("metric", ["bleu", "chrf", "chrf++", "ter"])
def test_corpus_value_from_statistics_equals_sacrebleu_on_every_resample(tmp_path, metric):
    refs = write_text_set(tmp_path)
    ds = load_data(sigreport.load_spec(spec_of([metric]), base_dir=tmp_path))
    block = ds.blocks[(metric, "test")]
    agg = ds.aggregates[metric]
    scorer = {"bleu": sacrebleu.metrics.BLEU(), "chrf": sacrebleu.metrics.CHRF(),
              "chrf++": sacrebleu.metrics.CHRF(word_order=2), "ter": sacrebleu.metrics.TER()}[metric]
    rng = np.random.default_rng(1)
    for j, system in enumerate(block.systems):
        hyps = (tmp_path / f"{system}.txt").read_text(encoding="utf-8").splitlines()
        full = agg.value(block.stats[:, j].sum(axis=0), len(refs))
        assert full == scorer.corpus_score(hyps, [refs]).score  # exactly sacrebleu's number
        for _ in range(20):  # bootstrap resamples: items drawn with repeats
            idx = rng.integers(0, len(refs), len(refs))
            got = agg.value(block.stats[idx, j].sum(axis=0), len(idx))
            want = scorer.corpus_score([hyps[i] for i in idx], [[refs[i] for i in idx]]).score
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_the_report_records_the_signature_and_sacrebleus_values(cli, tmp_path):
    refs = write_text_set(tmp_path)
    spec = tmp_path / "mt.yaml"
    import yaml

    spec.write_text(yaml.safe_dump(spec_of()), encoding="utf-8")
    assert cli("build", spec, "-o", tmp_path / "out", "--formats", "json", "--no-cache", "-q").code == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    source = results["data"]["source"]
    assert source["format"] == "text" and source["library"] == f"sacrebleu {sacrebleu.__version__}"
    hyps = (tmp_path / "better.txt").read_text().splitlines()
    bleu = sacrebleu.metrics.BLEU()
    bleu.corpus_score(hyps, [refs])
    assert source["signatures"]["bleu"] == str(bleu.get_signature()) == \
        f"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:{sacrebleu.__version__}"
    desc = next(a for a in results["analyses"] if a["id"] == "bleu/test/descriptives")
    better = next(s for s in desc["systems"] if s["system"] == "better")
    assert better["mean"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, rel=1e-12)
    assert results["metrics"]["ter"]["higher_is_better"] is False


def test_hypotheses_with_another_number_of_lines(cli, tmp_path):
    write_text_set(tmp_path)
    lines = (tmp_path / "better.txt").read_text().splitlines()
    (tmp_path / "better.txt").write_text("\n".join(lines[:-2]) + "\n")
    import yaml

    (tmp_path / "mt.yaml").write_text(yaml.safe_dump(spec_of()), encoding="utf-8")
    r = cli("validate", tmp_path / "mt.yaml")
    assert r.code == 2
    assert "better.txt" in r.err and "line 59: has 58 lines, the reference" in r.err and "has 60" in r.err


# A small realistic set with mixed case (names, sentence starts, an all-caps word) that the systems get wrong
# in case only, in words, or both: case decides TER's and BLEU's values here.
REFS = ["The European Commission approved the plan on Tuesday.", "Mr. Smith said the talks in Berlin had failed.",
        "NASA will launch the probe next year.", "Prices rose by 3 percent in March, the Office said.",
        "She told Reuters that the company would not comment."]
HYPS = {"base": ["the european commission approved the plan on tuesday .", "Mr Smith said talks in berlin failed.",
                 "Nasa will launch a probe next year.", "prices rose 3 percent in march, the office said.",
                 "She told reuters the firm would not comment."],
        "better": ["The European Commission approved the plan on tuesday.", "Mr. Smith said the talks in Berlin failed.",
                   "NASA will launch the probe next year.", "Prices rose by 3 per cent in March, the office said.",
                   "she told Reuters that the company would not comment."]}


def write_cased(folder, hyps=HYPS, refs=REFS, bom=()):
    """REFS and HYPS as files ref.txt, base.txt, better.txt (a byte-order mark at the start of those in ``bom``)."""
    for name, lines in {"ref": refs, **hyps}.items():
        text = "\n".join(lines) + "\n"
        (folder / f"{name}.txt").write_bytes((b"\xef\xbb\xbf" if name in bom else b"") + text.encode("utf-8"))


def corpus_values(tmp_path, **options):
    """sigreport's corpus value of each metric and system (its aggregate on the summed statistics), and the
    signatures results.json records."""
    ds = load_data(sigreport.load_spec(spec_of(**options), base_dir=tmp_path))
    out = {}
    for metric in ("bleu", "chrf", "ter"):
        block = ds.blocks[(metric, "test")]
        for j, system in enumerate(block.systems):
            out[metric, system] = float(ds.aggregates[metric].value(block.stats[:, j].sum(axis=0), len(REFS)))
    return out, ds.source_info["signatures"]


def test_mixed_case_scores_equal_sacrebleus_defaults(tmp_path):
    write_cased(tmp_path)
    got, signatures = corpus_values(tmp_path)
    for system, hyps in HYPS.items():
        assert got["bleu", system] == pytest.approx(sacrebleu.corpus_bleu(hyps, [REFS]).score, abs=1e-9)
        assert got["chrf", system] == pytest.approx(sacrebleu.corpus_chrf(hyps, [REFS]).score, abs=1e-9)
        assert got["ter", system] == pytest.approx(sacrebleu.corpus_ter(hyps, [REFS]).score, abs=1e-9)
    # the case matters on this data: case-sensitive TER (the old default) is another number
    assert sacrebleu.corpus_ter(HYPS["base"], [REFS], case_sensitive=True).score > got["ter", "base"] + 1
    defaults = {"bleu": sacrebleu.metrics.BLEU(), "chrf": sacrebleu.metrics.CHRF(), "ter": sacrebleu.metrics.TER()}
    for metric, m in defaults.items():
        m.corpus_score(HYPS["base"], [REFS])
        assert signatures[metric] == str(m.get_signature())
    assert "case:lc" in signatures["ter"] and "case:mixed" in signatures["bleu"]


def test_case_options_are_sacrebleus(tmp_path):
    write_cased(tmp_path)
    got, signatures = corpus_values(tmp_path, lowercase=True, ter_case_sensitive=True)
    for system, hyps in HYPS.items():
        assert got["bleu", system] == pytest.approx(sacrebleu.corpus_bleu(hyps, [REFS], lowercase=True).score,
                                                    abs=1e-9)
        assert got["chrf", system] == pytest.approx(
            sacrebleu.metrics.CHRF(lowercase=True).corpus_score(hyps, [REFS]).score, abs=1e-9)
        assert got["ter", system] == pytest.approx(sacrebleu.corpus_ter(hyps, [REFS], case_sensitive=True).score,
                                                   abs=1e-9)
    assert "case:mixed" in signatures["ter"] and "case:lc" in signatures["bleu"]


def sacrebleu_cli(folder, hyp, metric):
    """What sacrebleu's command line prints for ``hyp`` against ref.txt (10 decimals): it reads the files itself."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "sacrebleu", str(folder / "ref.txt"), "-i", str(folder / hyp),
                          "-m", metric, "-b", "-w", "10"], capture_output=True, text=True, check=True)
    return float(out.stdout)


def test_a_byte_order_mark_is_scored_as_sacrebleu_does_and_named(cli, tmp_path):
    write_cased(tmp_path, bom=("better",))
    got, _ = corpus_values(tmp_path)
    for metric in ("bleu", "chrf", "ter"):
        assert got[metric, "better"] == pytest.approx(sacrebleu_cli(tmp_path, "better.txt", metric), abs=1e-9)
    stripped = sacrebleu.corpus_bleu(HYPS["better"], [REFS]).score
    assert got["bleu", "better"] < stripped - 1  # the mark costs the first sentence its first n-grams
    spec = write_spec(tmp_path)
    counts = []
    for out in ("out", "plain"):
        r = cli("build", spec, "-o", tmp_path / out, "--formats", "json", "--no-cache")
        assert r.code == 0, r.err
        counts.append(int(re.search(r"(\d+) warnings", r.out).group(1)))
        write_cased(tmp_path)  # the same files without the mark
    assert counts[0] == counts[1] + 3  # the mark's warning, beside each metric's descriptives, counted by the build
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    [warning] = results["data"]["source"]["warnings"]
    assert str(tmp_path / "better.txt") in warning and "byte-order mark" in warning
    for metric in ("bleu", "chrf", "ter"):
        desc = next(a for a in results["analyses"] if a["id"] == f"{metric}/test/descriptives")
        assert warning in desc["warnings"]
    assert "warnings" not in json.loads((tmp_path / "plain" / "results.json").read_text())["data"]["source"]


def test_trailing_whitespace_is_stripped_as_sacrebleu_does(tmp_path):
    hyps = {"base": [h + " \t\u00a0" for h in HYPS["base"]], "better": [h + "\r" for h in HYPS["better"]]}
    write_cased(tmp_path, hyps=hyps)
    got, _ = corpus_values(tmp_path)
    for system in HYPS:
        for metric in ("bleu", "chrf", "ter"):
            assert got[metric, system] == pytest.approx(sacrebleu_cli(tmp_path, f"{system}.txt", metric), abs=1e-9)


def test_empty_files_are_a_data_error_naming_them(cli, tmp_path):
    for name in ("ref", "base", "better"):
        (tmp_path / f"{name}.txt").write_bytes(b"")
    r = cli("validate", write_spec(tmp_path))
    assert r.code == 2 and "Traceback" not in r.err
    for name, field in (("ref", "references[0]"), ("base", "hypotheses.base"), ("better", "hypotheses.better")):
        assert f"data.scores.{field}: {tmp_path / (name + '.txt')} is empty (no lines)" in r.err


def test_one_empty_hypothesis_file_is_named(cli, tmp_path):
    write_cased(tmp_path)
    (tmp_path / "better.txt").write_bytes(b"")
    r = cli("validate", write_spec(tmp_path))
    assert r.code == 2
    assert f"error: {tmp_path / 'better.txt'} is invalid (1 problem)" in r.err and "is empty (no lines)" in r.err


def test_every_file_with_another_number_of_lines_is_named_at_once(cli, tmp_path):
    write_cased(tmp_path, hyps={"base": HYPS["base"][:3], "better": HYPS["better"] + ["One more."]})
    r = cli("validate", write_spec(tmp_path))
    assert r.code == 2 and "(2 problems)" in r.err
    assert f"data.scores.hypotheses.base (line 4): {tmp_path / 'base.txt'} has 3 lines, the reference" in r.err
    assert f"data.scores.hypotheses.better (line 6): {tmp_path / 'better.txt'} has 6 lines, the reference" in r.err


def test_empty_sentences_are_scored_without_a_crash(cli, tmp_path):
    write_cased(tmp_path, hyps={"base": [""] * len(REFS), "better": HYPS["better"]})
    got, _ = corpus_values(tmp_path)
    assert got["bleu", "base"] == sacrebleu.corpus_bleu([""] * len(REFS), [REFS]).score == 0.0
    assert got["ter", "base"] == pytest.approx(sacrebleu.corpus_ter([""] * len(REFS), [REFS]).score, abs=1e-9)


def test_a_spec_with_only_data_builds_with_approximate_randomization(cli, tmp_path):
    write_text_set(tmp_path, n=40)
    spec = {"title": "t", "data": spec_of()["data"]}  # no tests section: the defaults
    r = cli("build", write_spec(tmp_path, spec), "-o", tmp_path / "out", "--formats", "json,html", "--no-cache", "-q")
    assert r.code == 0, r.err
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["tests"]["pairwise"] == "auto"
    families = [a for a in results["analyses"] if a["kind"] == "pairwise"]
    assert [f["metric"] for f in families] == ["bleu", "chrf", "ter"]
    for f in families:
        assert f["method"] == "permutation" and f["selection"]["method"] == "permutation"
        assert f["pairs"][0]["pvalue"] is not None and f["pairs"][0]["ci_low"] is not None
    methods = (tmp_path / "out" / "methods.md").read_text()
    assert ("BLEU, chrF2 and TER are corpus-level metrics (computed from summed per-item statistics), where only "
            "resampling tests apply: the test chosen for them was the paired permutation test (approximate "
            "randomization), with the paired bootstrap's interval of the difference.") in methods
    assert "paired t test when there were at least 30 items" not in methods  # that rule is for mean metrics
    for metric, signature in results["data"]["source"]["signatures"].items():
        assert markdown_text(signature) in methods  # Markdown escapes the fields' "|" (sigreport.escaping)
        assert "|" in signature and "|" not in markdown_text(signature).replace("\\|", "")
    assert "computed with sacrebleu " + sacrebleu.__version__ + " (Post 2018)" in methods
