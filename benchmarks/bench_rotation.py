"""Rotation Forest: forestzoo RoF against forestzoo RF (same trees, no rotation) and aeon's RotationForestClassifier.

The speed target: RoF fit time within 1.5x of forestzoo RF + the PCA cost.  "RF"
here is the same tree as RoF's -- CART (``splitter="exact"``), every feature at every node,
no bootstrap -- grown on ``X`` instead of ``X R``; the PCA cost is the time to fit the
rotations and compute ``X R`` for every tree (measured separately, single thread).  aeon's
RotationForestClassifier (scikit-learn trees on rotated data, its own defaults except the
number of trees) runs side by side on the same split.

aeon is optional: its wheel pins older numba/numpy, so install it without dependencies
into its own directory and put that on the path::

    pip install --no-deps --target aeon_pkg aeon deprecated
    PYTHONPATH=aeon_pkg python benchmarks/bench_rotation.py

Run (with ``FORESTZOO_DATA`` naming the data directory)::

    python benchmarks/bench_rotation.py [--n-estimators 50] [--n-jobs 2] [--repeats 3]

``--summarize RESULTS_CSV`` instead prints the lecture comparison of a ``forestzoo bench
--suite lecture-uci`` run (win-tie-lose against the base forest, mean accuracies and
Friedman average ranks, ours beside the lecture's on the same datasets)::

    python benchmarks/bench_rotation.py --summarize docs/results/lecture-mpsvm/results.csv
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import train_test_split

from forestzoo.bench.report import find_paper_tables
from forestzoo.datasets import load_dataset
from forestzoo.ensemble import RandomForestClassifier, RotationForestClassifier
from forestzoo.ensemble._rotation import fit_rotation, rotate

DATASETS = ("vehicle", "segment", "waveform_21")


def _models(n_estimators, n_jobs, seed):
    models = {
        "RoF": RotationForestClassifier(n_estimators, n_jobs=n_jobs, random_state=seed),
        "RRoF": RotationForestClassifier(n_estimators, max_features="sqrt", n_jobs=n_jobs, random_state=seed),
        "RF-same": RandomForestClassifier(n_estimators, splitter="exact", max_features=None, bootstrap=False,
                                          n_jobs=n_jobs, random_state=seed),
        "RaF": RandomForestClassifier(n_estimators, n_jobs=n_jobs, random_state=seed),
    }
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from aeon.classification.sklearn import RotationForestClassifier as AeonRoF
        models["aeon-RoF"] = AeonRoF(n_estimators=n_estimators, n_jobs=n_jobs, random_state=seed)
    except ImportError:
        pass
    return models


def _pca_seconds(X, y, n_estimators, seed):
    """Time to fit every tree's rotation and compute X R (one thread)."""
    X = np.ascontiguousarray(X, dtype=np.float32)
    yk = np.unique(y, return_inverse=True)[1].astype(np.int32)
    w = np.ones(X.shape[0])
    t = time.perf_counter()
    for k in range(n_estimators):
        rotate(X, fit_rotation(X, yk, w, np.random.default_rng(seed + k), 3, 0.75, int(yk.max()) + 1))
    return time.perf_counter() - t


FAMILIES = {  # base forest -> its MPSVM variants, and the lecture table holding them
    "RaF": (("MPRaF-T", "MPRaF-P", "MPRaF-N"), "lecture_mpsvm_raf.csv"),
    "RoF": (("MPRoF-T", "MPRoF-P", "MPRoF-N"), "lecture_mpsvm_rof.csv"),
    "RRoF": (("MPRRoF-T", "MPRRoF-P", "MPRRoF-N"), "lecture_mpsvm_rrof.csv"),
}


def _paper_table(tables_dir, file, datasets):
    """The lecture's accuracies (%) for ``datasets`` (forestzoo names), matched by paper name."""
    import pandas as pd

    from forestzoo.datasets._registry import REGISTRY

    table = pd.read_csv(f"{tables_dir}/{file}")
    by_name = {n.lower(): i for i, n in enumerate(table["dataset"])}
    rows = {}
    for d in datasets:
        hit = next((by_name[p.lower()] for p in REGISTRY[d].paper_names if p.lower() in by_name), None)
        if hit is not None:
            rows[d] = table.iloc[hit].drop("dataset")
    return pd.DataFrame(rows).T.astype(float)


def _wtl(a, b):
    return f"{int((a > b + 1e-9).sum())}-{int((abs(a - b) <= 1e-9).sum())}-{int((a < b - 1e-9).sum())}"


def summarize(path, tables_dir):
    import pandas as pd
    from scipy.stats import rankdata

    res = pd.read_csv(path)
    res = res[res["status"] == "ok"]
    acc = 100 * res.groupby(["dataset", "model"])["accuracy"].mean().unstack()
    folds = res.groupby(["dataset", "model"]).size().unstack()
    print(f"{path}: {acc.shape[0]} datasets, {int(folds.max().max())} test folds per dataset and model")
    for base, (variants, file) in FAMILIES.items():
        cols = [c for c in (base,) + variants if c in acc]
        if base not in acc or len(cols) < 2:
            continue
        ours = acc[cols].dropna(subset=[base])
        paper = _paper_table(tables_dir, file, ours.index)
        both = ours.loc[paper.index]
        print(f"\n## {base} and its MPSVM variants ({len(both)} datasets with a lecture figure; - = not run)\n")
        print("| dataset | " + " | ".join(cols) + " | " + " | ".join(f"lecture {c}" for c in cols) + " |")
        print("|---" * (2 * len(cols) + 1) + "|")
        for d in both.index:
            print(f"| {d} | " + " | ".join("-" if np.isnan(both.loc[d, c]) else f"{both.loc[d, c]:.2f}" for c in cols)
                  + " | " + " | ".join(f"{paper.loc[d, c]:.2f}" for c in cols) + " |")
        print()
        for v in cols[1:]:
            pair = both[[base, v]].dropna()
            lec = paper.loc[pair.index]
            print(f"- {v} vs {base} on {len(pair)} datasets: win-tie-lose ours {_wtl(pair[v], pair[base])}, "
                  f"lecture {_wtl(lec[v], lec[base])}; mean accuracy ours {pair[v].mean():.2f} vs "
                  f"{pair[base].mean():.2f} ({pair[v].mean() - pair[base].mean():+.2f} pp), lecture "
                  f"{lec[v].mean():.2f} vs {lec[base].mean():.2f} ({lec[v].mean() - lec[base].mean():+.2f} pp)")
    trio = [c for c in ("RaF", "RoF", "RRoF") if c in acc]
    if len(trio) == 3:
        sub = acc[trio].dropna()
        ranks = np.array([rankdata(-row) for row in sub.to_numpy()]).mean(axis=0)
        paper = pd.concat([_paper_table(tables_dir, FAMILIES[c][1], sub.index)[c] for c in trio], axis=1).dropna()
        pranks = np.array([rankdata(-row) for row in paper.to_numpy()]).mean(axis=0)
        print(f"\nFriedman average ranks on {len(sub)} datasets (lower is better): "
              + ", ".join(f"{c} {r:.2f}" for c, r in zip(trio, ranks))
              + f"; the lecture's figures on the same {len(paper)} datasets: "
              + ", ".join(f"{c} {r:.2f}" for c, r in zip(trio, pranks))
              + " (on its 44 datasets: RaF 2.24, RoF 2.07, RRoF 1.69)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-estimators", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--summarize", metavar="RESULTS_CSV", default=None)
    parser.add_argument("--paper-tables", default=None,
                        help="directory of the papers' tables (default: $FORESTZOO_PAPER_TABLES, "
                             "else paper_tables beside the data directory)")
    args = parser.parse_args()
    if args.summarize:
        args.paper_tables = args.paper_tables or find_paper_tables()
        if args.paper_tables is None:
            parser.error("no paper tables found: give --paper-tables DIR or set FORESTZOO_PAPER_TABLES")
        summarize(args.summarize, args.paper_tables)
        return
    rows = []
    for name in args.datasets.split(","):
        X, y = load_dataset(name)
        fits, preds, accs = {}, {}, {}
        pca = []
        for r in range(args.repeats):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=r)
            models = _models(args.n_estimators, args.n_jobs, r)
            if r == 0:  # warm-up (numba compilation, caches), untimed
                for m in _models(2, 1, 0).values():
                    m.fit(Xtr[:100], ytr[:100])
            for key, m in models.items():
                t = time.perf_counter()
                m.fit(Xtr, ytr)
                fits.setdefault(key, []).append(time.perf_counter() - t)
                t = time.perf_counter()
                acc = np.mean(m.predict(Xte) == yte)
                preds.setdefault(key, []).append(time.perf_counter() - t)
                accs.setdefault(key, []).append(acc)
            pca.append(_pca_seconds(Xtr, ytr, args.n_estimators, r))
        med = {k: float(np.median(v)) for k, v in fits.items()}
        pca_s = float(np.median(pca)) / args.n_jobs  # rotations are fitted on the forest's threads
        print(f"\n{name}: {X.shape[0]} rows x {X.shape[1]} features, {len(np.unique(y))} classes; "
              f"median of {args.repeats} splits, {args.n_estimators} trees, n_jobs={args.n_jobs}")
        print(f"  {'model':<10} {'fit s':>8} {'predict s':>10} {'accuracy':>9}")
        for k in fits:
            print(f"  {k:<10} {med[k]:8.3f} {np.median(preds[k]):10.3f} {100 * np.mean(accs[k]):8.2f}%")
        ratio = med["RoF"] / (med["RF-same"] + pca_s)
        print(f"  PCA cost (rotations + X R, per thread share) {pca_s:.3f} s; "
              f"RoF / (RF-same + PCA) = {ratio:.2f}  (target <= 1.5)")
        line = {"dataset": name, "ratio": ratio}
        if "aeon-RoF" in med:
            line["aeon"] = med["aeon-RoF"] / med["RoF"]
            print(f"  aeon-RoF fit / forestzoo RoF fit = {line['aeon']:.2f}")
        rows.append(line)
    print("\nsummary: " + "; ".join(
        f"{r['dataset']}: RoF/(RF+PCA) {r['ratio']:.2f}" + (f", aeon/RoF {r['aeon']:.1f}x" if "aeon" in r else "")
        for r in rows))


if __name__ == "__main__":
    main()
