"""The user's own data: :func:`register_dataset` (any loader) and :func:`load_file`
(a CSV, Parquet or NumPy ``.npz`` file, or an OpenML dataset by its id).

A registered dataset is seen by :func:`~forestzoo.datasets.load_dataset`,
:func:`~forestzoo.datasets.list_datasets`, ``forestzoo.bench.run_suite`` and
the ``forestzoo bench`` command (which registers the files and ``openml:<id>``
names given to ``--datasets``).
"""

import csv
import gzip
from dataclasses import replace
from pathlib import Path

import numpy as np

from ._readers import encode_target
from ._registry import REGISTRY, DatasetInfo

__all__ = ["register_dataset", "load_file", "dataset_from_spec", "CATEGORICAL", "FILE_SUFFIXES"]

#: What to do with non-numeric feature columns: refuse them (an error naming them) or
#: one-hot encode them (one 0/1 column per category).
CATEGORICAL = ("refuse", "onehot")
#: File names that ``forestzoo bench --datasets`` reads as the user's data.
FILE_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".parquet", ".npz")
#: Cells read as a missing value (NaN) in a text table.
MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "?"})
_TASKS = ("classification", "regression")


def register_dataset(name, loader, *, task="classification", source="", licence="",
                     notes="", replace_existing=False, feature_names=None):
    """Register a dataset under ``name``, loaded by ``loader()``.

    Parameters
    ----------
    name : str
        The dataset's name; lookups ignore case, so it must differ from every
        registered name other than by case.
    loader : callable
        ``loader()`` returns ``(X, y)``: ``X`` numeric of shape
        ``(n_samples, n_features)`` (NaN for missing values), ``y`` of shape
        ``(n_samples,)``, class labels (any values; non-integers become their
        index in sorted order) or regression targets. It is called on every
        load; the sizes that :func:`list_datasets` shows are filled in by the
        first one.
    task : {"classification", "regression"}, default="classification"
        The task of ``y``.
    source, licence, notes : str, optional
        Recorded in the :class:`DatasetInfo` and shown by ``forestzoo datasets``.
    replace_existing : bool, default=False
        Replace a dataset registered earlier with :func:`register_dataset`
        under the same name (forestzoo's own datasets are never replaced).
    feature_names : sequence of str, optional
        Names of the columns of ``X``, for ``load_dataset(..., as_frame=True)``.
        Default: the column names of ``X`` when the loader returns a pandas
        DataFrame, else ``x0, x1, ...``.

    Returns
    -------
    DatasetInfo
        The registered entry.

    Raises
    ------
    ValueError
        A name that is taken, empty or not a string, a loader that is not
        callable, or an unknown task.

    Examples
    --------
    >>> import numpy as np
    >>> from forestzoo.datasets import register_dataset, load_dataset
    >>> rng = np.random.default_rng(0)
    >>> info = register_dataset("my_blobs", lambda: (rng.normal(size=(40, 3)),
    ...                                             np.repeat([0, 1], 20)),
    ...                         replace_existing=True)
    >>> X, y = load_dataset("my_blobs")
    >>> X.shape, int(y.max())
    ((40, 3), 1)
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"name must be a non-empty string, got {name!r}.")
    if not callable(loader):
        raise ValueError(f"loader must be a callable returning (X, y), got {loader!r}.")
    if task not in _TASKS:
        raise ValueError(f"task must be one of {_TASKS}, got {task!r}.")
    if feature_names is not None:
        if isinstance(feature_names, str) or not all(isinstance(n, str) and n for n in feature_names):
            raise ValueError(f"feature_names must be a sequence of non-empty strings, got "
                             f"{feature_names!r}.")
        feature_names = tuple(feature_names)
    taken = [key for key in REGISTRY if key.lower() == name.lower()]
    for key in taken:
        if REGISTRY[key].loader is None:
            raise ValueError(f"A dataset named {key!r} ships with forestzoo; choose another name.")
        if not replace_existing:
            raise ValueError(f"A dataset named {key!r} is already registered; pass "
                             f"replace_existing=True to replace it.")
        del REGISTRY[key]
    info = DatasetInfo(name, task, None, None, None, source or f"user loader {_qualname(loader)}",
                       licence or "the user's", (), None, notes=notes, loader=loader,
                       feature_names=feature_names)
    REGISTRY[name] = info
    return info


def _qualname(obj):
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def call_loader(info, return_names=False):
    """``(X, y)`` from a registered loader, checked and converted; fills in the sizes.

    With ``return_names``, also the feature names: the registered ones, else the
    column names of a DataFrame ``X``, else None.
    """
    what = f"The loader of dataset {info.name!r}"
    try:
        X, y = info.loader()
    except (TypeError, ValueError) as exc:
        if "unpack" in str(exc):
            raise ValueError(f"{what} must return a pair (X, y).") from None
        raise
    names = info.feature_names
    if names is None and hasattr(X, "columns") and hasattr(X, "dtypes"):
        names = [str(c) for c in X.columns]
    try:
        X = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} returned a non-numeric X; encode its categorical columns "
                         f"(forestzoo.datasets.load_file(..., categorical='onehot') does).") from None
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise ValueError(f"{what} returned X of shape {X.shape} and y of shape {y.shape}; "
                         f"expected (n_samples, n_features) and (n_samples,).")
    if len(y) < 2 or X.shape[1] < 1:
        raise ValueError(f"{what} returned {len(y)} rows and {X.shape[1]} features; at least "
                         f"2 rows and 1 feature are needed.")
    if info.feature_names is not None and len(info.feature_names) != X.shape[1]:
        raise ValueError(f"{what} returned {X.shape[1]} features, but {len(info.feature_names)} "
                         f"feature_names were registered.")
    y = encode_target(y, info.task)
    if info.task == "regression" and not np.all(np.isfinite(y)):
        raise ValueError(f"{what} returned a target with missing or infinite values.")
    n_classes = int(len(np.unique(y))) if info.task == "classification" else None
    current = REGISTRY.get(info.name)
    if current is not None and current.loader is info.loader:
        REGISTRY[info.name] = replace(current, n_samples=len(y), n_features=X.shape[1],
                                      n_classes=n_classes, missing_values=bool(np.isnan(X).any()))
    return (X, y, names) if return_names else (X, y)


# --- files ------------------------------------------------------------------------------

def _read_csv(path):
    """``(column names, list of columns as str arrays)`` of a text table with a header row."""
    opener = gzip.open if path.name.endswith(".gz") else open
    sep = "\t" if path.name.endswith((".tsv", ".tsv.gz")) else ","
    with opener(path, "rt", newline="", encoding="utf-8-sig") as fh:
        rows = [r for r in csv.reader(fh, delimiter=sep) if r]
    if not rows:
        raise ValueError(f"{path} is empty.")
    header, body = [h.strip() for h in rows[0]], rows[1:]
    bad = [i + 2 for i, r in enumerate(body) if len(r) != len(header)]
    if bad:
        raise ValueError(f"{path}: {len(bad)} row(s) do not have the header's {len(header)} "
                         f"cells (first: line {bad[0]}).")
    columns = list(zip(*body)) if body else [() for _ in header]
    return header, [np.array(c, dtype=str) for c in columns]


def _read_parquet(path):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(f"Reading {path} needs pyarrow: pip install 'forestzoo[data]' "
                          f"(or pip install pyarrow).") from None
    table = pq.read_table(path)
    columns = []
    for col in table.columns:
        values = col.to_numpy(zero_copy_only=False)
        if values.dtype.kind not in "biuf":
            values = np.array(["" if v is None else str(v) for v in values.tolist()], dtype=str)
        columns.append(values)
    return [str(n) for n in table.column_names], columns


def _read_npz(path, target):
    with np.load(path, allow_pickle=False) as data:
        keys = list(data.keys())
        ykey = target or "y"
        if "X" not in keys or ykey not in keys:
            raise ValueError(f"{path} holds arrays {keys}; expected 'X' (features) and "
                             f"{ykey!r} (target{'' if target else '; another name with --target'}).")
        X, y = data["X"], data[ykey]
    if X.ndim != 2:
        raise ValueError(f"{path}: X has shape {X.shape}; expected (n_samples, n_features).")
    names = [f"x{j}" for j in range(X.shape[1])]
    return names + ["y"], [X[:, j] for j in range(X.shape[1])] + [y]


def _fetch_openml(data_id):
    from sklearn.datasets import fetch_openml

    try:
        bunch = fetch_openml(data_id=data_id, as_frame=True, parser="auto")
    except OSError as exc:  # urllib's URLError and socket errors: no network
        raise ConnectionError(
            f"openml:{data_id}: could not reach OpenML ({exc}). Fetching needs a network, "
            f"or the dataset in scikit-learn's cache (sklearn.datasets.get_data_home()); "
            f"offline, save the data as a CSV file and give its path instead.") from None
    frame = bunch.frame
    columns = []
    for name in frame.columns:
        col = frame[name]
        values = col.to_numpy()
        if values.dtype.kind not in "biuf":
            values = np.array(["" if v is None or v != v else str(v) for v in col.tolist()],
                              dtype=str)
        columns.append(values)
    default = list(bunch.target_names or [])
    return [str(c) for c in frame.columns], columns, default


def _numeric(values):
    """A column as float64, or None when some non-missing cell is not a number."""
    if values.dtype.kind in "biuf":
        return values.astype(np.float64)
    cells = np.char.strip(values.astype(str))
    missing = np.isin(np.char.lower(cells), list(MISSING))
    try:
        return np.where(missing, "nan", cells).astype(np.float64)
    except ValueError:
        return None


def _one_hot(name, values):
    cells = np.char.strip(values.astype(str))
    missing = np.isin(np.char.lower(cells), list(MISSING))
    categories = np.unique(cells[~missing])
    block = (cells[:, None] == categories[None, :]).astype(np.float64)
    block[missing] = np.nan
    return [f"{name}={c}" for c in categories], block


def _assemble(what, names, columns, target, task, categorical, default_target=None):
    """``(X, y, feature names)`` from named columns: pick the target, check or encode the rest."""
    if categorical not in CATEGORICAL:
        raise ValueError(f"categorical must be one of {CATEGORICAL}, got {categorical!r}.")
    if task not in _TASKS:
        raise ValueError(f"task must be one of {_TASKS}, got {task!r}.")
    if len(names) < 2:
        raise ValueError(f"{what} has {len(names)} column(s); it needs features and a target.")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"{what} names column(s) {twice} twice.")
    target = target if target is not None else (default_target or names[-1])
    if target not in names:
        raise ValueError(f"{what} has no column {target!r}; its columns: "
                         f"{', '.join(repr(n) for n in names)}.")
    t = names.index(target)
    labels = columns[t]
    if labels.dtype.kind not in "biuf":
        cells = np.char.strip(labels.astype(str))
        empty = np.isin(np.char.lower(cells), list(MISSING))
        if empty.any():
            raise ValueError(f"{what}: {int(empty.sum())} row(s) have no value in the target "
                             f"column {target!r} (first: row {int(np.argmax(empty)) + 1}); "
                             f"remove them.")
        labels = cells
    if task == "regression":
        y = _numeric(labels)
        if y is None or not np.all(np.isfinite(y)):
            raise ValueError(f"{what}: the target column {target!r} is not all numbers; a "
                             f"regression target must be.")
    else:
        y = encode_target(labels, task)
    feats, parts, text = [], [], []
    for name, values in zip(names, columns):
        if name == target:
            continue
        number = _numeric(values)
        if number is not None:
            feats.append(name)
            parts.append(number[:, None])
        elif categorical == "onehot":
            block_names, block = _one_hot(name, values)
            feats += block_names
            parts.append(block)
        else:
            text.append(name)
    if text:
        example = next(v for v in columns[names.index(text[0])] if _numeric(np.array([v])) is None)
        raise ValueError(
            f"{what}: column(s) {', '.join(repr(n) for n in text)} are not numeric (categorical; "
            f"{text[0]!r} holds {str(example)!r}). forestzoo's models take numbers only: encode or "
            f"drop them, or one-hot encode them with --categorical onehot "
            f"(categorical='onehot').")
    if not parts:
        raise ValueError(f"{what} has no feature column besides the target {target!r}.")
    X = np.ascontiguousarray(np.hstack(parts), dtype=np.float64)
    if len(y) < 2:
        raise ValueError(f"{what} has {len(y)} row(s); at least 2 are needed.")
    return X, y, feats


def _openml_id(spec):
    text = spec[len("openml:"):].strip()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{spec!r}: expected openml:<data_id>, a positive integer "
                         f"(e.g. openml:61 for iris).")
    return int(text)


def load_file(path, *, target=None, task="classification", categorical="refuse",
              return_names=False):
    """Read the user's data as ``(X, y)``.

    Parameters
    ----------
    path : str or path-like
        A CSV file (``.csv``, ``.tsv``, optionally gzipped) whose first row
        names the columns; a Parquet file (``.parquet``, needs pyarrow); a
        NumPy ``.npz`` file holding arrays ``X`` and ``y``; or
        ``"openml:<data_id>"``, fetched with ``sklearn.datasets.fetch_openml``
        (needs a network or scikit-learn's cache). Cells that are empty or
        ``NA``, ``N/A``, ``NaN``, ``null``, ``None``, ``?`` are missing (NaN).
    target : str, optional
        The target column; default the last column (CSV, Parquet), the
        dataset's default target (OpenML) or the array ``y`` (``.npz``, where
        ``target`` names another array).
    task : {"classification", "regression"}, default="classification"
        Class labels may be any text or integers (see ``encode_target``);
        regression targets must be numbers.
    categorical : {"refuse", "onehot"}, default="refuse"
        Non-numeric feature columns raise an error naming them, or are
        replaced by one 0/1 column per category (named ``column=category``;
        NaN where the cell is missing).
    return_names : bool, default=False
        Also return the feature names.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        The features; NaN marks a missing value.
    y : ndarray of shape (n_samples,)
        The int64 class labels, or float64 regression targets.
    names : list of str
        Only with ``return_names=True``.

    Raises
    ------
    ValueError
        A file that cannot be read as such a table, a missing target column or
        target values, non-numeric features with ``categorical="refuse"``.
    FileNotFoundError
        No file at ``path``.
    ConnectionError
        ``openml:<id>`` and OpenML cannot be reached.
    ImportError
        A Parquet file without pyarrow installed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from forestzoo.datasets import load_file
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "data.csv"
    >>> _ = path.write_text("a,b,label\\n1,2,x\\n3,NA,y\\n5,6,x\\n")
    >>> X, y = load_file(path)
    >>> X.tolist(), y.tolist()
    ([[1.0, 2.0], [3.0, nan], [5.0, 6.0]], [0, 1, 0])
    """
    spec = str(path)
    default = None
    if spec.lower().startswith("openml:"):
        names, columns, default = _fetch_openml(_openml_id(spec))
        if target is None and len(default) != 1:
            raise ValueError(f"{spec} has {len(default)} default target columns; name one "
                             f"with --target (target=).")
        default = default[0] if default else None
    else:
        p = Path(spec).expanduser()
        lower = p.name.lower()
        if not lower.endswith(FILE_SUFFIXES):
            raise ValueError(f"{spec}: unknown kind of file; forestzoo reads "
                             f"{', '.join(FILE_SUFFIXES)} files and openml:<id>.")
        if not p.is_file():
            raise FileNotFoundError(f"No data file {spec} (resolved: {p.resolve()}).")
        if lower.endswith(".npz"):
            names, columns = _read_npz(p, target)
            target = names[-1]
        elif lower.endswith(".parquet"):
            names, columns = _read_parquet(p)
        else:
            names, columns = _read_csv(p)
    X, y, feats = _assemble(spec, names, columns, target, task, categorical, default)
    return (X, y, feats) if return_names else (X, y)


def is_data_spec(text):
    """True when a ``--datasets`` entry names a file or ``openml:<id>``, not a registered name."""
    text = str(text)
    return text.lower().startswith("openml:") or text.lower().endswith(FILE_SUFFIXES)


def dataset_from_spec(spec, *, task="classification", target=None, categorical="refuse"):
    """The registered name for a ``--datasets`` entry, registering a file or OpenML id.

    A registered name comes back in its registered spelling. A file is
    registered under its stem (``data/cars.csv`` -> ``cars``), or under the
    path as given when the stem names another dataset; ``openml:<id>`` under
    itself. The file is read once here, so that a bad file fails before any
    model is fitted.
    """
    if not is_data_spec(spec):
        from ._base import get_dataset_info

        return get_dataset_info(spec).name
    spec = str(spec)
    if spec.lower().startswith("openml:"):
        spec = f"openml:{_openml_id(spec)}"
        name = spec
    else:
        stem = Path(spec).name
        for suffix in sorted(FILE_SUFFIXES, key=len, reverse=True):
            if stem.lower().endswith(suffix):
                stem = stem[:-len(suffix)]
                break
        name = stem or spec
    # the file's checksum is part of its source, so that a run does not resume into the
    # results of another version of the file (run.json records the sources)
    if not spec.startswith("openml:") and Path(spec).expanduser().is_file():
        from ._base import _sha256

        digest = f"sha256 {_sha256(Path(spec).expanduser())[:16]}, "
    else:
        digest = ""
    source = f"{spec} ({digest}target {target or 'default'}, categorical {categorical})"
    taken = {k.lower(): k for k in REGISTRY}
    if name.lower() in taken and REGISTRY[taken[name.lower()]].source != source:
        name = spec
    X, y, feats = load_file(spec, target=target, task=task, categorical=categorical,
                            return_names=True)
    data = {"X": X, "y": y}  # read once: a run loads it again from memory
    unique = len(set(feats)) == len(feats) and all(feats)
    register_dataset(name, lambda: (data["X"], data["y"]), task=task, source=source,
                     licence="the user's", replace_existing=True,
                     feature_names=feats if unique else None)
    call_loader(REGISTRY[name])
    return name
