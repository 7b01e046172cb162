"""obRaF(H), the one-vs-all oblique forests and the RVFL hybrids, side by side; obRaF(H) per-node profile.

Two parts, both in one process so the ratios are taken in the same run:

1. ``--profile``: obRaF(H) on a 5,000 x 20, 10-class problem (make_classification,
   n_informative=15, one cluster per class), one thread.  Prints the fit time per tree and
   where a node's time goes: the compiled node search (linear-model fits + Gini scoring,
   ``node_search``), the partition ranking / GAOREXHSEARCH plan, the other compiled helpers
   (candidate features, standardisation, class codes, projection) and the Python glue of
   ``split_node`` (everything else inside it).  The glue is the per-node Python overhead.

2. Peers: RaF (forestzoo RF), obRaF(L), obRaF(M), MPRaF-T, obRaF(H), RFL, obRFL and
   scikit-learn's RF on the same splits: fit and predict seconds, test accuracy, fit-time
   ratio to RaF.

Run::

    python benchmarks/bench_obraf.py [--n-estimators 20] [--n-jobs 2] [--profile-trees 5]

``--summarize RESULTS_CSV`` instead prints the lecture's rank tables for a ``forestzoo bench``
run of the ``lecture-obraf`` or ``lecture-rvfl`` suite: average Friedman ranks of the models
(all datasets, and those with N > 500 rows), ours beside the lecture's figure, and each model
against RaF / RF (win-tie-lose, sign test, Wilcoxon)::

    python benchmarks/bench_obraf.py --summarize docs/results/lecture-rvfl/results.csv

Several results files are pooled (same splits); ``--models A,B,...`` keeps a subset, and a
``-tuned`` model is compared with the lecture's figure for its plain name (the lecture tunes
its RVFLs).

Timings are noisy on a shared machine: compare the ratios of one run, not absolute seconds
across runs.
"""

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from forestzoo.bench.report import find_paper_tables
from forestzoo.datasets import load_dataset
from forestzoo.oblique import _heterogeneous, _planned
from forestzoo.oblique._heterogeneous import HeterogeneousObliqueForestClassifier
from forestzoo.oblique._planned import PlannedNodeModel

PEER_DATASETS = ("synthetic-5000x20-10c", "vehicle", "segment")


def synthetic():
    return make_classification(5000, 20, n_informative=15, n_redundant=3, n_classes=10, n_clusters_per_class=1,
                               random_state=0)


class _Clock:
    """Accumulates the CPU seconds of the calling thread spent in wrapped callables, by bucket.

    CPU time (``time.thread_time``), not wall time: on a loaded machine a wall clock also
    counts the time the thread waited for a core.
    """

    def __init__(self):
        self.seconds = {}
        self.calls = {}

    def wrap(self, bucket, fn):
        def timed(*args, **kwargs):
            t0 = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[bucket] = self.seconds.get(bucket, 0.0) + time.thread_time() - t0
                self.calls[bucket] = self.calls.get(bucket, 0) + 1
        return timed


def profile(n_trees, seed=0):
    X, y = synthetic()
    HeterogeneousObliqueForestClassifier(n_estimators=1, random_state=seed).fit(X[:500], y[:500])  # compile
    clock = _Clock()
    patches = [
        (_planned, "node_search", "node search (fits + scoring)"),
        (_planned, "standardize", "compiled helpers"),
        (_planned, "class_codes", "compiled helpers"),
        (_planned, "project", "compiled helpers"),
        (_planned, "fill_go_left", "compiled helpers"),
        (_heterogeneous, "heterogeneous_plan", "partition ranking (plan)"),
        (PlannedNodeModel, "candidate_block", "compiled helpers"),
        (PlannedNodeModel, "split_node", "split_node total"),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, bucket in patches:
            setattr(owner, name, clock.wrap(bucket, getattr(owner, name)))
        forest = HeterogeneousObliqueForestClassifier(n_estimators=n_trees, random_state=seed, n_jobs=1)
        t0, c0 = time.perf_counter(), time.thread_time()
        forest.fit(X, y)  # n_jobs=1: every tree grows in this thread
        wall, fit = time.perf_counter() - t0, time.thread_time() - c0
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    s = clock.seconds
    nodes = clock.calls["split_node total"]
    glue = s["split_node total"] - s["node search (fits + scoring)"] - s["partition ranking (plan)"] \
        - s["compiled helpers"]
    # the wrappers' own cost (two perf_counter calls and a closure call, ~0.5 us each) is in the glue
    print(f"obRaF(H) on make_classification 5000 x 20, 10 classes, {n_trees} trees, one thread")
    print(f"fit: {fit:.2f} CPU s = {fit / n_trees:.3f} CPU s per tree ({wall / n_trees:.3f} s wall per tree); "
          f"{nodes} node-model calls "
          f"({nodes / n_trees:.0f} per tree), {np.mean([e.tree_.node_count for e in forest.estimators_]):.0f} "
          f"nodes per tree")
    rows = [("node search (fits + scoring)", s["node search (fits + scoring)"]),
            ("partition ranking (plan)", s["partition ranking (plan)"]),
            ("compiled helpers", s["compiled helpers"]),
            ("Python glue of split_node", glue),
            ("outside split_node (grower, objmode, bootstrap)", fit - s["split_node total"])]
    print("| part | CPU seconds | share of fit | CPU us per node |")
    print("| --- | ---: | ---: | ---: |")
    for name, sec in rows:
        print(f"| {name} | {sec:.3f} | {100 * sec / fit:.1f} % | {1e6 * sec / nodes:.0f} |")
    work = s["split_node total"] - glue
    print(f"Python glue per node / node work (everything else in split_node): {glue / work:.3f}")
    return fit / n_trees


def _peers(n_estimators, n_jobs, seed):
    from sklearn.ensemble import RandomForestClassifier as SkRF

    from forestzoo.bench.registry import make_model

    names = ("RaF", "obRaF(L)", "obRaF(M)", "MPRaF-T", "obRaF(H)", "RFL", "obRFL")
    models = {n: make_model(n, n_estimators=n_estimators, n_jobs=n_jobs, random_state=seed) for n in names}
    models["sk-RF"] = SkRF(n_estimators=n_estimators, n_jobs=n_jobs, random_state=seed)
    return models


def peers(n_estimators, n_jobs, seed=0):
    print(f"\nPeers: {n_estimators} trees (RFL / obRFL: {n_estimators} bags), n_jobs={n_jobs}, 1/3 held out")
    print("| dataset | model | fit s | fit / RaF | predict s | accuracy % |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for ds in PEER_DATASETS:
        X, y = synthetic() if ds.startswith("synthetic") else load_dataset(ds)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=1 / 3, random_state=seed, stratify=y)
        base = None
        for name, model in _peers(n_estimators, n_jobs, seed).items():
            model.set_params(n_estimators=1) if hasattr(model, "n_estimators") else None
            model.fit(X_tr[:200], y_tr[:200])  # warm-up: pays for compilation
            model.set_params(n_estimators=n_estimators)
            t0 = time.perf_counter()
            model.fit(X_tr, y_tr)
            fit = time.perf_counter() - t0
            t0 = time.perf_counter()
            acc = np.mean(model.predict(X_te) == y_te)
            pred = time.perf_counter() - t0
            base = fit if name == "RaF" else base
            print(f"| {ds} | {name} | {fit:.2f} | {fit / base:.1f} | {pred:.2f} | {100 * acc:.2f} |", flush=True)


#: The lecture's average ranks (shared/paper_tables), by the column of the rank table they come from.
LECTURE_RANKS = {
    "lecture_obraf_friedman_ranks.csv": ("average_rank_121_uci", None),
    "lecture_rvfl_forest_ranks.csv": ("average_rank_65_multiclass", "average_rank_N_gt_500"),
}


def _lecture_ranks(tables_dir, models):
    import csv
    import os

    for file, (col_all, col_big) in LECTURE_RANKS.items():
        path = os.path.join(tables_dir, file)
        if not os.path.exists(path):
            continue
        with open(path, newline="") as fh:
            rows = {r["method"]: r for r in csv.DictReader(fh)}
        # the lecture's RVFLs are tuned, so a "-tuned" model is looked up under the lecture's plain name
        names = {m: "RF" if m == "RaF" and "RF" in rows else m.removesuffix("-tuned") for m in models}
        if all(names[m] in rows for m in models):
            def get(m, col):
                v = rows[names[m]].get(col) if col else None
                return float(v) if v not in (None, "") else None
            return {m: (get(m, col_all), get(m, col_big)) for m in models}
    return {m: (None, None) for m in models}


def summarize(paths, tables_dir, keep=None):
    import pandas as pd

    from forestzoo import stats
    from forestzoo.datasets._registry import REGISTRY

    path = ", ".join(paths)
    res = pd.concat([pd.read_csv(p) for p in paths])
    res = res[res["status"] == "ok"]
    if keep:  # only these models, in this order
        res = res[res["model"].isin(keep)]
        res = res.assign(order=res["model"].map(keep.index)).sort_values("order", kind="stable")
    # percent per fold, then the mean (as the bench report); rounding makes float-noise differences ties
    acc = res.assign(pct=100 * res["accuracy"]).groupby(["dataset", "model"])["pct"].mean().unstack().dropna()
    acc = acc.round(9)
    models = list(dict.fromkeys(res["model"]))
    acc = acc[models]
    folds = int(res.groupby(["dataset", "model"]).size().max())
    lecture = _lecture_ranks(tables_dir, models)
    big = [d for d in acc.index if REGISTRY[d].n_samples > 500]
    subsets = [("all", acc), ("N > 500", acc.loc[big])]
    rvfl = [m for m in models if m in ("RVFL", "RVFL-tuned")]
    if rvfl:  # the lecture's N > 500 table ranks the four forests only
        subsets.append(("N > 500, forests only", acc.loc[big, [m for m in models if m not in rvfl]]))
    print(f"{path}: {acc.shape[0]} datasets ({len(big)} with N > 500), {folds} test folds per dataset and model")
    for label, table in subsets:
        ranks = stats.average_ranks(table.to_numpy())
        lec = [lecture[m][0 if label == "all" else 1] for m in table.columns]
        print(f"\n### Average ranks, {label} ({table.shape[0]} datasets; the lecture: 121 UCI datasets for obRaF, "
              "65 multi-class for RFL)\n")
        print("| model | ours | lecture |\n| --- | ---: | ---: |")
        for m, r, l in sorted(zip(table.columns, ranks, lec), key=lambda t: t[1]):
            print(f"| {m} | {r:.2f} | {'-' if l is None else f'{l:.2f}'} |")
    base = "RaF"
    pairs = [(m, base) for m in models if m != base] if base in models else []
    pairs += [(a, b) for a, b in (("obRFL", "obRF"), ("obRFL", "RFL"), ("obRFL-tuned", "obRF"),
                                  ("obRFL-tuned", "RFL-tuned"), ("obRaF(H)", "obRaF(L)"), ("obRaF(H)", "obRaF(M)"))
              if a in models and b in models]
    pairs += [(m, m.removesuffix("-tuned")) for m in models if m.endswith("-tuned") and m[:-6] in models]
    print("\n| pair (datasets) | W / T / L | sign test (rule N/2 + 1.96 sqrt(N)/2; exact p) | Wilcoxon p |"
          "\n| --- | ---: | ---: | ---: |")
    for label, table in subsets[:2]:
        for a, b in pairs:
            w, t, lo = stats.win_tie_loss(table[a].to_numpy(), table[b].to_numpy())
            sign = stats.sign_test(table[a].to_numpy(), table[b].to_numpy())
            _, p = stats.wilcoxon_test(table[a].to_numpy(), table[b].to_numpy())
            verdict = "significant" if sign.wins_with_ties >= sign.critical_wins else "n.s."
            print(f"| {a} vs {b} ({label}) | {w} / {t} / {lo} | {verdict} (p = {sign.p_value:.3g}) | {p:.3g} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-estimators", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--profile-trees", type=int, default=5)
    parser.add_argument("--profile-only", action="store_true")
    parser.add_argument("--summarize", metavar="RESULTS_CSV", nargs="+", default=None,
                        help="results.csv of one run, or of several runs of the same suite on disjoint datasets")
    parser.add_argument("--paper-tables", default=None,
                        help="directory of the papers' tables (default: $FORESTZOO_PAPER_TABLES, "
                             "else paper_tables beside the data directory)")
    parser.add_argument("--models", default=None,
                        help="with --summarize: a comma-separated subset of the models, in table order")
    args = parser.parse_args()
    if args.summarize:
        args.paper_tables = args.paper_tables or find_paper_tables()
        if args.paper_tables is None:
            parser.error("no paper tables found: give --paper-tables DIR or set FORESTZOO_PAPER_TABLES")
        summarize(args.summarize, args.paper_tables, args.models.split(",") if args.models else None)
        return
    profile(args.profile_trees)
    if not args.profile_only:
        peers(args.n_estimators, args.n_jobs)


if __name__ == "__main__":
    main()
