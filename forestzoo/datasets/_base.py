"""Loading datasets: bundled package data, files in a data directory, or (when the user
opts in with ``FORESTZOO_DOWNLOAD=1``) OpenML for a missing file whose dataset records
an OpenML id."""

import hashlib
import os
from dataclasses import replace
from importlib import resources
from pathlib import Path

import numpy as np

from ._readers import (
    CANONICAL,
    IdxFormat,
    LibSVMFormat,
    encode_target,
    read_idx,
    read_libsvm,
    read_table,
    read_table_named,
)
from ._registry import REGISTRY

__all__ = ["DATA_ENV_VAR", "DOWNLOAD_ENV_VAR", "get_data_home", "get_dataset_info",
           "list_datasets", "load_dataset"]

#: Environment variable naming the directory that holds non-bundled dataset files.
DATA_ENV_VAR = "FORESTZOO_DATA"
#: Environment variable that, set to 1, lets a missing data-directory file be fetched
#: from OpenML (``sklearn.datasets.fetch_openml``) when its dataset records an OpenML id.
DOWNLOAD_ENV_VAR = "FORESTZOO_DOWNLOAD"

_TASKS = ("classification", "regression")


def get_data_home(data_home=None):
    """Return the data directory: ``data_home``, else ``$FORESTZOO_DATA``, else None.

    Parameters
    ----------
    data_home : str or path-like, optional
        The directory to use; None reads the ``FORESTZOO_DATA`` environment variable.

    Returns
    -------
    pathlib.Path or None
        The directory (``~`` expanded), None when neither is set.

    Examples
    --------
    >>> from forestzoo.datasets import get_data_home
    >>> get_data_home("/data/forestzoo").as_posix()
    '/data/forestzoo'
    """
    if data_home is None:
        data_home = os.environ.get(DATA_ENV_VAR) or None
    return None if data_home is None else Path(data_home).expanduser()


def get_dataset_info(name):
    """Return the :class:`DatasetInfo` registered under ``name`` (case-insensitive).

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets`.

    Returns
    -------
    DatasetInfo
        What is known about the dataset.

    Raises
    ------
    ValueError
        If no dataset has that name; the message lists the valid names.

    Examples
    --------
    >>> from forestzoo.datasets import get_dataset_info
    >>> info = get_dataset_info("Iris")
    >>> info.name, info.task, info.n_samples, info.n_classes
    ('iris', 'classification', 150, 3)
    """
    if isinstance(name, str) and name not in REGISTRY:  # names ignore case
        folded = {key.lower(): key for key in REGISTRY}
        name = folded.get(name.lower(), name)
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
        ``True``: only those shipped with the package; ``False``: those read
        from the data directory and the synthetic ones; ``None``: all.

    Returns
    -------
    list of DatasetInfo
        The datasets that match, sorted by name.
        Each with ``name``, ``task``, ``n_samples``, ``n_features``,
        ``n_classes``, ``source``, ``licence``, ``bundled`` and ``splits``.

    Examples
    --------
    >>> from forestzoo.datasets import list_datasets
    >>> "iris" in [info.name for info in list_datasets(task="classification", bundled=True)]
    True
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


def _download_allowed():
    return os.environ.get(DOWNLOAD_ENV_VAR, "").strip().lower() in ("1", "true", "yes")


def _fetches_from_openml(info, home):
    """True when a file of ``info`` is missing, the user opted in and an OpenML id is known."""
    return (info.openml_id is not None and _download_allowed() and not info.bundled
            and not info.synthetic
            and (home is None or any(not (home / f.name).is_file() for f in info.files)))


def _missing_file_error(info, file, home):
    where = f"the data directory {home}" if home is not None else "a data directory"
    if info.openml_id is None and _download_allowed():
        fetch = (f" {DOWNLOAD_ENV_VAR}=1 is set, but no OpenML id is recorded for "
                 f"{info.name!r}, so it cannot be fetched; only the file will do.")
    elif info.openml_id is not None:
        fetch = (f" Or, with a network, set {DOWNLOAD_ENV_VAR}=1 to fetch it from OpenML "
                 f"(data_id {info.openml_id}) with sklearn.datasets.fetch_openml instead.")
    else:
        fetch = ""
    return FileNotFoundError(
        f"Dataset {info.name!r} is not bundled with forestzoo; it needs the file "
        f"{file.name!r} (sha256 {file.sha256}) in {where}. Put the file in a directory "
        f"and name that directory with data_home= (forestzoo bench --data-home) or the "
        f"{DATA_ENV_VAR} environment variable. The file comes from: {info.source}.{fetch}"
    )


def _frame_column(col):
    """One column of an OpenML frame as float64: numbers as they are, categories
    (and any text the parser left as objects) as their codes, missing as NaN."""
    import pandas as pd

    if not pd.api.types.is_numeric_dtype(col) and not isinstance(col.dtype, pd.CategoricalDtype):
        col = col.astype("category")  # text: codes in sorted order
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy(dtype=np.float64)
        codes[codes < 0] = np.nan
        return codes
    return col.to_numpy(dtype=np.float64, na_value=np.nan)


def _load_openml(info):
    """``(X, y, feature names, target name)`` of ``info`` fetched by its OpenML id, in the file
    loader's contract."""
    from sklearn.datasets import fetch_openml

    bunch = fetch_openml(data_id=info.openml_id, as_frame=True, parser="auto")
    frame, target = bunch.data, bunch.target
    what = f"OpenML data_id {info.openml_id} (for dataset {info.name!r})"
    if target is None or getattr(target, "ndim", 1) != 1:
        raise ValueError(f"{what} has no single default target column.")
    if target.isna().any():
        raise ValueError(f"{what} has rows without a target.")
    X = np.ascontiguousarray(np.column_stack([_frame_column(frame[c]) for c in frame.columns]),
                             dtype=np.float64)
    if X.shape != (info.n_samples, info.n_features):
        raise ValueError(f"{what} has {X.shape[0]} rows x {X.shape[1]} features; the "
                         f"registry records {info.n_samples} x {info.n_features}: not the "
                         f"same data. Put the file in the data directory instead.")
    labels = np.asarray(target.astype(str) if info.task == "classification" else target)
    return X, encode_target(labels, info.task), [str(c) for c in frame.columns], target.name


def _load_bundled(info):
    path = resources.files(__package__).joinpath("data", f"{info.name}.csv.gz")
    with resources.as_file(path) as local:
        if not local.is_file():
            raise FileNotFoundError(
                f"The bundled file for {info.name!r} is missing from the installed "
                f"package ({local}); reinstall forestzoo.")
        _check_sha256(local, info.bundle_sha256)  # a damaged install, not user data
        X, labels, names = read_table(local, CANONICAL)
    return X, labels, names


def _checked_path(info, file, home):
    path = None if home is None else home / file.name
    if path is None or not path.is_file():
        raise _missing_file_error(info, file, home)
    _check_sha256(path, file.sha256, info.source)
    return path


def _read_part(info, paths):
    """Read the file(s) of one split: ``(X, labels, feature names, groups, target name)``,
    the names ``None`` where the files carry none (as :func:`read_table_named`)."""
    fmt = info.fmt
    if isinstance(fmt, IdxFormat):
        images, labels = (read_idx(p) for p in paths)
        if len(images) != len(labels):
            raise ValueError(f"{paths[0]} holds {len(images)} images but {paths[1]} "
                             f"{len(labels)} labels.")
        X = np.ascontiguousarray(images.reshape(len(images), -1), dtype=np.float64)
        return X, labels.astype(np.int64), None, None, None
    (path,) = paths
    if isinstance(fmt, LibSVMFormat):
        X, labels = read_libsvm(path, fmt)
        return X, labels, None, None, None
    return read_table_named(path, fmt)


def check_files(name, data_home=None):
    """Raise what :func:`load_dataset` would for a missing or corrupt file,
    without parsing anything (cheap: one sha256 per file)."""
    info = get_dataset_info(name)
    if info.synthetic or info.bundled or info.loader is not None:
        return
    home = get_data_home(data_home)
    if _fetches_from_openml(info, home):
        return
    for file in info.files:
        _checked_path(info, file, home)


def load_with_parts(name, data_home=None):
    """``(X, y, part)``: all rows, ``part[i]`` being ``"train"``, ``"test"`` or ``"all"``."""
    info = get_dataset_info(name)
    if not info.splits or _fetches_from_openml(info, get_data_home(data_home)):
        X, y = load_dataset(name, data_home=data_home)
        return X, y, np.full(len(y), "all")
    X, y, _, part, _ = _load_from_dir(get_dataset_info(name), get_data_home(data_home), None)
    return X, y, part


def _load_from_dir(info, home, split):
    """``(X, y, groups, part, names)``: ``part[i]`` the split of row ``i`` and ``names`` the
    files' ``(feature names, target name)``, each ``None`` where they carry none."""
    # Tables are read whole, even for one split, so that text labels get the
    # same codes whichever part is loaded; IDX and LIBSVM labels are numbers,
    # so only the asked-for part is read (fashion_mnist's train part is big).
    numeric = isinstance(info.fmt, (IdxFormat, LibSVMFormat))
    by_split = {}
    for file in info.files:
        by_split.setdefault(file.split, []).append(file)
    parts = []
    for part_name, files in by_split.items():
        if numeric and split is not None and part_name != split:
            continue
        paths = [_checked_path(info, f, home) for f in files]
        X, labels, names, groups, target_name = _read_part(info, paths)
        parts.append((X, labels, groups, np.full(len(X), part_name), (names, target_name)))
    X = np.concatenate([p[0] for p in parts])
    labels = np.concatenate([p[1] for p in parts])
    groups = None if parts[0][2] is None else np.concatenate([p[2] for p in parts])
    part = np.concatenate([p[3] for p in parts])
    y = encode_target(labels, info.task)
    if split is not None:
        keep = part == split
        X, y, part = np.ascontiguousarray(X[keep]), y[keep], part[keep]
        groups = None if groups is None else groups[keep]
    return X, y, groups, part, parts[0][4]


def _with_target(info, target):
    names = [t for t, _ in info.targets]
    if target not in names:
        accepted = ", ".join(repr(t) for t in names) or "only None (one target)"
        raise ValueError(f"Dataset {info.name!r} has no target {target!r}; "
                         f"accepted: {accepted}.")
    col = dict(info.targets)[target]
    others = tuple(c for _, c in info.targets if c != col)
    base = REGISTRY[info.name].fmt
    drop = tuple(c for c in base.drop if c not in dict(info.targets).values()) + others
    return replace(info, fmt=replace(base, target=col, drop=drop))


def _feature_names(info, names, n_features):
    """The column names of ``X``: the registry's, else the files' header, else ``x0, x1, ...``
    (scikit-learn's convention for data without names)."""
    for candidate in (info.feature_names, names):
        if (candidate is not None and len(candidate) == n_features and all(candidate)
                and len(set(candidate)) == n_features):
            return [str(n) for n in candidate]
    return [f"x{j}" for j in range(n_features)]


def _target_name(info, target, file_name):
    """The name of ``y``: the target asked for, else the entry's default target, else the
    files' name for the column, else ``"target"`` (as scikit-learn's loaders name it)."""
    if target is not None:
        return target
    for t, col in info.targets:  # the entry's own target (energy_efficiency_cooling: "cooling")
        if col == info.fmt.target:
            return t
    return str(file_name) if file_name else "target"


def _load(name, data_home, split, target, return_groups):
    """``(X, y, groups, feature names, target name)`` of :func:`load_dataset`; the names
    are ``None`` where the source carries none, ``groups`` is ``None`` without ``return_groups``."""
    info = get_dataset_info(name)
    if split is not None and split not in info.splits:
        accepted = ", ".join(repr(s) for s in info.splits) or "only None (no official split)"
        raise ValueError(f"Dataset {name!r} has no split {split!r}; accepted: {accepted}.")
    if return_groups and info.group_name is None:
        raise ValueError(f"Dataset {name!r} has no group column; return_groups=True "
                         f"works for: {', '.join(n for n, i in REGISTRY.items() if i.group_name)}.")
    if info.loader is not None:
        if split is not None or target is not None:
            raise ValueError(f"Dataset {info.name!r} is the user's (register_dataset): it has no "
                             f"official split or alternative target.")
        from ._user import call_loader

        X, y, names = call_loader(info, return_names=True)
        return X, y, None, names, None
    if target is not None:
        info = _with_target(info, target)
    if info.synthetic:
        from . import _synthetic

        X, y = getattr(_synthetic, info.generator)(info.n_samples, random_state=0)
        return X, y, None, None, None
    if info.bundled:
        X, labels, names = _load_bundled(info)
        # the bundle's target column is always named "target": the name is the registry's
        return X, encode_target(labels, info.task), None, names, None
    home = get_data_home(data_home)
    if _fetches_from_openml(info, home):
        if split is not None or target is not None or return_groups:
            raise ValueError(f"Dataset {name!r} would be fetched from OpenML (its file is not in "
                             f"the data directory), and the OpenML copy has no official split, "
                             f"alternative target or group column: split=, target= and "
                             f"return_groups= need the file.")
        X, y, names, target_name = _load_openml(info)
        return X, y, None, names, target_name
    X, y, groups, _, (names, target_name) = _load_from_dir(info, home, split)
    return X, y, groups if return_groups else None, names, target_name


def _pandas(what):
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"{what} needs pandas, which is not installed: pip install pandas "
                          f"(or leave as_frame=False for numpy arrays).") from None
    return pd


def load_dataset(name, data_home=None, split=None, target=None, return_groups=False,
                 as_frame=False):
    """Load a registered dataset as ``(X, y)``.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets`.
    data_home : str or path-like, optional
        Directory holding the files of non-bundled datasets. Defaults to the
        ``FORESTZOO_DATA`` environment variable. Ignored for bundled datasets.
        When a file is missing there, the environment variable
        ``FORESTZOO_DOWNLOAD=1`` (off by default) fetches the dataset from
        OpenML instead, with ``sklearn.datasets.fetch_openml`` and its cache,
        if the registry records an OpenML id (``info.openml_id``). The OpenML
        copy is not checksum-checked and may encode the same rows differently
        (category codes in OpenML's order, unknown values as NaN); its shape
        must match the registry's; it has no split, alternative target or
        group column.
    split : {"train", "test"} or None
        For datasets with an official train/test split (``info.splits``), load
        only that part. ``None`` loads all rows, train rows first.
    target : str, optional
        For datasets with several targets (``info.targets``, e.g.
        ``"heating"`` / ``"cooling"`` for energy_efficiency), which one is
        ``y``. ``None``: the entry's default.
    return_groups : bool, default=False
        Also return the group column of datasets that have one
        (``info.group_name``: landmine's 29 tasks).
    as_frame : bool, default=False
        Return ``X`` as a pandas DataFrame and ``y`` (and ``groups``) as
        pandas Series, as scikit-learn's loaders do with ``as_frame=True``.
        The columns are named after the features: the names the registry
        records (``info.feature_names``), else those of the file's header,
        else ``x0, x1, ...`` (synthetic data, image and LIBSVM files, the
        user's loaders that return no DataFrame). ``y`` is named after the
        target (the ``target`` asked for or the entry's default one, the
        file's name for the column, else ``"target"``), ``groups`` after
        ``info.group_name``. The values are those of ``as_frame=False``.
        Needs pandas.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64, or DataFrame
        NaN marks a missing value (only where ``info.missing_values``).
    y : ndarray of shape (n_samples,), or Series
        The int64 class labels for classification (integer labels keep their
        values; other labels become their index in sorted order), float64
        targets for regression.
    groups : ndarray of shape (n_samples,), int64, or Series
        Only with ``return_groups=True``.

    Raises
    ------
    ValueError
        Unknown name or split, or a file whose sha256 does not match.
    FileNotFoundError
        A non-bundled dataset whose file is not in the data directory (and
        that is not fetched from OpenML); the message says which file and
        where to put it.
    ImportError
        ``as_frame=True`` without pandas installed.

    Examples
    --------
    >>> from forestzoo.datasets import load_dataset
    >>> X, y = load_dataset("iris")
    >>> X.shape, y[:3]
    ((150, 4), array([0, 0, 0]))
    >>> X, y = load_dataset("iris", as_frame=True)
    >>> list(X.columns[:2]), y.name
    (['sepal length (cm)', 'sepal width (cm)'], 'target')
    """
    pd = _pandas("load_dataset(..., as_frame=True)") if as_frame else None
    X, y, groups, names, target_name = _load(name, data_home, split, target, return_groups)
    if pd is not None:
        info = get_dataset_info(name)
        X = pd.DataFrame(X, columns=_feature_names(info, names, X.shape[1]))
        y = pd.Series(y, name=_target_name(info, target, target_name))
        if groups is not None:
            groups = pd.Series(groups, name=info.group_name)
    return (X, y, groups) if return_groups else (X, y)
