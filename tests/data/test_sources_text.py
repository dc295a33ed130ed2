"""MT outputs as text files (data.scores format text): per-sentence sufficient statistics from sacrebleu,
so that corpus BLEU, chrF and TER are resampled exactly.

The reference values are sacrebleu's own ``corpus_score`` on the same sentences: on the full set (the
report's value) and on random subsets with repeats (what a bootstrap resample is)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import sigreport
from sigreport.data import load_data

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
