"""Decision regions of registered models on a two-feature dataset, side by side
(the style of the DNRF paper's Fig. 1 and 3: training points over the regions
each model predicts)."""

import warnings

import numpy as np
from sklearn.model_selection import train_test_split

from ..datasets import _synthetic, get_dataset_info, list_datasets, load_dataset
from ..datasets._base import check_files, get_data_home
from .registry import get_model, make_model

__all__ = ["plot_boundary"]


def plot_boundary(models, dataset="two_spirals", *, out=None, n_estimators=100, n_jobs=2,
                  random_state=0, resolution=200, data_home=None, test_size=1 / 3):
    """Fit each model on 2/3 of a 2-D dataset and draw its decision regions.

    Parameters
    ----------
    models : str or sequence of str
        Registered classification model names; one panel each.
    dataset : str, default="two_spirals"
        A registered classification dataset with exactly two features
        (``two_spirals``, ``four_spirals``, ``banana``, ...). A data-directory
        dataset whose file is absent but that has a generator
        (``banana``: :func:`~forestzoo.datasets.make_banana`) is drawn with it
        instead, as many points as the file holds, with a ``UserWarning``
        saying so.
    out : str or path-like, optional
        PNG file to write.
    n_estimators, n_jobs, random_state
        Passed to the model factories; ``random_state`` also draws the split.
    resolution : int, default=200
        Grid points per axis.

    Returns
    -------
    fig : matplotlib Figure
    accuracies : dict
        Model name -> test accuracy on the held-out third.
    """
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("forestzoo plot needs matplotlib: pip install 'forestzoo[plot]'."
                          ) from exc
    names = [models] if isinstance(models, str) else list(models)
    if not names:
        raise ValueError("Give at least one model.")
    specs = [get_model(m) for m in names]
    for spec in specs:
        if spec.task != "classification":
            raise ValueError(f"Model {spec.name!r} is a {spec.task} model; decision regions "
                             f"need a classifier.")
    info = get_dataset_info(dataset)
    if info.task != "classification" or info.n_features != 2:
        valid = ", ".join(d.name for d in list_datasets(task="classification")
                          if d.n_features == 2)
        raise ValueError(f"Dataset {dataset!r} has {info.n_features} features; decision "
                         f"regions need a 2-feature classification dataset: {valid}.")
    if not isinstance(resolution, (int, np.integer)) or resolution < 10:
        raise ValueError(f"resolution must be an integer >= 10, got {resolution!r}.")
    X, y = _load_or_draw(info, data_home)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, stratify=y,
                                              random_state=random_state)
    pad = 0.05 * (X.max(axis=0) - X.min(axis=0))
    lo, hi = X.min(axis=0) - pad, X.max(axis=0) + pad
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], resolution),
                         np.linspace(lo[1], hi[1], resolution))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    classes = np.unique(y)
    fig, axes = plt.subplots(1, len(specs), figsize=(4.2 * len(specs), 4.2), squeeze=False)
    cmap = plt.get_cmap("tab10" if len(classes) > 2 else "coolwarm")
    accuracies = {}
    for ax, spec in zip(axes[0], specs):
        model = make_model(spec.name, n_estimators=n_estimators, n_jobs=n_jobs,
                           random_state=random_state).fit(X_tr, y_tr)
        accuracies[spec.name] = float(np.mean(model.predict(X_te) == y_te))
        regions = np.searchsorted(classes, model.predict(grid)).reshape(gx.shape)
        ax.contourf(gx, gy, regions, levels=np.arange(len(classes) + 1) - 0.5, cmap=cmap,
                    alpha=0.35)
        ax.scatter(X_tr[:, 0], X_tr[:, 1], c=np.searchsorted(classes, y_tr), cmap=cmap,
                   vmin=0, vmax=len(classes) - 1, s=6, edgecolors="none")
        ax.set_title(f"{spec.name}: test accuracy {accuracies[spec.name]:.3f}", fontsize=10)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(f"{dataset}: decision regions, training points (2/3 of {len(y)})",
                 fontsize=10)
    fig.tight_layout()
    if out is not None:
        fig.savefig(out, dpi=110)
    return fig, accuracies


def _load_or_draw(info, data_home):
    """``(X, y)`` of a 2-D dataset; drawn by its ``make_<name>`` generator when its file is absent."""
    generator = getattr(_synthetic, f"make_{info.name}", None)
    if generator is not None and not (info.bundled or info.synthetic):
        try:
            check_files(info.name, data_home)
        except FileNotFoundError:
            home = get_data_home(data_home)
            where = f"in {home}" if home is not None else "in a data directory (none given)"
            warnings.warn(f"the file of {info.name!r} is not {where}: plotting "
                          f"{info.n_samples} points drawn by forestzoo.datasets.make_{info.name}"
                          f"(random_state=0) instead.", UserWarning, stacklevel=3)
            return generator(info.n_samples, random_state=0)
    return load_dataset(info.name, data_home=data_home)
