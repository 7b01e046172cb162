"""Loading datasets: bundled package data, or files in a data directory."""

import hashlib
import os
from importlib import resources
from pathlib import Path

import numpy as np

from ._readers import CANONICAL, encode_target, read_table
from ._registry import REGISTRY

__all__ = ["DATA_ENV_VAR", "get_data_home", "get_dataset_info", "list_datasets",
           "load_dataset"]

#: Environment variable naming the directory that holds non-bundled dataset files.
DATA_ENV_VAR = "FORESTZOO_DATA"

_TASKS = ("classification", "regression")


def get_data_home(data_home=None):
    """Return the data directory: ``data_home``, else ``$FORESTZOO_DATA``, else None."""
    if data_home is None:
        data_home = os.environ.get(DATA_ENV_VAR) or None
    return None if data_home is None else Path(data_home).expanduser()


def get_dataset_info(name):
    """Return the :class:`DatasetInfo` registered under ``name``.

    Raises
    ------
    ValueError
        If no dataset has that name; the message lists the valid names.
    """
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        valid = ", ".join(sorted(REGISTRY))
        raise ValueError(f"Unknown dataset {name!r}. Valid names: {valid}.") from None


def list_datasets(task=None, bundled=None):
    """List registered datasets, sorted by name.

    Parameters
    ----------
    task : {"classification", "regression"} or None
        Keep only datasets of this task.
    bundled : bool or None
        ``True``: only those shipped with the package; ``False``: only those
        read from the data directory; ``None``: all.

    Returns
    -------
    list of DatasetInfo
        Each with ``name``, ``task``, ``n_samples``, ``n_features``,
        ``n_classes``, ``source``, ``licence``, ``bundled`` and ``splits``.
    """
    if task is not None and task not in _TASKS:
        raise ValueError(f"task must be one of {_TASKS} or None, got {task!r}.")
    return [info for _, info in sorted(REGISTRY.items())
            if (task is None or info.task == task)
            and (bundled is None or info.bundled == bool(bundled))]


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_sha256(path, expected, source=None):
    actual = _sha256(path)
    if actual != expected:
        wanted = f"the file from {source}" if source else "the file forestzoo was built with"
        raise ValueError(
            f"The file {path} does not match the recorded checksum (sha256 {actual}, "
            f"expected {expected}); it is corrupt or another version. Replace it with "
            f"{wanted}."
        )


def _missing_file_error(info, file, home):
    where = f"the data directory {home}" if home is not None else "a data directory"
    return FileNotFoundError(
        f"Dataset {info.name!r} is not bundled with forestzoo; it needs the file "
        f"{file.name!r} (sha256 {file.sha256}) in {where}. Put the file in a directory "
        f"and name that directory with data_home= (forestzoo bench --data-home) or the "
        f"{DATA_ENV_VAR} environment variable. The file comes from: {info.source}."
    )


def _load_bundled(info):
    path = resources.files(__package__).joinpath("data", f"{info.name}.csv.gz")
    with resources.as_file(path) as local:
        if not local.is_file():
            raise FileNotFoundError(
                f"The bundled file for {info.name!r} is missing from the installed "
                f"package ({local}); reinstall forestzoo.")
        _check_sha256(local, info.bundle_sha256)  # a damaged install, not user data
        X, labels, _ = read_table(local, CANONICAL)
    return X, labels


def _load_from_dir(info, home, split):
    # Every file is read, even for one split, so that text labels get the same
    # codes whichever part is loaded.
    parts = []
    for file in info.files:
        path = None if home is None else home / file.name
        if path is None or not path.is_file():
            raise _missing_file_error(info, file, home)
        _check_sha256(path, file.sha256, info.source)
        X, labels, _ = read_table(path, info.fmt)
        parts.append((X, labels, np.full(len(X), file.split)))
    X, labels, part = (np.concatenate(arrays) for arrays in zip(*parts))
    y = encode_target(labels, info.task)
    if split is None:
        return X, y
    keep = part == split
    return np.ascontiguousarray(X[keep]), y[keep]


def load_dataset(name, data_home=None, split=None):
    """Load a registered dataset as ``(X, y)``.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets`.
    data_home : str or path-like, optional
        Directory holding the files of non-bundled datasets. Defaults to the
        ``FORESTZOO_DATA`` environment variable. Ignored for bundled datasets.
    split : {"train", "test"} or None
        For datasets with an official train/test split (``info.splits``), load
        only that part. ``None`` loads all rows, train rows first.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,)
        int64 class labels for classification (integer labels keep their
        values; other labels become their index in sorted order), float64
        targets for regression.

    Raises
    ------
    ValueError
        Unknown name or split, or a file whose sha256 does not match.
    FileNotFoundError
        A non-bundled dataset whose file is not in the data directory; the
        message says which file and where to put it.

    Examples
    --------
    >>> from forestzoo.datasets import load_dataset
    >>> X, y = load_dataset("iris")
    >>> X.shape, y[:3]
    ((150, 4), array([0, 0, 0]))
    """
    info = get_dataset_info(name)
    if split is not None and split not in info.splits:
        accepted = ", ".join(repr(s) for s in info.splits) or "only None (no official split)"
        raise ValueError(f"Dataset {name!r} has no split {split!r}; accepted: {accepted}.")
    if info.bundled:
        X, labels = _load_bundled(info)
        return X, encode_target(labels, info.task)
    return _load_from_dir(info, get_data_home(data_home), split)
