"""Parse delimited text tables (plain, gzip or bz2) into a numeric ``(X, y)``.

Every dataset file this package reads, bundled or from the data directory, is a
rectangular text table: one row per sample, one column of labels (or targets),
perhaps an identifier column to drop and a header line to skip. A
:class:`TableFormat` records which, so one parser serves them all.
"""

import bz2
import gzip
import io
from dataclasses import dataclass

import numpy as np

__all__ = ["TableFormat", "CANONICAL", "read_table", "encode_target", "write_canonical"]


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
        Other columns to discard (row identifiers, names).
    """

    sep: str | None = ","
    header: bool = False
    target: int = -1
    drop: tuple[int, ...] = ()


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
    dropped = {target} | {j % width for j in fmt.drop}
    keep = [j for j in range(width) if j not in dropped]
    try:
        X = np.ascontiguousarray(table[:, keep].astype(np.float64))
    except ValueError as exc:
        raise ValueError(f"{path}: a feature column is not numeric ({exc}).") from None
    names = None
    if header is not None and len(header) == width:
        names = [header[j] for j in keep]
    return X, table[:, target], names


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
