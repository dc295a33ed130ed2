"""Bradley-Terry strengths from pairwise preference votes, with Davidson's ties, and their bootstrap.

A vote compares systems a and b: a wins, b wins, or a tie. Bradley and Terry (1952) model
P(i beats j) = p_i / (p_i + p_j), p_i = exp(s_i); Davidson (1970) adds ties with one parameter nu >= 0,

    P(i beats j) = p_i / D,   P(j beats i) = p_j / D,   P(tie) = nu sqrt(p_i p_j) / D,
    D = p_i + p_j + nu sqrt(p_i p_j),

which with u = (s_i - s_j) / 2 is ``exp(u) / (2 cosh u + nu)`` and ``nu / (2 cosh u + nu)`` (the form the Newton
steps below use). ``ties="split"`` instead counts a tie as half a win for each side and fits the plain model
(nu = 0), as Chatbot Arena's leaderboard did (Chiang et al. 2024).

Everything works on the aggregated counts, never on the votes: per pair of systems that met, i beat j, j beat i
and ties (:class:`PairCounts`, ``(B, pairs)`` for B bootstrap replicates; :func:`fit` takes K x K tables), fitted
at once by batched Newton steps on the concave log-likelihood (Hunter 2004 gives the MM algorithm and the
existence condition; Newton reaches the same maximum in a few steps; the bootstrap's replicates start at the full
data's maximum and take chord steps from its information matrix). Strengths are identified by a sum of zero (the
mean log-strength is 0); R's BradleyTerry2 reports the same abilities relative to the first system (subtract its
strength).

The maximum likelihood estimate is finite exactly when the directed graph "i beat or tied j" is strongly
connected (Ford 1957; Hunter 2004, assumption 1): :func:`components` finds the comparison graph's components
(weak: systems never compared with each other, directly or not) and the groups a strength is infinite between
(strong). Validated against R BradleyTerry2's ``BTm`` on its ``citations`` data, choix's ``opt_pairwise``, and
a direct maximisation of Davidson's likelihood with scipy.optimize (tests/stats/test_bradley_terry.py).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np

Ties = Literal["davidson", "split"]
TIES: tuple[str, ...] = ("davidson", "split")
MAX_STEP = 2.0  # largest change of a log-strength in one Newton step (the log-likelihood is concave: a safeguard)
MAX_ITER = 100
TOL = 1e-10
CHORD_ITER = 25  # steps with the full data's Hessian before a replicate gets its own (fit's chord)
CHUNK_BYTES = 2e8  # memory of one block of bootstrap replicates (fitted at once)
SPREAD_CHECK = 20.0  # log-strength spread beyond which a fit's graph is checked for a finite maximum


@dataclasses.dataclass(frozen=True, kw_only=True)
class BTFit:
    """Maximum likelihood strengths: ``strengths`` (..., K), sum zero; ``nu`` Davidson's tie parameter (...,)
    (0 for ``split``); ``loglik``; ``converged`` (...,) whether the Newton steps met the tolerance; ``finite``
    (...,) whether the maximum is finite (False: the steps ran off towards infinity, and the strengths are where
    they stopped); ``iterations``."""

    strengths: np.ndarray
    nu: np.ndarray
    loglik: np.ndarray
    converged: np.ndarray
    finite: np.ndarray
    iterations: int
    ties: str


def count_matrices(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, k: int,
                   weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(wins, ties)``, each K x K, from votes: ``a``, ``b`` system indices, ``outcome`` 1 (a won), -1 (b won)
    or 0 (tie); ``weights`` optional counts of each row."""
    w = np.ones(a.shape, dtype=np.float64) if weights is None else np.asarray(weights, dtype=np.float64)
    winner = np.where(outcome > 0, a, b)
    loser = np.where(outcome > 0, b, a)
    dec = outcome != 0
    wins = np.bincount(winner[dec] * k + loser[dec], weights=w[dec], minlength=k * k).reshape(k, k)
    tie = np.bincount(a[~dec] * k + b[~dec], weights=w[~dec], minlength=k * k).reshape(k, k)
    return wins, tie + tie.T


def components(wins: np.ndarray, ties: np.ndarray) -> tuple[list[list[int]], list[list[int]]]:
    """(weak, strong) components of the comparison graph of one K x K table, each a list of index lists in order
    of their first system. Weakly disconnected: strengths of different components are not comparable at all;
    more than one strong component: the maximum likelihood strengths are not finite (someone never beats, or
    never loses to, a group)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    edges = csr_matrix(((wins + ties) > 0).astype(np.int8))
    out = []
    for connection in ("weak", "strong"):
        n, labels = connected_components(edges, directed=True, connection=connection)
        groups: dict[int, list[int]] = {}
        for i, lab in enumerate(labels):
            groups.setdefault(int(lab), []).append(i)
        out.append(sorted(groups.values(), key=lambda g: g[0]))
    return out[0], out[1]


def fit(wins: np.ndarray, ties: np.ndarray, ties_model: Ties = "davidson", *, max_iter: int = MAX_ITER,
        tol: float = TOL, start: BTFit | None = None, chord: np.ndarray | None = None) -> BTFit:
    """Fit Bradley-Terry (``split``) or Davidson (``davidson``) strengths to ``wins`` and ``ties``, K x K or
    stacked (B, K, K), every replicate at once (see :func:`fit_pairs`)."""
    single = wins.ndim == 2
    w = np.asarray(wins, dtype=np.float64)[None] if single else np.asarray(wins, dtype=np.float64)
    t = np.asarray(ties, dtype=np.float64)[None] if single else np.asarray(ties, dtype=np.float64)
    k = w.shape[1]
    met = (w + np.swapaxes(w, 1, 2) + t).any(axis=0)
    i, j = np.nonzero(np.triu(met, 1))
    f = fit_pairs(PairCounts(i=i, j=j, k=k, wij=w[:, i, j], wji=w[:, j, i], tij=t[:, i, j]), ties_model,
                  max_iter=max_iter, tol=tol, start=start, chord=chord)
    if single:
        return BTFit(strengths=f.strengths[0], nu=f.nu[0], loglik=f.loglik[0], converged=f.converged[0],
                     finite=f.finite[0], iterations=f.iterations, ties=ties_model)
    return f


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairCounts:
    """The pairs that met, (i, j) with i < j (P,), and their counts over B replicates: i beat j ``wij``, j beat
    i ``wji``, ties ``tij``, each (B, P)."""

    i: np.ndarray
    j: np.ndarray
    k: int
    wij: np.ndarray
    wji: np.ndarray
    tij: np.ndarray

    def tables(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """Replicate ``r`` as K x K (wins, ties)."""
        w = np.zeros((self.k, self.k))
        t = np.zeros((self.k, self.k))
        w[self.i, self.j] = self.wij[r]
        w[self.j, self.i] = self.wji[r]
        t[self.i, self.j] = t[self.j, self.i] = self.tij[r]
        return w, t


def fit_pairs(pc: PairCounts, ties_model: Ties = "davidson", *, max_iter: int = MAX_ITER, tol: float = TOL,
              start: BTFit | None = None, chord: np.ndarray | None = None) -> BTFit:
    """Fit every replicate of ``pc`` at once.

    Newton steps on the log-likelihood in (s_2 - s_1, ..., s_K - s_1, log nu), each step's largest change capped
    at :data:`MAX_STEP`; a replicate stops changing once its step is below ``tol``. Davidson's nu starts from the
    share of ties (nu = 2t / (1 - t) at equal strengths); without any tie it is 0 (the plain model). ``start``:
    one fit to start every replicate from (the maximum does not depend on it); ``chord``: the inverse of the
    negative Hessian at ``start`` (:func:`information_inverse`), used for the first :data:`CHORD_ITER` steps of
    every replicate (one matrix product for all: replicates near the full data's maximum converge about as fast
    as with their own Hessian), after which any replicate still moving takes full Newton steps."""
    if ties_model not in TIES:
        raise ValueError(f"unknown ties model {ties_model!r}; known: {', '.join(TIES)}")
    from scipy.sparse import csr_matrix

    wij, wji, tij = pc.wij, pc.wji, pc.tij
    if ties_model == "split":
        wij, wji, tij = wij + tij / 2, wji + tij / 2, np.zeros_like(tij)
    bsz, k, npairs = wij.shape[0], pc.k, pc.i.size
    n = wij + wji + tij
    net = wij - wji
    t_total = tij.sum(axis=1)
    n_total = n.sum(axis=1)
    # du/ds: u_p = (s_i - s_j) / 2, as a sparse P x K matrix (gradients are its transpose times a (P,) vector)
    rows = np.repeat(np.arange(npairs), 2)
    d = csr_matrix((np.tile([0.5, -0.5], npairs), (rows, np.ravel(np.column_stack([pc.i, pc.j])))),
                   shape=(npairs, k))
    dt = d.T.tocsr()
    has_ties = t_total > 0 if ties_model == "davidson" else np.zeros(bsz, dtype=bool)
    share = np.where(n_total > 0, t_total / np.maximum(n_total, 1), 0.0)
    lam = np.where(has_ties, np.log(np.maximum(2 * share / np.maximum(1 - share, 1e-12), 1e-12)), -np.inf)
    s = np.zeros((bsz, k))
    if start is not None:  # warm start (the bootstrap starts every replicate at the full data's maximum)
        s[:] = start.strengths - start.strengths[..., :1]
        if start.nu > 0:
            lam = np.where(has_ties, np.log(start.nu), lam)
    active = np.ones(bsz, dtype=bool)
    it = 0
    for it in range(1, max_iter + 1):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        sel = slice(None) if idx.size == bsz else idx  # every replicate: views, no copies
        fixed = chord is not None and it <= CHORD_ITER
        g, h = _gradient_hessian(s[sel], lam[sel], pc.i, pc.j, n=n[sel], net=net[sel], t=tij[sel],
                                 t_total=t_total[sel], d=d, dt=dt, hessian=not fixed)
        # the first strength is fixed at 0; log nu is fixed (at -inf) for a replicate without ties
        g = g[:, 1:]
        no_nu = ~has_ties[idx]
        g[no_nu, -1] = 0.0
        if fixed:  # the chord method: every replicate's step from one information matrix (the full data's)
            step = g @ chord.T  # type: ignore[union-attr]
            step[no_nu, -1] = 0.0
        else:
            h = h[:, 1:, 1:]  # type: ignore[index]
            h[no_nu, -1, :] = 0.0
            h[no_nu, :, -1] = 0.0
            h[no_nu, -1, -1] = -1.0
            try:
                step = np.linalg.solve(h, -g[..., None])[..., 0]
            except np.linalg.LinAlgError:  # a replicate whose comparison graph fell apart: the least-squares step
                step = (np.linalg.pinv(h) @ -g[..., None])[..., 0]
        biggest = np.max(np.abs(step), axis=1)
        scale = np.minimum(1.0, MAX_STEP / np.maximum(biggest, 1e-300))
        step *= scale[:, None]
        s[idx, 1:] += step[:, :-1]
        lam[idx] = np.where(has_ties[idx], lam[idx] + step[:, -1], lam[idx])
        active[idx[biggest < tol]] = False
    converged = ~active
    s = s - s.mean(axis=1, keepdims=True)
    nu = np.where(has_ties, np.exp(lam), 0.0)
    ll = _loglik_pairs(s, nu, pc.i, pc.j, wij, wji, tij)
    finite = _finite(pc, s, wij, wji, tij)
    return BTFit(strengths=s, nu=nu, loglik=ll, converged=converged, finite=finite, iterations=it, ties=ties_model)


def _finite(pc: PairCounts, s: np.ndarray, wij: np.ndarray, wji: np.ndarray, tij: np.ndarray) -> np.ndarray:
    """Whether each replicate's maximum is finite. A system without a win (or a tie), or without a loss (or a
    tie), has an infinite strength: checked in every replicate at once (the chord steps can stall short of
    infinity, so the spread alone would miss it). A group of systems that never beats the rest is rarer: only a
    replicate whose strengths spread past :data:`SPREAD_CHECK` (odds of e^20) is checked for it, one graph each."""
    from scipy.sparse import csr_matrix

    npairs, k = pc.i.size, pc.k
    first = csr_matrix((np.ones(npairs), (np.arange(npairs), pc.i)), shape=(npairs, k))
    second = csr_matrix((np.ones(npairs), (np.arange(npairs), pc.j)), shape=(npairs, k))
    won = (first.T @ (wij + tij).T + second.T @ (wji + tij).T).T
    lost = (first.T @ (wji + tij).T + second.T @ (wij + tij).T).T
    n = wij + wji + tij
    met = (first.T @ n.T + second.T @ n.T).T > 0
    finite = ~((met & ((won == 0) | (lost == 0))).any(axis=1))
    for r in np.flatnonzero(finite & (np.ptp(s, axis=1) > SPREAD_CHECK)):
        finite[r] = len(components(*pc.tables(r))[1]) == 1 and len(components(*pc.tables(r))[0]) == 1
    return finite


def _gradient_hessian(s: np.ndarray, lam: np.ndarray, i: np.ndarray, j: np.ndarray, n: np.ndarray, net: np.ndarray,
                      t: np.ndarray, t_total: np.ndarray, d: object, dt: object, hessian: bool = True
                      ) -> tuple[np.ndarray, np.ndarray | None]:
    """Gradient and Hessian of the log-likelihood in (s_1..s_K, log nu), (B, K+1) and (B, K+1, K+1), from the
    pairs' counts (B, P) (``d``: du/ds, P x K sparse; ``dt`` its transpose).

    Per pair, with u = (s_i - s_j)/2, Z = 2 cosh u + nu, pi = e^u/Z, pj = e^-u/Z, tau = nu/Z:
    l = (w_ij - w_ji) u + t_ij log nu - n_ij log Z; dl/du = net - n (pi - pj); d2l/du2 = -n [(pi + pj) - (pi - pj)^2];
    dl/dlog nu = t - n tau; d2l/dlog nu2 = -n tau (1 - tau); d2l/du dlog nu = n (pi - pj) tau."""
    bsz, k = s.shape
    u = (s[:, i] - s[:, j]) / 2
    nu = np.exp(lam)[:, None]  # 0 where lam is -inf
    au = np.abs(u)  # stable: numerator and denominator divided by e^|u|
    e_small = np.exp(-2 * au)
    nu_s = nu * np.exp(-au)
    inv_z = 1.0 / (1.0 + e_small + nu_s)
    diff = np.sign(u) * (1.0 - e_small) * inv_z  # pi - pj
    tau = nu_s * inv_z
    g = np.empty((bsz, k + 1))
    g[:, :k] = (dt @ (net - n * diff).T).T  # type: ignore[operator]
    g[:, k] = t_total - (n * tau).sum(axis=1)
    if not hessian:
        return g, None
    c = n * ((1.0 - tau) - diff ** 2)  # pi + pj = 1 - tau
    h = np.zeros((bsz, k + 1, k + 1))
    h[:, i, j] = c / 4
    h[:, j, i] = c / 4
    diag = np.arange(k)
    h[:, diag, diag] = -np.abs((abs(dt) @ c.T).T) / 2  # type: ignore[operator]
    cross = (dt @ (n * diff * tau).T).T  # type: ignore[operator]
    h[:, :k, k] = cross
    h[:, k, :k] = cross
    h[:, k, k] = -(n * tau * (1 - tau)).sum(axis=1)
    return g, h


def _loglik_pairs(s: np.ndarray, nu: np.ndarray, i: np.ndarray, j: np.ndarray, wij: np.ndarray, wji: np.ndarray,
                  tij: np.ndarray) -> np.ndarray:
    u = (s[:, i] - s[:, j]) / 2
    nu2 = nu[:, None]
    log_z = np.abs(u) + np.log1p(np.exp(-2 * np.abs(u)) + nu2 * np.exp(-np.abs(u)))
    with np.errstate(divide="ignore"):
        log_nu = np.where(nu2 > 0, np.log(np.where(nu2 > 0, nu2, 1.0)), 0.0)
    tie_term = np.where(tij > 0, tij * (log_nu - log_z), 0.0)
    return (wij * (u - log_z) + wji * (-u - log_z)).sum(axis=1) + tie_term.sum(axis=1)


@dataclasses.dataclass(frozen=True, kw_only=True)
class BTStandardErrors:
    """Asymptotic standard errors (the inverse observed information): of each strength minus the first's
    (``relative_to_first``, 0 for the first: R BradleyTerry2's ``vcov``) and of the sum-zero strengths."""

    relative_to_first: np.ndarray
    sum_zero: np.ndarray


def information_inverse(f: BTFit, wins: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """The inverse of the observed information (the negative Hessian) at fit ``f`` of one K x K table, in the
    free parameters of :func:`fit` (strengths 2..K minus the first, then log nu: K x K; without ties log nu's
    row and column are those of a fixed parameter, 1 on the diagonal)."""
    from scipy.sparse import csr_matrix

    w, t = np.asarray(wins, dtype=np.float64), np.asarray(ties, dtype=np.float64)
    if f.ties == "split":
        w, t = w + t / 2, np.zeros_like(t)
    k = w.shape[0]
    i, j = np.nonzero(np.triu(w + w.T + t > 0, 1))
    npairs = i.size
    d = csr_matrix((np.tile([0.5, -0.5], npairs), (np.repeat(np.arange(npairs), 2), np.ravel(np.column_stack([i, j])))),
                   shape=(npairs, k))
    lam = np.log(f.nu) if f.nu > 0 else -np.inf
    s = f.strengths - f.strengths[0]
    n = (w[i, j] + w[j, i] + t[i, j])[None]
    _, h = _gradient_hessian(s[None], np.array([lam]), i, j, n=n, net=(w[i, j] - w[j, i])[None], t=t[i, j][None],
                             t_total=np.array([t[i, j].sum()]), d=d, dt=d.T.tocsr())
    free = -h[0, 1:, 1:]  # type: ignore[index]
    if not f.nu > 0:
        free[-1, :] = 0.0
        free[:, -1] = 0.0
        free[-1, -1] = 1.0
    return np.linalg.inv(free)


def standard_errors(f: BTFit, wins: np.ndarray, ties: np.ndarray) -> BTStandardErrors:
    """Standard errors of one fit (K x K tables) from the observed information at the maximum."""
    k = wins.shape[0]
    cov = np.zeros((k, k))
    cov[1:, 1:] = information_inverse(f, wins, ties)[:k - 1, :k - 1]
    centre = np.eye(k) - 1.0 / k
    return BTStandardErrors(relative_to_first=np.sqrt(np.diag(cov)),
                            sum_zero=np.sqrt(np.clip(np.diag(centre @ cov @ centre.T), 0, None)))


def loglik(s: np.ndarray, nu: np.ndarray, wins: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """Davidson's log-likelihood (Bradley-Terry's when nu = 0) of strengths ``s`` (B, K) and ``nu`` (B,)."""
    s = np.atleast_2d(s)
    nu = np.atleast_1d(nu)[:, None, None]
    w = wins if wins.ndim == 3 else wins[None]
    t = ties if ties.ndim == 3 else ties[None]
    si, sj = s[:, :, None], s[:, None, :]
    m = np.maximum(si, sj)
    d = np.exp(si - m) + np.exp(sj - m) + nu * np.exp((si + sj) / 2 - m)
    log_d = m + np.log(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        tie_term = np.where(t > 0, t * (np.log(np.where(nu > 0, nu, 1.0)) + (si + sj) / 2 - log_d), 0.0)
    win_term = np.where(w > 0, w * (si - log_d), 0.0)
    return win_term.sum(axis=(1, 2)) + tie_term.sum(axis=(1, 2)) / 2


def win_rates(wins: np.ndarray, ties: np.ndarray) -> np.ndarray:
    """Observed win rate of row i against column j: (wins + ties / 2) / battles, NaN where they never met."""
    n = wins + wins.T + ties
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (wins + ties / 2) / n
    return np.where(n > 0, out, np.nan)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Cells:
    """The votes as unique cells: pair (i, j) with i < j and outcome (0: i won, 1: j won, 2: tie), ``counts`` of
    each; ``by_item`` (items x cells, sparse) when items are given."""

    i: np.ndarray
    j: np.ndarray
    outcome: np.ndarray
    counts: np.ndarray
    by_item: object | None
    k: int

    def pair_counts(self, counts: np.ndarray) -> PairCounts:
        """The pairs' counts for cell counts (B, cells)."""
        key = self.i * self.k + self.j
        pairs, pair_of = np.unique(key, return_inverse=True)
        out = np.zeros((3, counts.shape[0], pairs.size))
        out[self.outcome, :, pair_of] = counts.T
        pi, pj = np.divmod(pairs, self.k)
        return PairCounts(i=pi, j=pj, k=self.k, wij=out[0], wji=out[1], tij=out[2])

    def matrices(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(wins, ties) as (B, K, K) for cell counts (B, cells)."""
        bsz, k = counts.shape[0], self.k
        wins = np.zeros((bsz, k * k))
        ties = np.zeros((bsz, k * k))
        iw = self.outcome == 0
        jw = self.outcome == 1
        tt = self.outcome == 2
        wins[:, self.i[iw] * k + self.j[iw]] = counts[:, iw]
        wins[:, self.j[jw] * k + self.i[jw]] = counts[:, jw]
        ties[:, self.i[tt] * k + self.j[tt]] = counts[:, tt]
        ties[:, self.j[tt] * k + self.i[tt]] = counts[:, tt]
        return wins.reshape(bsz, k, k), ties.reshape(bsz, k, k)


def cells(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, k: int, item: np.ndarray | None = None) -> Cells:
    """The votes (``a``, ``b`` indices, ``outcome`` 1 a won, -1 b won, 0 tie; ``item`` codes, optional) as
    :class:`Cells`."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    swapped = a > b
    side = np.where(outcome == 0, 2, np.where((outcome > 0) != swapped, 0, 1))
    key = (lo.astype(np.int64) * k + hi) * 3 + side
    uniq, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    by_item = None
    if item is not None:
        from scipy.sparse import csr_matrix

        n_items = int(item.max()) + 1 if item.size else 0
        by_item = csr_matrix((np.ones(key.size), (item, inverse)), shape=(n_items, uniq.size))
    pair, out = np.divmod(uniq, 3)
    i, j = np.divmod(pair, k)
    return Cells(i=i, j=j, outcome=out, counts=counts.astype(np.float64), by_item=by_item, k=k)


@dataclasses.dataclass(frozen=True, kw_only=True)
class BTBootstrap:
    """Bootstrap replicates of the strengths (B, K), sum zero, and of nu (B,); ``unit`` 'battles' or 'items';
    ``not_converged`` the number of replicates without a finite maximum or not converged (their strengths are
    where the Newton steps stopped: extreme, and counted as extreme in the percentiles)."""

    strengths: np.ndarray
    nu: np.ndarray
    unit: str
    not_converged: int


def bootstrap(c: Cells, n_resamples: int, seed: int, ties_model: Ties = "davidson", *, unit: str = "battles",
              chunk: int | None = None) -> BTBootstrap:
    """B replicates of the fit: ``battles`` draws the cell counts from a multinomial with the observed shares
    (resampling votes with replacement); ``items`` draws items with replacement (each carries all its votes: a
    cluster bootstrap). Replicates are drawn and fitted in blocks of ``chunk`` (memory), all of a block at once."""
    rng = np.random.default_rng(seed)
    n_cells = c.counts.size
    full_w, full_t = (m[0] for m in c.matrices(c.counts[None]))
    full = fit(full_w, full_t, ties_model)
    chord = information_inverse(full, full_w, full_t) if full.finite and full.converged else None
    n_items = c.by_item.shape[0] if unit == "items" and c.by_item is not None else 0  # type: ignore[union-attr]
    per_replicate = 8 * (n_cells + 12 * max(1, n_cells // 3) + n_items)  # bytes: counts, pair arrays, item weights
    chunk = chunk or max(1, min(n_resamples, int(CHUNK_BYTES // per_replicate)))
    total = int(c.counts.sum())
    p = c.counts / total
    out_s, out_nu, bad = [], [], 0
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        if unit == "battles":
            counts = rng.multinomial(total, p, size=size).astype(np.float64)
        elif unit == "items":
            weights = rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=size).astype(np.float64)
            counts = np.asarray((c.by_item.T @ weights.T).T)  # type: ignore[union-attr]
        else:
            raise ValueError(f"unknown resampling unit {unit!r}; known: battles, items")
        if counts.shape[1] != n_cells:
            raise AssertionError("cell counts lost their shape")
        f = fit_pairs(c.pair_counts(counts), ties_model, start=full if chord is not None else None, chord=chord)
        out_s.append(f.strengths)
        out_nu.append(f.nu)
        bad += int((~(f.converged & f.finite)).sum())
    return BTBootstrap(strengths=np.concatenate(out_s), nu=np.concatenate(out_nu), unit=unit, not_converged=bad)


def percentile_interval(replicates: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each column of (B, K) replicates at ``level``."""
    q = (1 - level) / 2
    low, high = np.quantile(replicates, [q, 1 - q], axis=0)
    return low, high
