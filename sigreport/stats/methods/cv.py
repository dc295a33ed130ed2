"""The cross-validation tests: Dietterich's 5x2cv paired t test and the k-fold cross-validated paired t test
(Dietterich 1998), Alpaydin's combined 5x2cv F test (Alpaydin 1999), the Nadeau-Bengio corrected resampled t
test (Nadeau and Bengio 2003) and the (uncorrected) resampled t test: :mod:`sigreport.stats.cv`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sigreport.stats.declaration import CVInput, ExtraColumn, MethodDeclaration, no_mde

NO_MDE = no_mde("the folds' differences are not independent items: no closed form or simulation for the design")


def failed(method: str, alternative: str, why: str, ci_level: float) -> Any:
    """A test that could not run on these folds, with why."""
    from sigreport.stats import cv

    return cv.CVTestResult(method=method, statistic=None, df=None, df1=None, df2=None, pvalue=None,
                           alternative=alternative, estimate=None, ci_low=None, ci_high=None, ci_level=ci_level,
                           critical_value=None, n_folds=0, n_repeats=0, warnings=(why,))


def _grid_5x2(method: str, inp: CVInput) -> tuple[Any, Any] | Any:
    if inp.grid is None or inp.grid.shape != (5, 2):
        return failed(method, inp.alternative, f"{method} needs 5 repeats x 2 folds; the data has "
                      f"{inp.repeats} x {inp.folds}", inp.ci_level)
    return inp.a[inp.grid], inp.b[inp.grid]


def t_5x2cv(inp: CVInput) -> Any:
    from sigreport.stats import cv

    got = _grid_5x2("5x2cv_t", inp)
    return got if not isinstance(got, tuple) else cv.dietterich_5x2cv_t(*got, inp.alternative, inp.alpha,
                                                                         inp.ci_level)


def f_5x2cv(inp: CVInput) -> Any:
    from sigreport.stats import cv

    got = _grid_5x2("5x2cv_f", inp)
    return got if not isinstance(got, tuple) else cv.alpaydin_5x2cv_f(*got, inp.alpha, inp.ci_level)


def kfold_t(inp: CVInput) -> Any:
    from sigreport.stats import cv

    return cv.kfold_paired_t(inp.a, inp.b, inp.alternative, inp.alpha, inp.ci_level)


def corrected_resampled_t(inp: CVInput) -> Any:
    from sigreport.stats import cv

    n_train, n_test = inp.sizes  # type: ignore[misc]  # known: checked when the data was read
    return cv.corrected_resampled_t(inp.a, inp.b, n_train, n_test, inp.alternative, inp.alpha, inp.ci_level)


def resampled_t(inp: CVInput) -> Any:
    from sigreport.stats import cv

    return cv.resampled_t(inp.a, inp.b, inp.alternative, inp.alpha, inp.ci_level)


def t_text(p: Any) -> str:
    if p.df is not None:
        return f"t({p.df:g}) = {p.statistic:.2f}"
    return f"statistic = {p.statistic:.3g}"


def f_text(p: Any) -> str:
    df1, df2 = p.extra.get("df1"), p.extra.get("df2")
    return f"F({10 if df1 is None else df1:g}, {5 if df2 is None else df2:g}) = {p.statistic:.2f}"


def owned(words: str) -> Any:
    """"Dietterich's two-sided 5x2cv paired t test": the side after a possessive name."""
    owner, rest = words.split(" ", 1)
    return lambda side, tests: (f"{owner} {side} {rest}", "")


def the(words: str) -> Any:
    return lambda side, tests: (f"the {side} {words}", "")


def _declare(name: str, display: str, compute: Any, phrase: Any, references: tuple[str, ...], *,
             options: Mapping[str, str] | None = None, f_test: bool = False,
             notes: tuple[str, ...] = ()) -> MethodDeclaration:
    return MethodDeclaration(
        kind="cv", name=name, display=display, options=dict(options or {}), applies=("folds",), compute=compute,
        record="PairwiseRecord", statistic_head=("sym", "F" if f_test else "t"), estimate_head=("sym", "delta_ab"),
        estimate_words="difference",
        extra_columns=(ExtraColumn(head=("sym", "df_1"), key="df1", cell="df", decimals=None, labels=None),
                       ExtraColumn(head=("sym", "df_2"), key="df2", cell="df", decimals=None, labels=None))
        if f_test else (),
        count_statistic=False, critical_count="never", has_df=not f_test, statistic_text=f_text if f_test else t_text,
        notes=notes, mde=NO_MDE, methods_phrase=phrase, references=references, citation=None,
        bibliography={}, random=False)


DECLARATIONS = (
    _declare("5x2cv_t", "Dietterich's 5x2cv paired t test", t_5x2cv, owned("Dietterich's 5x2cv paired t test"),
             ("dietterich1998",)),
    _declare("5x2cv_f", "Alpaydin's combined 5x2cv F test", f_5x2cv, owned("Alpaydin's combined 5x2cv F test"),
             ("alpaydin1999",), f_test=True),
    _declare("kfold_t", "k-fold cross-validated paired t test", kfold_t, the("k-fold cross-validated paired t test"),
             ("dietterich1998",)),
    _declare("corrected_resampled_t", "Nadeau-Bengio corrected resampled t test", corrected_resampled_t,
             the("Nadeau-Bengio corrected resampled t test"), ("nadeau2003",),
             options={"n_train": "training set size per fold", "n_test": "test set size per fold"}),
    _declare("resampled_t", "resampled paired t test (type I error inflated)", resampled_t,
             the("resampled paired t test (type I error inflated)"), ("dietterich1998",),
             notes=("The resampled paired t test's type I error is badly inflated (Dietterich 1998; Nadeau and "
                    "Bengio 2003); prefer corrected_resampled_t.",)),
)
