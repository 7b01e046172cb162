"""Source / target domain pairs for the transfer experiments of Segev et al. (2017).

Each task returns ``(X_source, y_source, X_target, y_target)`` built from
datasets of :mod:`forestzoo.datasets` (files found through ``FORESTZOO_DATA``):

* ``mushroom``: source = stalk shape "enlarging", target = "tapering" (the
  classic domain split of this dataset; column 9 of the PMLB coding);
* ``letter``: source = rows whose ``x-box`` feature is at most its median,
  target = the others;
* ``wine``: source = white wines, target = red wines, quality levels as classes;
* ``digits``: source = USPS, target = UCI optdigits; ``usps``: the reverse.
  USPS 16x16 images are averaged over 2x2 blocks to optdigits' 8x8 grid and
  both are scaled to [0, 1];
* ``landmine/<t>``: target = landmine task ``t`` (of 29), source = the 28
  other tasks.

The paper does not print every split rule (the letter split feature and the
target sample sizes are ours); see docs/results/transfer.md.
"""

import numpy as np

TASKS = ("mushroom", "letter", "wine", "digits", "usps", "landmine")


def feature_split(X, y, dataset):
    """Source and target parts of a dataset split on a feature value."""
    if dataset == "mushroom":
        src = X[:, 9] == 0  # stalk-shape: 0 = enlarging (source), 1 = tapering (target)
    elif dataset == "letter":
        src = X[:, 0] <= np.median(X[:, 0])  # x-box
    else:
        raise ValueError(f"No feature split is defined for {dataset!r}; use one of 'mushroom', 'letter'.")
    return (X[src], y[src]), (X[~src], y[~src])


def _digits_8x8(name, data_home):
    from ..datasets import load_dataset

    if name == "usps":
        X, y = load_dataset("usps", data_home=data_home)
        X = X.reshape(-1, 8, 2, 8, 2).mean(axis=(2, 4)).reshape(-1, 64)  # 16x16 -> 8x8
        X = X / max(float(X.max()), 1e-12)
    else:
        X, y = load_dataset("optdigits", data_home=data_home)
        X = X / 16.0
    return X, y


def load_task(task, data_home=None):
    """``(X_source, y_source, X_target, y_target)`` of a task of :data:`TASKS`.

    ``landmine`` needs the target task: ``"landmine/0"`` ... ``"landmine/28"``.
    Raises ``FileNotFoundError`` when a dataset file is absent.
    """
    from ..datasets import load_dataset

    if task in ("mushroom", "letter"):
        X, y = load_dataset(task, data_home=data_home)
        (Xs, ys), (Xt, yt) = feature_split(X, y, task)
        return Xs, ys, Xt, yt
    if task == "wine":
        Xs, ys = load_dataset("wine_quality_white", data_home=data_home)
        Xt, yt = load_dataset("wine_quality_red", data_home=data_home)
        return Xs, ys, Xt, yt
    if task in ("digits", "usps"):
        src, tgt = ("usps", "optdigits") if task == "digits" else ("optdigits", "usps")
        Xs, ys = _digits_8x8(src, data_home)
        Xt, yt = _digits_8x8(tgt, data_home)
        return Xs, ys, Xt, yt
    if task.startswith("landmine/"):
        t = int(task.split("/", 1)[1])
        X, y, groups = load_landmine(data_home)
        tgt = groups == t
        return X[~tgt], y[~tgt], X[tgt], y[tgt]
    raise ValueError(f"Unknown transfer task {task!r}; accepted: {', '.join(TASKS[:-1])}, 'landmine/<0..28>'.")


def load_landmine(data_home=None):
    """Landmine features, labels and task ids (29 tasks)."""
    from ..datasets import load_dataset

    return load_dataset("landmine", data_home=data_home, return_groups=True)
