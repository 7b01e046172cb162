"""Hypotheses for the gap between our AdaBoost.M1 (~11 %) and ESL Fig. 10.2 (5.8 %) at 400 stumps.

    python benchmarks/investigations/esl_10_2_hypotheses.py --draws 5 --rounds 800

Data: ESL Eq. (10.2), X ~ N(0, I_10), y = 1 if sum_j X_j^2 > 9.34 else -1; 10000 test rows.
Each variant is a stump booster written here in numpy (exact thresholds between sorted
training values, minimum leaf size 1), so that only the named ingredient changes:

* split criterion: ``gini`` (what forestzoo and scikit-learn use; for two classes the same as
  weighted least squares on y in {-1, 1}), ``error`` (weighted misclassification = the stump
  that minimises the exponential loss after the optimal discrete step) or ``expo``
  (sum over leaves of sqrt(W+ W-) = the stump that minimises the exponential loss after the
  optimal real-valued step, Schapire & Singer's Z);
* update: ``discrete`` (ESL Algorithm 10.1, alpha = log((1 - err) / err)), ``real``
  (Friedman, Hastie & Tibshirani 2000, Real AdaBoost: f = 0.5 log(W+ / W-) per leaf, smoothed
  by eps = 1 / (2n) on weights summing to 1) or ``gentle`` (FHT 2000, Gentle AdaBoost:
  f = (W+ - W-) / (W+ + W-) per leaf).

Also run: forestzoo's own AdaBoostClassifier (M1, SAMME.R, GentleBoost over stumps), scikit-learn's AdaBoostClassifier (SAMME, stumps) as a cross-check of the discrete
baseline, and scikit-learn's GradientBoostingClassifier(loss="exponential", max_depth=1,
learning_rate=1), i.e. gbm's "adaboost" distribution. Reports the test error (%) at the
checkpoint rounds, mean +- std over the data draws, and the training error at rounds 250 / 400
(ESL Fig. 10.3: the training error of the book's run is 0 from about round 250 on) and the
first round from which the training error stays at 0 (median, min-max over the draws).
"""
import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

CHECKS = (100, 200, 400, 800)


def esl_10_2(n, rng):
    X = rng.standard_normal((n, 10))
    return X, np.where((X ** 2).sum(axis=1) > 9.34, 1, -1)


def boost(X, y, Xt, yt, n_rounds, criterion, update):
    """Stump boosting; returns (test error % by round, training error % by round)."""
    n = y.shape[0]
    order = np.argsort(X, axis=0, kind="stable")
    Xs = np.take_along_axis(X, order, axis=0)
    ys = y[order]
    eps = 1.0 / (2 * n)
    w = np.full(n, 1.0 / n)
    F, Ft = np.zeros(n), np.zeros(Xt.shape[0])
    test_err, train_err = np.empty(n_rounds), np.empty(n_rounds)
    for m in range(n_rounds):
        w = w / w.sum()
        ws = w[order]
        Lp = np.where(ys == 1, ws, 0.0).cumsum(axis=0)[:-1]  # weight of y=+1 left of cut k (rows 0..k)
        Ln = np.where(ys == 1, 0.0, ws).cumsum(axis=0)[:-1]
        P, N = Lp[-1] + ws[-1] * (ys[-1] == 1), Ln[-1] + ws[-1] * (ys[-1] != 1)  # column totals
        Rp, Rn = P - Lp, N - Ln
        if criterion == "gini":
            WL, WR = Lp + Ln, Rp + Rn  # a leaf whose weights all underflowed to 0 adds no impurity
            crit = (np.divide(Lp * Ln, WL, out=np.zeros_like(WL), where=WL > 0)
                    + np.divide(Rp * Rn, WR, out=np.zeros_like(WR), where=WR > 0))
        elif criterion == "error":
            crit = np.minimum(Lp, Ln) + np.minimum(Rp, Rn)
        elif criterion == "expo":
            crit = np.sqrt(Lp * Ln) + np.sqrt(Rp * Rn)
        else:
            raise ValueError(criterion)
        crit = np.where(Xs[:-1] < Xs[1:], crit, np.inf)
        k, f = np.unravel_index(np.argmin(crit), crit.shape)
        t = 0.5 * (Xs[k, f] + Xs[k + 1, f])
        lp, ln, rp, rn = Lp[k, f], Ln[k, f], Rp[k, f], Rn[k, f]
        if update == "discrete":
            vl, vr = (1.0 if lp >= ln else -1.0), (1.0 if rp >= rn else -1.0)
            h = np.where(X[:, f] <= t, vl, vr)
            e = w[h != y].sum()
            alpha = np.log((1 - e) / e)
            w = w * np.exp(alpha * (h != y))
            vl, vr = alpha * vl, alpha * vr
        else:
            if update == "real":
                vl, vr = 0.5 * np.log((lp + eps) / (ln + eps)), 0.5 * np.log((rp + eps) / (rn + eps))
            elif update == "gentle":
                vl = (lp - ln) / (lp + ln) if lp + ln > 0 else 0.0
                vr = (rp - rn) / (rp + rn) if rp + rn > 0 else 0.0
            else:
                raise ValueError(update)
            h = np.where(X[:, f] <= t, vl, vr)
            w = w * np.exp(-y * h)
        F += np.where(X[:, f] <= t, vl, vr)
        Ft += np.where(Xt[:, f] <= t, vl, vr)
        train_err[m] = 100 * np.mean(np.where(F > 0, 1, -1) != y)
        test_err[m] = 100 * np.mean(np.where(Ft > 0, 1, -1) != yt)
    return test_err, train_err


def sk_samme(X, y, Xt, yt, n_rounds, seed):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    clf = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n_rounds, random_state=seed).fit(X, y)
    te = np.array([100 * np.mean(p != yt) for p in clf.staged_predict(Xt)])
    tr = np.array([100 * np.mean(p != y) for p in clf.staged_predict(X)])
    return te, tr


def sk_gb_exp(X, y, Xt, yt, n_rounds, seed):
    from sklearn.ensemble import GradientBoostingClassifier

    clf = GradientBoostingClassifier(loss="exponential", max_depth=1, learning_rate=1.0, n_estimators=n_rounds,
                                     random_state=seed).fit(X, y)
    te = np.array([100 * np.mean(p != yt) for p in clf.staged_predict(Xt)])
    tr = np.array([100 * np.mean(p != y) for p in clf.staged_predict(X)])
    return te, tr


def fz(algorithm, splitter):
    def run(X, y, Xt, yt, n_rounds, seed):
        from forestzoo import AdaBoostClassifier

        clf = AdaBoostClassifier(algorithm=algorithm, n_estimators=n_rounds, max_depth=1, splitter=splitter,
                                 random_state=seed, n_jobs=1).fit(X, y)
        te = np.array([100 * np.mean(p != yt) for p in clf.staged_predict(Xt)])
        tr = np.array([100 * np.mean(p != y) for p in clf.staged_predict(X)])
        if te.shape[0] < n_rounds:  # boosting stopped early: the ensemble stays as it is
            te = np.concatenate([te, np.full(n_rounds - te.shape[0], te[-1])])
            tr = np.concatenate([tr, np.full(n_rounds - tr.shape[0], tr[-1])])
        return te, tr
    return run


VARIANTS = {
    # name: (n_train, runner)
    "M1 discrete, gini stumps (baseline)": (2000, lambda *a: boost(*a[:5], "gini", "discrete")),
    "sklearn SAMME, stumps (cross-check)": (2000, sk_samme),
    "M1 discrete, error (= exp-loss) stumps": (2000, lambda *a: boost(*a[:5], "error", "discrete")),
    "Real AdaBoost, gini stumps": (2000, lambda *a: boost(*a[:5], "gini", "real")),
    "Real AdaBoost, exp-loss (Z) stumps": (2000, lambda *a: boost(*a[:5], "expo", "real")),
    "Gentle AdaBoost, gini (= WLS) stumps": (2000, lambda *a: boost(*a[:5], "gini", "gentle")),
    "sklearn GB exponential loss, lr 1, stumps": (2000, sk_gb_exp),
    "forestzoo M1, stumps (exact splitter)": (2000, fz("M1", "exact")),
    "forestzoo SAMME.R, stumps (exact splitter)": (2000, fz("SAMME.R", "exact")),
    "forestzoo SAMME.R, stumps (hist splitter)": (2000, fz("SAMME.R", "hist")),
    "forestzoo GentleBoost, stumps (exact splitter)": (2000, fz("GentleBoost", "exact")),
    "M1 discrete, gini stumps, n=1000": (1000, lambda *a: boost(*a[:5], "gini", "discrete")),
    "M1 discrete, gini stumps, n=4000": (4000, lambda *a: boost(*a[:5], "gini", "discrete")),
    "M1 discrete, gini stumps, n=10000": (10000, lambda *a: boost(*a[:5], "gini", "discrete")),
    "Real AdaBoost, exp-loss stumps, n=1000": (1000, lambda *a: boost(*a[:5], "expo", "real")),
}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--draws", type=int, default=5)
    p.add_argument("--rounds", type=int, default=800)
    p.add_argument("--only", default="", help="comma-separated substrings of variant names")
    args = p.parse_args(argv)
    checks = [c for c in CHECKS if c <= args.rounds]
    print(f"draws {args.draws}, test rows 10000, seeds 0..{args.draws - 1} (RandomState(seed): train then test)\n")
    print("| variant | n train | " + " | ".join(f"test err @{c}" for c in checks)
          + " | train err @250 | train err @400 | train err 0 from round | CPU s/draw |")
    print("|---|---|" + "---|" * (len(checks) + 4))
    for name, (n_train, run) in VARIANTS.items():
        if args.only and not any(s.strip() in name for s in args.only.split(",")):
            continue
        te_all, tr_all, cpu = [], [], []
        for seed in range(args.draws):
            rng = np.random.RandomState(seed)
            X, y = esl_10_2(n_train, rng)
            Xt, yt = esl_10_2(10000, rng)
            t0 = time.process_time()
            te, tr = run(X, y, Xt, yt, args.rounds, seed)
            cpu.append(time.process_time() - t0)
            te_all.append(te)
            tr_all.append(tr)
        te_all, tr_all = np.array(te_all), np.array(tr_all)
        cells = [f"{te_all[:, c - 1].mean():.1f} +- {te_all[:, c - 1].std():.1f}" for c in checks]
        tr_cells = [f"{tr_all[:, c - 1].mean():.1f}" if c <= args.rounds else "" for c in (250, 400)]
        # first round from which the training error stays 0 up to the last round (per draw)
        zero = [args.rounds - np.argmax(tr[::-1] > 0) + 1 if tr[-1] == 0 and (tr > 0).any() else
                (1 if tr[-1] == 0 else None) for tr in tr_all]
        reached = [z for z in zero if z is not None]
        tr_cells.append(f"{np.median(reached):.0f} ({min(reached)}-{max(reached)})" if len(reached) == len(zero)
                        else f"not by {args.rounds} in {len(zero) - len(reached)} of {len(zero)} draws")
        print(f"| {name} | {n_train} | " + " | ".join(cells + tr_cells) + f" | {np.mean(cpu):.1f} |", flush=True)


if __name__ == "__main__":
    main()
