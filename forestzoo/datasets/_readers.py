"""Parse dataset files (plain, gzip or bz2) into a numeric ``(X, y)``.

Nearly every dataset file this package reads, bundled or from the data
directory, is a rectangular text table: one row per sample, one column of
labels (or targets), perhaps an identifier column to drop, a header line to
skip, a token for missing values. A :class:`TableFormat` records which, so one
parser serves them all. Two other formats occur: LIBSVM's sparse text format
(:class:`LibSVMFormat`) and the IDX binary format of MNIST-like image sets
(:class:`IdxFormat`).
"""

import bz2
import gzip
import io
from dataclasses import dataclass

import numpy as np

__all__ = ["TableFormat", "LibSVMFormat", "IdxFormat", "CANONICAL", "read_table",
           "read_table_groups", "read_table_named", "read_libsvm", "read_idx", "encode_target",
           "write_canonical"]


@dataclass(frozen=True)
class TableFormat:
    """How to read one text table.

    Parameters
    ----------
    sep : str or None
        Column separator; ``None`` splits on runs of whitespace.
    header : bool
        Whether the first line is a header (skipped; used for feature names
        when it has one entry per column).
    target : int
        Column index of the label / regression target (negative counts from
        the end), taken before any column is dropped.
    drop : tuple of int
        Other columns to discard (row identifiers, names, other targets).
    na_values : tuple of str
        Tokens that mark a missing feature value; they become NaN.
    group : int or None
        Column holding a group / task id (e.g. landmine's 29 tasks), taken
        out of ``X`` and returned by :func:`read_table_groups`.
    """

    sep: str | None = ","
    header: bool = False
    target: int = -1
    drop: tuple[int, ...] = ()
    na_values: tuple[str, ...] = ()
    group: int | None = None


@dataclass(frozen=True)
class LibSVMFormat:
    """LIBSVM / svmlight sparse text (``label index:value ...``), read densely.

    Parameters
    ----------
    n_features : int
        Number of features (indices are 1-based in the file).
    """

    n_features: int


@dataclass(frozen=True)
class IdxFormat:
    """IDX binary files (MNIST, Fashion-MNIST): one images file and one labels
    file per split, listed in that order."""


#: The format of the cleaned files shipped in ``forestzoo/datasets/data/``:
#: comma-separated, one header line of feature names, target last.
CANONICAL = TableFormat(sep=",", header=True, target=-1)


def _open_text(path):
    path = str(path)
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    if path.endswith(".bz2"):
        return bz2.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _split(line, sep):
    return [tok.strip().strip('"') for tok in line.split(sep)]


def read_table(path, fmt):
    """Read ``path`` with ``fmt``; return ``(X, labels, feature_names)``.

    ``X`` is float64, C-ordered, shape ``(n_samples, n_features)``; ``labels``
    is the target column, float when the whole table is numeric and raw text
    tokens otherwise; ``feature_names`` is a list of str, or ``None`` when the
    file has no usable header.
    """
    return read_table_groups(path, fmt)[:3]


def read_table_groups(path, fmt):
    """Like :func:`read_table`, plus the group column (``None`` without one)."""
    return read_table_named(path, fmt)[:4]


def read_table_named(path, fmt):
    """Like :func:`read_table_groups`, plus the header's name of the target column.

    Returns ``(X, labels, feature_names, groups, target_name)``; ``target_name``
    is ``None`` when the file has no usable header (see :func:`read_table`).
    """
    with _open_text(path) as fh:
        lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    header = _split(lines.pop(0), fmt.sep) if fmt.header else None
    try:  # numpy's C parser handles the common all-numeric table ten times faster
        table = np.loadtxt(lines, delimiter=fmt.sep, ndmin=2, dtype=np.float64)
    except ValueError:  # text labels or identifiers, or a malformed row
        rows = [_split(ln, fmt.sep) for ln in lines]
        bad = [i for i, r in enumerate(rows) if len(r) != len(rows[0])]
        if bad:
            raise ValueError(f"{path}: row {bad[0] + 1} has {len(rows[bad[0]])} columns, "
                             f"expected {len(rows[0])} like the first row.") from None
        table = np.array(rows, dtype=str)
    width = table.shape[1]
    target = fmt.target % width
    group = None if fmt.group is None else fmt.group % width
    dropped = {target} | {j % width for j in fmt.drop} | ({group} - {None})
    keep = [j for j in range(width) if j not in dropped]
    features = table[:, keep]
    if fmt.na_values and features.dtype.kind == "U":
        features = np.where(np.isin(features, fmt.na_values), "nan", features)
    try:
        X = np.ascontiguousarray(features.astype(np.float64))
    except ValueError as exc:
        raise ValueError(f"{path}: a feature column is not numeric ({exc}).") from None
    names = target_name = None
    if header is not None and len(header) == width:
        names = [header[j] for j in keep]
        target_name = header[target]
    groups = None if group is None else table[:, group].astype(np.float64).astype(np.int64)
    return X, table[:, target], names, groups, target_name


def read_libsvm(path, fmt):
    """Read a LIBSVM file densely; return ``(X, labels)``."""
    from sklearn.datasets import load_svmlight_file  # opens .gz / .bz2 itself

    X, labels = load_svmlight_file(str(path), n_features=fmt.n_features)
    return np.ascontiguousarray(X.toarray(), dtype=np.float64), labels


_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4",
              0x0E: ">f8"}


def read_idx(path):
    """Read one IDX file (gzip or plain) into an ndarray of its stored shape.

    The header is two zero bytes, a type code, the number of dimensions, then
    one big-endian uint32 per dimension (LeCun et al.'s MNIST format).
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as fh:
        raw = fh.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise ValueError(f"{path}: not an IDX file (bad magic number).")
    ndim = raw[3]
    shape = tuple(int(v) for v in np.frombuffer(raw, ">u4", count=ndim, offset=4))
    dtype = np.dtype(_IDX_TYPES[raw[2]])
    offset = 4 + 4 * ndim
    if len(raw) - offset != int(np.prod(shape)) * dtype.itemsize:
        raise ValueError(f"{path}: IDX header says shape {shape} but the file holds "
                         f"{len(raw) - offset} data bytes.")
    return np.frombuffer(raw, dtype, offset=offset).reshape(shape)


def encode_target(labels, task):
    """Turn raw target tokens into ``y``.

    Regression targets become float64. Class labels that are all integers keep
    their values (int64); any other labels (letters, words) are replaced by
    their index in sorted order, so ``y`` is always an integer array.
    """
    if task == "regression":
        return labels.astype(np.float64)
    try:
        values = np.asarray(labels).astype(np.float64)
    except ValueError:
        return np.unique(labels, return_inverse=True)[1].astype(np.int64)
    if not np.all(values == np.round(values)):
        raise ValueError("Class labels are numbers but not integers.")
    return values.astype(np.int64)


def _fmt_number(v):
    text = repr(float(v))  # shortest text that reads back to the same float64
    return text[:-2] if text.endswith(".0") else text


def write_canonical(path, X, y, feature_names=None):
    """Write ``(X, y)`` as a gzip CSV in the :data:`CANONICAL` format.

    The gzip header carries no time stamp or file name, so the bytes (and the
    recorded sha256) depend on the data only.
    """
    names = [n.replace(",", ";") for n in feature_names or []] or [
        f"x{j}" for j in range(X.shape[1])]
    out = io.StringIO()
    out.write(",".join(list(names) + ["target"]) + "\n")
    for row, target in zip(X, y):
        out.write(",".join([_fmt_number(v) for v in row] + [_fmt_number(target)]) + "\n")
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                           compresslevel=9) as gz:
            gz.write(out.getvalue().encode("utf-8"))
