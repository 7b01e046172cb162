"""Where forestzoo's SAMME and scikit-learn's AdaBoostClassifier part, over several data draws.

For each seed: make_classification (20k x 50, 20 informative, ``--classes`` classes), one stratified
80/20 split, ``--rounds`` rounds of stumps (the parting analysis reads the root) with forestzoo's histogram splitter
(fz-hist), forestzoo's exact splitter (fz-exact) and scikit-learn (sk). It prints the three test
accuracies, and for fz-exact vs sk the first round whose tree classifies a training row differently.
At that round it re-computes, in float64 and with the sample weights both libraries had, the
weighted Gini of both root splits, and says whether scikit-learn could have made forestzoo's split:
scikit-learn skips a threshold between two feature values ``a < b`` when ``b <= a + 1e-7`` in float32
arithmetic (its ``FEATURE_THRESHOLD``), which merges neighbouring float32 values below 2.0.

    python benchmarks/investigations/samme_paths.py --seeds 0 1 2 3 4 5

Slow part: the exact fits (about 15 s each for 100 stumps, one core).
"""

import argparse

import numpy as np


def data(seed, classes):
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(20_000, 50, n_informative=20, n_classes=classes, random_state=seed)
    X = X.astype(np.float32)
    tr, te = train_test_split(np.arange(y.shape[0]), test_size=0.2, random_state=seed, stratify=y)
    return X[tr], y[tr], X[te], y[te]


def weighted_gini(X, y, w, feature, threshold, K):
    """Children's weighted Gini impurity, summed (the quantity a split minimises)."""
    left = X[:, feature].astype(np.float64) <= threshold  # float64: a float32 comparison would round the threshold
    total = 0.0
    for side in (left, ~left):
        c = np.bincount(y[side], weights=w[side], minlength=K)
        total += c.sum() - (c ** 2).sum() / c.sum()
    return total / w.sum()


def sklearn_can_split(X, feature, threshold):
    """Whether the two feature values around ``threshold`` are distinct to scikit-learn's splitter."""
    x = X[:, feature]
    left = x.astype(np.float64) <= threshold
    a = x[left].max()
    b = x[~left].min()
    return bool(b > np.float32(a) + np.float32(1e-7)), a, b


def first_parting(fz, sk, X, y, K):
    """First round whose trees differ on the training rows, and a description of it."""
    w = np.full(y.shape[0], 1.0 / y.shape[0])
    for m in range(min(len(fz.estimators_), len(sk.estimators_))):
        pf, ps = fz.estimators_[m].predict(X), sk.estimators_[m].predict(X)
        if np.any(pf != ps):
            nf, ts = fz.estimators_[m].tree_.nodes[0], sk.estimators_[m].tree_
            f_fz, t_fz, f_sk, t_sk = int(nf["feature"]), float(nf["threshold"]), int(ts.feature[0]), ts.threshold[0]
            g_fz, g_sk = weighted_gini(X, y, w, f_fz, t_fz, K), weighted_gini(X, y, w, f_sk, t_sk, K)
            ok, a, b = sklearn_can_split(X, f_fz, t_fz)
            return (f"round {m}: root fz x{f_fz} <= {t_fz:.7f} (Gini {g_fz:.9f}), sk x{f_sk} <= {t_sk:.7f} "
                    f"(Gini {g_sk:.9f}); fz's threshold lies between {float(a):.8g} and {float(b):.8g} (float32), "
                    f"{'a split scikit-learn can make' if ok else 'values scikit-learn treats as equal'}")
        miss = ps != y
        w = w * np.exp(sk.estimator_weights_[m] * miss)
        w /= w.sum()
    return "identical trees in every round"


def main(argv=None):
    from sklearn.ensemble import AdaBoostClassifier as SkAda
    from sklearn.tree import DecisionTreeClassifier

    from forestzoo import AdaBoostClassifier

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4, 5])
    p.add_argument("--classes", type=int, default=5)
    p.add_argument("--rounds", type=int, default=100)
    args = p.parse_args(argv)
    diffs = {"fz-hist": [], "fz-exact": []}
    print("| seed | fz-hist % | fz-exact % | sk % | fz-hist - sk | fz-exact - sk |")
    print("|---:|---:|---:|---:|---:|---:|")
    notes = []
    for seed in args.seeds:
        Xtr, ytr, Xte, yte = data(seed, args.classes)
        common = dict(n_estimators=args.rounds, max_depth=1, algorithm="SAMME", random_state=seed)
        hist = AdaBoostClassifier(**common).fit(Xtr, ytr)
        exact = AdaBoostClassifier(splitter="exact", **common).fit(Xtr, ytr)
        sk = SkAda(DecisionTreeClassifier(max_depth=1), n_estimators=args.rounds,
                   random_state=seed).fit(Xtr, ytr)
        acc = [100 * m.score(Xte, yte) for m in (hist, exact, sk)]
        diffs["fz-hist"].append(acc[0] - acc[2])
        diffs["fz-exact"].append(acc[1] - acc[2])
        print(f"| {seed} | {acc[0]:.2f} | {acc[1]:.2f} | {acc[2]:.2f} | {acc[0] - acc[2]:+.2f} | "
              f"{acc[1] - acc[2]:+.2f} |", flush=True)
        notes.append(f"seed {seed}: {first_parting(exact, sk, Xtr, ytr, args.classes)}")
    for name, d in diffs.items():
        print(f"{name} - sk: mean {np.mean(d):+.2f} pp, std {np.std(d, ddof=1) if len(d) > 1 else 0.0:.2f}, "
              f"range {min(d):+.2f} .. {max(d):+.2f}")
    print("fz-exact vs sk, first parting round:")
    for line in notes:
        print("- " + line)


if __name__ == "__main__":
    main()
