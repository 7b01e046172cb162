"""Competence forests as selective classifiers: risk-coverage against a random forest's confidence threshold.

For every dataset and every fold of a stratified K-fold split (the same
folds for both models), a :class:`~forestzoo.CompetenceForestClassifier`
with ``reject="label"`` (the paper's behaviour: objects outside every
tree's competence area are rejected) is fitted for each ``gamma`` of the
sweep; its point is (coverage, accuracy on the covered test objects).  A
:class:`~forestzoo.RandomForestClassifier` fitted on the same fold answers
only its most confident test objects (highest class probability), as many
as the competence forest covered in that fold: the random forest's
risk-coverage curve read at the same coverage.  Folds are pooled: coverage
= covered / all test objects, accuracies over the covered objects of all
folds.

Usage::

    python benchmarks/competence_selective.py [--folds 3] [--gammas 0.0625,0.25,1,4,16]
        [--datasets iris,wine,...] [--plot docs/figures/competence_risk_coverage.png]
"""

import argparse
import sys
import time

import numpy as np
from sklearn.model_selection import StratifiedKFold

from forestzoo import CompetenceForestClassifier, RandomForestClassifier
from forestzoo.competence import risk_coverage_curve
from forestzoo.datasets import load_dataset

DATASETS = ("iris", "wine", "breast_cancer_wisconsin_diag", "ionosphere", "sonar", "glass", "pima_diabetes",
            "vehicle", "segment", "australian_credit", "ecoli", "seeds", "balance_scale", "statlog_heart")


def run_dataset(name, gammas, folds, seed):
    """Per gamma: [covered, correct covered (CAF), correct among RF's equally many most confident, n]; RF curves."""
    X, y = load_dataset(name)
    X = np.asarray(X, dtype=np.float64)
    totals = {g: np.zeros(4) for g in gammas}
    curves = []
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y):
        rf = RandomForestClassifier(n_estimators=100, random_state=seed).fit(X[train], y[train])
        proba = rf.predict_proba(X[test])
        rf_correct = rf.classes_[np.argmax(proba, axis=1)] == y[test]
        conf = proba.max(axis=1)
        order = np.argsort(-conf, kind="stable")
        curves.append((conf, rf_correct))
        for g in gammas:
            caf = CompetenceForestClassifier(gamma=g, reject="label", random_state=seed)
            with np.errstate(all="ignore"):
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    caf.fit(X[train], y[train])
            pred = caf.predict(X[test])
            covered = pred != caf.reject_label
            k = int(covered.sum())
            totals[g] += [k, np.sum(pred[covered] == y[test][covered]), rf_correct[order[:k]].sum(), len(test)]
    conf = np.concatenate([c for c, _ in curves])
    correct = np.concatenate([r for _, r in curves])
    return totals, risk_coverage_curve(conf, correct)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--gammas", default="0.0625,0.25,1,4,16")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", default=None)
    args = p.parse_args()
    gammas = [float(g) for g in args.gammas.split(",")]
    names = args.datasets.split(",")
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}")
    print("| dataset | " + " | ".join(f"gamma {g:g}: coverage / CAF / RF" for g in gammas) + " |")
    print("|---|" + "---|" * len(gammas))
    wins = ties = losses = 0
    diffs, results = [], {}
    for name in names:
        totals, curve = run_dataset(name, gammas, args.folds, args.seed)
        results[name] = (totals, curve)
        cells = []
        for g in gammas:
            k, caf_ok, rf_ok, n = totals[g]
            if k == 0:
                cells.append("0 % / - / -")
                continue
            caf_acc, rf_acc = 100 * caf_ok / k, 100 * rf_ok / k
            cells.append(f"{100 * k / n:.1f} % / {caf_acc:.1f} / {rf_acc:.1f}")
            diffs.append(caf_acc - rf_acc)
            wins += caf_ok > rf_ok
            ties += caf_ok == rf_ok
            losses += caf_ok < rf_ok
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nPoints with some coverage: {len(diffs)}; CAF more accurate than RF at the same coverage on {wins}, "
          f"equal on {ties}, less accurate on {losses}; mean difference {np.mean(diffs):+.2f} pp "
          f"(median {np.median(diffs):+.2f} pp)")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        cols = 4
        rows = (len(names) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
        for ax, name in zip(axes.ravel(), names):
            totals, (cov, acc) = results[name]
            ax.plot(100 * cov, 100 * acc, lw=1.2, label="RF, confidence threshold")
            pts = [(100 * t[0] / t[3], 100 * t[1] / t[0]) for t in totals.values() if t[0] > 0]
            if pts:
                ax.plot(*zip(*pts), "o", ms=4, label="CAF, gamma sweep")
            ax.set_title(name, fontsize=8)
            ax.set_xlim(0, 100)
        for ax in axes.ravel()[len(names):]:
            ax.axis("off")
        axes[0, 0].legend(fontsize=6)
        fig.supxlabel("coverage %")
        fig.supylabel("accuracy on covered %")
        fig.tight_layout()
        fig.savefig(args.plot, dpi=90)


if __name__ == "__main__":
    main()
