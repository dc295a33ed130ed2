"""The omnibus, post-hoc and Bayesian procedures' declarations (:class:`~sigreport.stats.declaration.ProcedureDeclaration`):
their names, options, references and record classes, as the report, the methods paragraph, results.json's reading
and ``sigreport methods`` read them. Their computations are :mod:`sigreport.stats.omnibus`, :mod:`~sigreport.stats.posthoc`
and :mod:`~sigreport.stats.bayes`, chosen in ``sigreport.analyses.scores``."""

from __future__ import annotations

from sigreport.stats.declaration import ProcedureDeclaration, no_mde

NO_MDE = no_mde("tests.power computes the minimum detectable difference of item-level pairwise families only")
RANKS = ("item_mean", "corpora")


def _declare(kind: str, name: str, display: str, record: str, references: tuple[str, ...], *,
             applies: tuple[str, ...] = RANKS, options: dict[str, str] | None = None,
             citation: str | None = None, random: bool = False) -> ProcedureDeclaration:
    """``random``: whether it draws from the seed (a Bayesian test's Monte Carlo posterior samples, its default)."""
    return ProcedureDeclaration(kind=kind, name=name, display=display, options=options or {},  # type: ignore[arg-type]
                                applies=applies, record=record, mde=NO_MDE, references=references,
                                citation=citation, bibliography={}, random=random)


OMNIBUS = (
    _declare("omnibus", "rm_anova", "repeated-measures ANOVA", "RMAnovaRecord",
             ("mauchly1940", "greenhouse1959", "huynh1976"),
             options={"sphericity": "the sphericity correction (auto: Mauchly's test, then Huynh-Feldt or "
                      "Greenhouse-Geisser)", "mauchly_p": "Mauchly's p-value: R's or the first-order one"}),
    _declare("omnibus", "friedman", "Friedman test", "FriedmanRecord", ("friedman1937", "iman1980"),
             options={"tie_correction": "the tie-corrected statistic"}),
)
POSTHOC = (
    _declare("posthoc", "nemenyi", "Nemenyi test", "PosthocRecord", ("nemenyi1963", "demsar2006")),
    _declare("posthoc", "bonferroni_dunn", "Bonferroni-Dunn test", "PosthocRecord", ("dunn1961", "demsar2006")),
    _declare("posthoc", "holm", "Holm step-down test on rank z", "PosthocRecord", ("holm1979", "demsar2006")),
    _declare("posthoc", "hochberg", "Hochberg step-up test on rank z", "PosthocRecord", ("hochberg1988", "garcia2008")),
    _declare("posthoc", "shaffer", "all-pairs z tests on ranks with Shaffer's static procedure", "PosthocRecord",
             ("shaffer1986", "garcia2008")),
    _declare("posthoc", "bergmann_hommel", "all-pairs z tests on ranks with Bergmann-Hommel's procedure",
             "PosthocRecord", ("bergmann1988", "garcia2008")),
    _declare("posthoc", "paired_t", "paired t tests", "PairwiseRecord", ("student1908",), applies=("item_mean",)),
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

DECLARATIONS = OMNIBUS + POSTHOC + BAYESIAN
