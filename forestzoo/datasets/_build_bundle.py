"""Rebuild the bundled dataset files in ``forestzoo/datasets/data/``.

Maintainers only; the package never runs this. For every bundled registry
entry it reads the upstream file from a data directory (checking its sha256),
parses it into a numeric ``(X, y)`` and writes ``data/<name>.csv.gz`` in the
canonical format (header of feature names, target last, gzip without a time
stamp so the bytes are reproducible). It then prints each file's sha256 and
size and flags those that differ from the ``bundle_sha256`` recorded in
``_registry.py``, which must then be updated by hand.

The shipped files were made from the repository root with::

    python -m forestzoo.datasets._build_bundle ../shared/datasets
"""

import argparse
from pathlib import Path

import numpy as np

from ._base import _check_sha256, _sha256
from ._readers import CANONICAL, encode_target, read_table, write_canonical
from ._registry import REGISTRY

DATA_DIR = Path(__file__).parent / "data"


def build_one(info, source_dir):
    """Convert one registry entry; return the path written."""
    (file,) = info.files
    src = Path(source_dir) / file.name
    _check_sha256(src, file.sha256)
    X, labels, names = read_table(src, info.fmt)
    y = encode_target(labels, info.task)
    if X.shape != (info.n_samples, info.n_features) or not np.isfinite(X).all():
        raise ValueError(f"{info.name}: parsed shape {X.shape} or non-finite values; "
                         f"registry says ({info.n_samples}, {info.n_features}).")
    if info.n_classes is not None and len(np.unique(y)) != info.n_classes:
        raise ValueError(f"{info.name}: {len(np.unique(y))} classes, "
                         f"registry says {info.n_classes}.")
    out = DATA_DIR / f"{info.name}.csv.gz"
    write_canonical(out, X, y, names)
    X2, labels2, _ = read_table(out, CANONICAL)  # the round trip must be exact
    if not (np.array_equal(X, X2) and np.array_equal(y, encode_target(labels2, info.task))):
        raise AssertionError(f"{info.name}: written file does not read back identically.")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source_dir", help="directory holding the upstream files")
    parser.add_argument("names", nargs="*", help="only these datasets (default: all bundled)")
    args = parser.parse_args(argv)
    DATA_DIR.mkdir(exist_ok=True)
    total = 0
    for info in (i for i in REGISTRY.values() if i.bundled):
        if args.names and info.name not in args.names:
            continue
        out = build_one(info, args.source_dir)
        sha, size = _sha256(out), out.stat().st_size
        total += size
        flag = "" if sha == info.bundle_sha256 else "  <- update bundle_sha256"
        print(f"{info.name:34s} {size:8d} B  {sha}{flag}")
    print(f"total {total / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
