"""The methods paragraph says what was done, in the words a paper uses (issue 32, item 4), over every example:

* a correction family is described as it was formed (``tests.family`` and the records' ``family_size``): one
  score per corpus is not "on each corpus", a family pooling corpora is "one family of N comparisons across the
  K corpora";
* the decisions are "corrected" only when a correction changed a p-value;
* counts from one to nine are words ("three systems"), numerals from 10 on; statistics, alpha, B, seeds,
  versions, labels ("tier 1") and formulas ("1 plus the number of systems") keep their numerals;
* the seed is stated only when something in the report drew random numbers, which the method declarations say
  (``MethodDeclaration.random``, ``ProcedureDeclaration.random``, an MDE rule of ``simulation``), not a list of
  names.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml

import sigreport
from conftest import CONFIGS
from sigreport.render.views.methods import corrected, methods, random_parts
from sigreport.results.decisions import decide
from sigreport.stats import registry

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


@pytest.fixture(scope="module")
def paragraphs() -> dict[str, tuple[object, str]]:
    """Every example's results and its plain methods paragraph."""
    out = {}
    for name in EXAMPLES:
        results = sigreport.analyze(CONFIGS / f"{name}.yaml")
        out[name] = (results, methods(results, decide(results)).plain())
    return out


def without_names(results, text: str) -> str:
    """``text`` with the user's names (systems, metric labels, corpora) taken out: "Alg. 3" or "ROUGE-1" are
    names, not counts."""
    names = [*results.systems, *(m.label for m in results.metrics.values()), *(c for c in results.corpora if c)]
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, "NAME")
    return text


# a lone digit 1-9 followed by a word: a count written as a numeral ("3 systems", "6 comparisons"). Not a count:
# a digit inside a number or a name ("0.05", "5x2cv", "pass@1", "ROUGE-1"), a label ("tier 1", "method 10"),
# or arithmetic ("B = 2000", "G − 1 degrees", "1 - 2 alpha", "1 plus the number of systems", "0 or 1").
LONE_COUNT = re.compile(r"(?<![\w.,@/=+\-\u2212(])(?<![=+\-\u2212\u00d7] )(?<!tier )(?<!method )"
                        r"([1-9]) (?!plus\b|or\b)([a-z]+)")


@pytest.mark.parametrize("name", EXAMPLES)
def test_counts_under_ten_are_words(paragraphs, name):
    results, text = paragraphs[name]
    assert LONE_COUNT.findall(without_names(results, text)) == [], text


def test_the_count_rule_finds_a_numeral_count():
    assert LONE_COUNT.findall("We compared 3 systems over 6 comparisons") == [("3", "systems"), ("6", "comparisons")]
    assert LONE_COUNT.findall("tier 1 is; 1 plus the number; 0 or 1; 5x2cv; B = 2 resamples; 14 corpora") == []


def test_counts_words_and_numerals(paragraphs):
    assert "We compared four systems" in paragraphs["classifiers"][1]
    assert "We compared 24 systems" in paragraphs["leaderboard"][1]
    assert "over 14 corpora" in paragraphs["demsar"][1]
    assert "every question three times" in paragraphs["llm_bench"][1]


def test_one_score_per_corpus_is_not_a_family_on_each_corpus(paragraphs):
    # demsar: tests.level corpora, one metric, six pairs of four systems; each record's family is its own
    text = paragraphs["demsar"][1]
    assert "adjusted with Holm's procedure (Holm 1979) over the six comparisons." in text
    assert "on each corpus" not in text


def test_a_family_per_metric_and_corpus_says_so(paragraphs):
    # classifiers: two metrics on two corpora, six pairs each (tests.family: metric_corpus, the default)
    assert "over the six comparisons of each metric on each of the two corpora." in paragraphs["classifiers"][1]
    # cv_5x2: two tests, each its own family of three pairs
    assert "over the three comparisons of each test." in paragraphs["cv_5x2"][1]


@pytest.mark.parametrize("family, words", [
    ("metric", "over one family per metric of 20 comparisons across the two corpora."),
    ("corpus", "over one family per corpus, each of the two corpora, of 30 comparisons (every metric's)."),
    ("all", "over one family of 60 comparisons, every comparison of the report."),
])
def test_a_family_pooling_corpora_or_metrics_says_what_it_pools(family, words):
    # summarization: five systems (10 pairs), three metrics on two corpora
    spec = yaml.safe_load((CONFIGS / "summarization.yaml").read_text(encoding="utf-8"))
    spec["tests"]["family"] = family
    results = sigreport.analyze(sigreport.load_spec(spec, base_dir=CONFIGS))
    assert words in methods(results, decide(results)).plain()


@pytest.mark.parametrize("name", EXAMPLES)
def test_decisions_are_called_corrected_only_after_a_correction(paragraphs, name):
    results, text = paragraphs[name]
    if "no correction was needed" in text or "were not corrected" in text:
        assert "corrected decisions" not in text
    if "corrected decisions" in text:
        assert corrected(results.records)


def test_a_single_comparison_gives_plain_decisions(paragraphs):
    text = paragraphs["summarizers"][1]  # two systems: one pair, nothing to correct
    assert "no correction was needed" in text
    assert "The conclusions follow the decisions of the paired t test" in text


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_seed_is_stated_only_when_a_method_is_random(paragraphs, name):
    results, text = paragraphs[name]
    stated = f"were drawn from seed {results.seed} " in text
    assert stated == bool(random_parts(results.records)), text
    assert stated == ("seed" in text)


def test_random_follows_the_declarations(paragraphs):
    # summarization runs paired t tests and a repeated-measures ANOVA only (no resampling, closed-form MDE)
    assert random_parts(paragraphs["summarization"][0].records) == []
    assert "seed" not in paragraphs["summarization"][1]
    # lm_eval's permutation test and demsar's simulated Wilcoxon MDE are random
    assert "Random numbers for the paired permutation test (approximate randomization) were drawn from seed 3" in \
        paragraphs["lm_eval"][1]
    assert "Random numbers for the simulated minimum detectable differences were drawn from seed 2006" in \
        paragraphs["demsar"][1]
    assert "Random numbers for the Bradley-Terry model were drawn from seed 31" in paragraphs["arena"][1]


def test_a_declaration_marked_random_brings_the_seed(paragraphs, monkeypatch):
    """The flag decides, not the method's name: the paired t test declared random would state the seed."""
    results = paragraphs["summarization"][0]
    t = registry.method("pairwise", "paired_t")
    monkeypatch.setitem(registry._all(), ("pairwise", "paired_t"), dataclasses.replace(t, random=True))
    assert random_parts(results.records) == ["the paired t test"]


def test_every_declaration_says_whether_it_is_random():
    from sigreport.stats.declaration import ALL_KINDS, check

    for d in (d for k in ALL_KINDS for d in registry.methods(k)):
        assert isinstance(d.random, bool), d.key
        assert check(dataclasses.replace(d, random=None)) == [f"{d.kind}/{d.name}: random is not True or False"]
    assert {d.name for d in registry.methods("pairwise") if d.random} == {"bootstrap", "bootstrap_t", "permutation"}
    assert not any(d.random for d in registry.methods("cv"))
