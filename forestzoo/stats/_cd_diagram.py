"""Critical-difference diagram (Demsar 2006, Fig. 1)."""

import math

import numpy as np

from ._ranks import nemenyi_cd

__all__ = ["cliques", "plot_critical_difference"]


def cliques(avg_ranks, cd):
    """Maximal groups of methods whose average ranks all lie within ``cd``.

    These groups are the bars of the critical-difference diagram.

    Parameters
    ----------
    avg_ranks : array-like of shape (k,)
        Average rank of each method.
    cd : float
        The critical difference (e.g. :func:`nemenyi_cd`).

    Returns
    -------
    list of ndarray of int
        Index arrays into ``avg_ranks`` (sorted by rank), one per group of at
        least two methods not significantly different; groups contained in
        another are left out.

    Examples
    --------
    >>> from forestzoo.stats import cliques
    >>> [group.tolist() for group in cliques([1.0, 1.3, 2.5, 2.7], cd=0.5)]
    [[0, 1], [2, 3]]
    """
    R = np.asarray(avg_ranks, dtype=float)
    order = np.argsort(R, kind="stable")
    groups = []
    for start in range(len(order)):
        end = start
        while end + 1 < len(order) and R[order[end + 1]] - R[order[start]] < cd:
            end += 1
        if end > start and not any(end <= prev_end for _, prev_end in groups):
            groups.append((start, end))
    return [order[s:e + 1] for s, e in groups]


def plot_critical_difference(avg_ranks, names, n_datasets, alpha=0.05, ax=None,
                             title=None):
    """Draw the critical-difference diagram of average ranks.

    Methods sit on a rank axis (best, rank 1, on the left); a bar joins
    methods whose ranks differ by less than the Nemenyi critical difference,
    drawn to scale above the axis.

    Parameters
    ----------
    avg_ranks : array-like of shape (k,)
        Average rank of each method.
    names : sequence of str of length k
        The methods' names.
    n_datasets : int
        Number of datasets the ranks average over (for the CD).
    alpha : float, default=0.05
        Significance level of the Nemenyi critical difference.
    ax : matplotlib Axes, optional
        Drawn into a new figure when None.
    title : str, optional
        Title of the diagram.

    Returns
    -------
    matplotlib.figure.Figure
        The figure holding the diagram.

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install forestzoo[plot]``).

    Examples
    --------
    >>> from forestzoo.stats import plot_critical_difference
    >>> fig = plot_critical_difference([1.2, 2.0, 2.8], ["RaF", "ET", "CART"], n_datasets=30)
    >>> len(fig.axes)
    1
    """
    try:
        import matplotlib

        if ax is None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("The critical-difference diagram needs matplotlib: "
                          "pip install 'forestzoo[plot]' (or pip install matplotlib).") from exc
    R = np.asarray(avg_ranks, dtype=float)
    names = [str(n) for n in names]
    if len(names) != len(R) or len(R) < 2:
        raise ValueError(f"need >= 2 methods and one name per rank, got {len(R)} ranks "
                         f"and {len(names)} names.")
    k = len(R)
    cd = nemenyi_cd(k, n_datasets, alpha)
    order = np.argsort(R, kind="stable")
    groups = cliques(R, cd)
    left = order[: (k + 1) // 2]
    right = order[(k + 1) // 2:][::-1]
    n_rows = max(len(left), len(right))
    top = 0.45 + 0.18 * len(groups)  # the clique bars sit between the axis and the names
    bottom = top + 0.6 * n_rows
    height = 1.6 + 0.25 * (n_rows + len(groups))
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.0, height))
    else:
        fig = ax.figure
    lo, hi = 1, k
    ax.set_xlim(lo - 0.6, hi + 0.6)
    ax.set_ylim(-(bottom + 0.4), 2.0)
    ax.axis("off")
    ax.hlines(0, lo, hi, color="k", lw=1)
    # a tick at every rank, a number on at most about a dozen of them (1, the multiples of
    # the step and k), so that the numbers of many models do not run into each other
    step = max(1, math.ceil(k / 12))
    for r in range(lo, hi + 1):
        ax.vlines(r, 0, 0.12 if (r % step == 0 or r in (lo, hi)) else 0.07, color="k", lw=1)
        if (r % step == 0 and hi - r >= step / 2) or r in (lo, hi):
            ax.text(r, 0.22, str(r), ha="center", va="bottom", fontsize=9)
    # CD bar to scale, top left
    ax.hlines(1.3, lo, lo + cd, color="k", lw=1.5)
    ax.vlines([lo, lo + cd], 1.2, 1.4, color="k", lw=1.5)
    ax.text(lo + cd / 2, 1.45, f"CD = {cd:.2f} (alpha = {alpha:g})", ha="center",
            va="bottom", fontsize=9)
    for row, idx in enumerate(left):
        y = -(top + 0.6 * row)
        ax.plot([R[idx], R[idx], lo - 0.1], [0, y, y], color="k", lw=0.8)
        ax.text(lo - 0.15, y, f"{names[idx]} ({R[idx]:.2f})", ha="right", va="center",
                fontsize=9)
    for row, idx in enumerate(right):
        y = -(top + 0.6 * row)
        ax.plot([R[idx], R[idx], hi + 0.1], [0, y, y], color="k", lw=0.8)
        ax.text(hi + 0.15, y, f"({R[idx]:.2f}) {names[idx]}", ha="left", va="center",
                fontsize=9)
    for g, members in enumerate(groups):
        y = -0.2 - 0.18 * g
        ax.hlines(y, R[members].min() - 0.03, R[members].max() + 0.03, color="k", lw=3)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig
