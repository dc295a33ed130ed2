"""The omnibus, post-hoc and Bayesian procedures' and the sphericity corrections' declarations (:class:`~sigreport.stats.declaration.ProcedureDeclaration`):
their names, spec values, options, references and record classes, as the spec, the report, the methods paragraph,
results.json's reading and ``sigreport methods`` read them. The omnibus and post-hoc tests' ``compute`` is the one
call of :mod:`sigreport.stats.omnibus`, :mod:`~sigreport.stats.posthoc` or :mod:`~sigreport.stats.pairwise`
(imported when it runs: the spec imports these declarations without numpy), called by ``sigreport.analyses.scores``;
the Bayesian tests are run by ``sigreport.analyses.scores`` from :mod:`sigreport.stats.bayes`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sigreport.stats.declaration import OmnibusInput, PosthocInput, ProcedureDeclaration, no_mde

NO_MDE = no_mde("tests.power computes the minimum detectable difference of item-level pairwise families only")
RANKS = ("item_mean", "corpora")


def _declare(kind: str, name: str, display: str, record: str, references: tuple[str, ...], *,
             applies: tuple[str, ...] = RANKS, options: dict[str, str] | None = None,
             citation: str | None = None, compute: Callable[..., Any] | None = None,
             spec_name: str | None = None, random: bool = False) -> ProcedureDeclaration:
    """``random``: whether it draws from the seed (a Bayesian test's Monte Carlo posterior samples, its default)."""
    return ProcedureDeclaration(kind=kind, name=name, spec_name=spec_name, display=display,  # type: ignore[arg-type]
                                options=options or {}, applies=applies, record=record, compute=compute, mde=NO_MDE,
                                references=references, citation=citation, bibliography={}, random=random)


def rm_anova(inp: OmnibusInput) -> tuple[Any, Any]:
    """The repeated-measures ANOVA and its sphericity decision (Mauchly's test, then the correction asked)."""
    from sigreport.stats import omnibus

    res = omnibus.rm_anova(inp.scores)
    return res, omnibus.apply_sphericity(res, inp.sphericity, inp.alpha, mauchly_p=inp.mauchly_p)


def friedman(inp: OmnibusInput) -> Any:
    """Friedman's test on the items' ranks (tie-corrected or Demšar's uncorrected statistic)."""
    from sigreport.stats import omnibus

    return omnibus.friedman(inp.scores, inp.higher_is_better, inp.tie_correction)


def rank_test(name: str) -> Callable[[PosthocInput], Any]:
    """The post-hoc test ``name`` on average ranks: Nemenyi and the all-pairs procedures compare every pair;
    Bonferroni-Dunn and Hochberg the control; Holm the control, or every pair without one."""

    def compute(inp: PosthocInput) -> Any:
        from sigreport.stats import posthoc

        r = inp.ranks
        if name == "nemenyi":
            return posthoc.nemenyi(r, inp.n, inp.alpha)
        if name in ("shaffer", "bergmann_hommel") or (name == "holm" and inp.control is None):
            return posthoc.all_pairs(r, inp.n, name, inp.alpha)
        assert inp.control is not None, f"{name} compares with a control system"
        if name == "bonferroni_dunn":
            return posthoc.bonferroni_dunn(r, inp.n, inp.control, inp.alpha)
        return posthoc.rank_step(r, inp.n, inp.control, name, inp.alpha)

    return compute


def paired_tests(inp: PosthocInput) -> list[Any]:
    """A paired t test for every pair (the post-hoc tests after RM-ANOVA)."""
    from sigreport.stats import pairwise

    return [pairwise.paired_t(inp.scores[:, i], inp.scores[:, j], inp.alternative, inp.alpha, inp.ci_level)
            for i, j in inp.pairs]


OMNIBUS = (
    _declare("omnibus", "rm_anova", "repeated-measures ANOVA", "RMAnovaRecord",
             ("mauchly1940", "greenhouse1959", "huynh1976"), compute=rm_anova, spec_name="rm_anova",
             options={"sphericity": "the sphericity correction (auto: Mauchly's test, then Huynh-Feldt or "
                      "Greenhouse-Geisser)", "mauchly_p": "Mauchly's p-value: R's or the first-order one"}),
    _declare("omnibus", "friedman", "Friedman test", "FriedmanRecord", ("friedman1937", "iman1980"),
             compute=friedman, spec_name="friedman", options={"tie_correction": "the tie-corrected statistic"}),
)


def _rank_posthoc(name: str, display: str, references: tuple[str, ...]) -> ProcedureDeclaration:
    return _declare("posthoc", name, display, "PosthocRecord", references, compute=rank_test(name), spec_name=name)


POSTHOC = (
    _rank_posthoc("nemenyi", "Nemenyi test", ("nemenyi1963", "demsar2006")),
    _rank_posthoc("bonferroni_dunn", "Bonferroni-Dunn test", ("dunn1961", "demsar2006")),
    _rank_posthoc("holm", "Holm step-down test on rank z", ("holm1979", "demsar2006")),
    _rank_posthoc("hochberg", "Hochberg step-up test on rank z", ("hochberg1988", "garcia2008")),
    _rank_posthoc("shaffer", "all-pairs z tests on ranks with Shaffer's static procedure", ("shaffer1986", "garcia2008")),
    _rank_posthoc("bergmann_hommel", "all-pairs z tests on ranks with Bergmann-Hommel's procedure",
                  ("bergmann1988", "garcia2008")),
    _declare("posthoc", "paired_t", "paired t tests", "PairwiseRecord", ("student1908",), applies=("item_mean",),
             compute=paired_tests, spec_name="paired"),
)
BAYESIAN_OPTIONS = {"bayesian.rope": "each metric's region of practical equivalence",
                    "bayesian.level": "the posterior probability a decision needs"}
BAYESIAN = (
    _declare("bayesian", "signed_rank", "Bayesian signed-rank test", "BayesianRecord", ("benavoli2017",),
             citation="Benavoli et al. 2017", random=True,
             options={**BAYESIAN_OPTIONS, "bayesian.prior_strength": "the Dirichlet process's prior strength",
                      "bayesian.samples": "posterior samples", "bayesian.method": "Monte Carlo or normal posterior"}),
    _declare("bayesian", "correlated_t", "correlated Bayesian t test", "BayesianRecord", ("corani2015",),
             citation="Corani and Benavoli 2015", applies=("folds",),
             options={**BAYESIAN_OPTIONS, "n_train": "training set size (the correlation)",
                      "n_test": "test set size (the correlation)"}),
    _declare("bayesian", "bayesian_bootstrap", "Bayesian bootstrap of the mean difference", "BayesianRecord",
             ("rubin1981",), citation="Rubin 1981", random=True,
             options={**BAYESIAN_OPTIONS, "bayesian.samples": "posterior samples",
                      "bayesian.method": "Monte Carlo or normal posterior"}),
)

SPHERICITY = (  # tests.sphericity (and auto's choice), applied by rm_anova's compute (omnibus.apply_sphericity)
    _declare("sphericity", "greenhouse_geisser", "Greenhouse-Geisser", "RMAnovaRecord", ("greenhouse1959",),
             spec_name="greenhouse_geisser"),
    _declare("sphericity", "huynh_feldt", "Huynh-Feldt", "RMAnovaRecord", ("huynh1976",), spec_name="huynh_feldt"),
    _declare("sphericity", "lower_bound", "lower bound", "RMAnovaRecord", ("greenhouse1959",)),
    # (reported in the RM-ANOVA's table, not a spec value)
    _declare("sphericity", "none", "sphericity assumed", "RMAnovaRecord", (), spec_name="none"),
)
"""The sphericity corrections of the RM-ANOVA's degrees of freedom, in the spec's order (``tests.sphericity``
after ``auto``)."""

DECLARATIONS = OMNIBUS + POSTHOC + BAYESIAN + SPHERICITY
