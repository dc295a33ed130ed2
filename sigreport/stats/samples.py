"""Several answers of a system to the same question: pass@k and the variance of a mean over questions.

* :func:`pass_at_k`: the unbiased estimator of Chen et al. (2021, "Evaluating Large Language Models Trained on
  Code", eq. 1), per question with n answers of which c are correct: 1 - C(n - c, k) / C(n, k), computed as
  the product prod_{j=0}^{k-1} (n - c - j) / (n - j) (no factorials, so no overflow at any n; a factor is 0
  exactly when n - c < k, where the estimate is 1). The tests compare it with the numpy reference of Chen et
  al.'s human-eval repository, ``1 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))``, and with hand values.
* :func:`variance_components`: Miller (2024, "Adding Error Bars to Evals", sec. 4): with K answers per
  question, the variance of the mean over n questions of the per-question means is (sigma_b^2 +
  sigma_w^2 / K) / n, sigma_b^2 the variance between questions of their expected score, sigma_w^2 the mean
  variance of a question's answers. sigma_w^2 is estimated by the mean of the questions' sample variances
  (ddof 1; questions with one answer carry none), sigma_b^2 by the variance of the question means less the mean
  of sigma_w^2 / K_i (moment estimators, as in a one-way random-effects ANOVA, floored at 0). Unequal K per
  question is allowed: the standard error is that of the question means as observed, and the projection to
  K' answers per question replaces each K_i by K'.

Every function works on all systems at once (arrays with a system axis); a question's missing answers are NaN.
"""

from __future__ import annotations

import dataclasses

import numpy as np


def pass_at_k_name(metric: str, k: int) -> str:
    """The name of the pass@k metric made from ``metric`` (``metrics.<metric>.pass_at_k``): '<metric>_pass@k'."""
    return f"{metric}_pass@{k}"


def pass_at_k_of(name: str) -> tuple[str, int] | None:
    """(metric, k) of a name :func:`pass_at_k_name` made, else None."""
    base, sep, k = name.rpartition("_pass@")
    return (base, int(k)) if sep and base and k.isdigit() else None


def pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Chen et al.'s (2021) unbiased pass@k per question: ``n`` answers, ``c`` of them correct (arrays of one
    shape), 1 - C(n - c, k)/C(n, k) as a product of k ratios. Raises ValueError when k < 1 or k > n anywhere
    (the caller names the spec line) or when c is not in [0, n]."""
    n = np.asarray(n, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    if k < 1:
        raise ValueError(f"pass@k needs k >= 1, got {k}")
    if np.any(n < k):
        raise ValueError(f"pass@{k} needs at least {k} answers per question; the fewest is {int(np.min(n))}")
    if np.any((c < 0) | (c > n)):
        raise ValueError("the correct answers of a question are between 0 and its answers")
    j = np.arange(k, dtype=np.float64)
    factors = np.clip((n[..., None] - c[..., None] - j) / (n[..., None] - j), 0.0, 1.0)
    return 1.0 - np.prod(factors, axis=-1)


@dataclasses.dataclass(frozen=True, kw_only=True)
class VarianceComponents:
    """Per system (arrays): the questions (``n``), the mean answers per question (``k_mean``), the variance
    between questions (``sigma_b2``) and within a question (``sigma_w2``), the standard error of the mean of the
    question means (``se``), and the one the same questions would give with infinitely many answers each
    (``se_infinite_k``: sqrt(sigma_b2 / n), the floor more answers cannot go below)."""

    n: np.ndarray
    k_mean: np.ndarray
    sigma_b2: np.ndarray
    sigma_w2: np.ndarray
    se: np.ndarray
    se_infinite_k: np.ndarray

    def se_with(self, k: float) -> np.ndarray:
        """The standard error with ``k`` answers per question: sqrt((sigma_b2 + sigma_w2 / k) / n)."""
        return np.sqrt((self.sigma_b2 + self.sigma_w2 / k) / self.n)


def variance_components(x: np.ndarray) -> VarianceComponents:
    """Miller's (2024, sec. 4) decomposition of ``x``: questions x systems x answers (NaN where a question has
    fewer answers), every system at once."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 2:
        x = x[:, None, :]
    present = ~np.isnan(x)
    k_i = present.sum(axis=2).astype(np.float64)  # questions x systems
    if np.any(k_i == 0):
        raise ValueError("every question needs at least one answer")
    means = np.nansum(x, axis=2) / k_i
    dev = np.where(present, x - means[:, :, None], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s2 = np.where(k_i > 1, np.sum(dev * dev, axis=2) / (k_i - 1), np.nan)
    informative = k_i > 1
    counts = informative.sum(axis=0)
    sigma_w2 = np.where(counts > 0, np.nansum(s2, axis=0) / np.maximum(counts, 1), 0.0)
    n = np.full(x.shape[1], float(x.shape[0]))
    var_means = np.var(means, axis=0, ddof=1) if x.shape[0] > 1 else np.full(x.shape[1], np.nan)
    sigma_b2 = np.maximum(var_means - np.mean(sigma_w2[None, :] / k_i, axis=0), 0.0)
    se = np.sqrt(var_means / n)
    return VarianceComponents(n=n, k_mean=k_i.mean(axis=0), sigma_b2=sigma_b2, sigma_w2=sigma_w2, se=se,
                              se_infinite_k=np.sqrt(sigma_b2 / n))
