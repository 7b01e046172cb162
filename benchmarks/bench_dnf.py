"""DNDT / DNRF (Seyedhosseini & Tasdizen 2015) beside forestzoo's random forest and CART tree.

Reproduces the paper's protocols on the offline copies of its datasets and
prints our figures beside the paper's (``shared/paper_tables``):

* ``table4``: binary datasets, stratified 2/3 - 1/3 holdouts repeated
  ``--repeats`` times, z-scored with the training part's statistics; DNRF vs
  RaF (Table 4) and, on the same splits, DNDT vs a fully grown CART tree
  (Table 2); paired t-test DNRF vs RaF per dataset.  IJCNN1 uses its
  official 49,990 / 91,701 split (the paper's Table 1).
* ``table6``: multi-class datasets on their official splits (letter: the
  first 16,000 rows train, the last 4,000 test), DNRF vs RaF.
* ``timing``: DNDT fit time on IJCNN1 (49,990 x 22, the paper's 535 s), and
  DNRF / RaF prediction throughput, in the same run.
* ``convergence``: one DNRF fit per dataset (repeat 0's split), and per tree
  where its functions' best validation epochs lie: whether ``--n-epochs``
  stopped training before the validation loss did.

Every fit appends one row to ``OUT/results.csv`` as soon as it is done, so
the same command run again resumes; ``report`` prints the Markdown tables.

    FORESTZOO_DATA=DIR python benchmarks/bench_dnf.py table4 --repeats 10
    python benchmarks/bench_dnf.py table6 --repeats 1
    python benchmarks/bench_dnf.py timing
    python benchmarks/bench_dnf.py report
    python benchmarks/bench_dnf.py convergence --datasets letter --n-estimators 2 --n-epochs 400 --n-jobs 1
"""

import argparse
import csv
import datetime
import os
import sys
import time

import numpy as np
from sklearn.model_selection import train_test_split

from forestzoo import DecisionTreeClassifier, RandomForestClassifier
from forestzoo.datasets import load_dataset
from forestzoo.dnf import DNDTClassifier, DNRFClassifier
from forestzoo.stats import paired_t_test

BINARY = ("ionosphere", "breast_cancer_wisconsin_diag", "german_credit_numeric", "pima_diabetes", "statlog_heart",
          "ijcnn1", "australian_credit", "sonar")
MULTICLASS = ("pendigits", "optdigits", "satimage_landsat", "letter")
PAPER_COLUMNS = {  # our dataset name -> the paper tables' column
    "ionosphere": "Ionosphere", "breast_cancer_wisconsin_diag": "Wisconsin breast cancer",
    "german_credit_numeric": "German credit", "pima_diabetes": "PIMA diabetes", "statlog_heart": "Hearts",
    "ijcnn1": "IJCNN", "australian_credit": "Australian credit", "sonar": "Sonar", "pendigits": "Pendigit",
    "optdigits": "Optdigit", "satimage_landsat": "Landsat", "letter": "Letter",
}
PAPER_ROWS = {"DNRF": "DNRF", "DNRF-N": "DNRF", "RaF": "Random forest", "DNDT": "DNDT", "DT": "Decision tree"}
FIELDS = ("table", "dataset", "repeat", "model", "n_estimators", "n_epochs", "error", "fit_s", "predict_s", "n_train",
          "n_test")


def paper_tables():
    from forestzoo.bench.report import find_paper_tables

    home = find_paper_tables()
    if home is None:
        return {}
    out = {}
    for key, file in (("4", "dnrf_table4_binary_forest_error.csv"), ("4std", "dnrf_table4_binary_forest_error_std.csv"),
                      ("2", "dnrf_table2_binary_single_tree_error.csv"), ("6", "dnrf_table6_multiclass_error.csv"),
                      ("3", "dnrf_table3_binary_train_seconds.csv")):
        path = os.path.join(home, file)
        if os.path.isfile(path):
            with open(path, newline="") as fh:
                rows = list(csv.reader(fh))
            out[key] = {(r[0], c): float(v) for r in rows[1:] for c, v in zip(rows[0][1:], r[1:])}
    return out


def zscore(X_train, X_test):
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1.0
    return (X_train - mean) / std, (X_test - mean) / std


def split(name, repeat):
    """``(X_train, y_train, X_test, y_test)`` of one repeat; official splits where the paper used them."""
    if name == "letter":
        X, y = load_dataset(name)
        return X[:16000], y[:16000], X[16000:], y[16000:]
    if name in MULTICLASS or name == "ijcnn1":
        Xtr, ytr = load_dataset(name, split="train")
        Xte, yte = load_dataset(name, split="test")
        return Xtr, ytr, Xte, yte
    X, y = load_dataset(name)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=repeat)
    return Xtr, ytr, Xte, yte


def make(model, n_estimators, n_jobs, seed, n_epochs=100):
    if model in ("DNRF", "DNRF-N"):
        # DNRF-N: the paper's protocol, the number of trees (up to n_estimators) chosen on the validation rows
        return DNRFClassifier(n_estimators=n_estimators, n_epochs=n_epochs, n_jobs=n_jobs, random_state=seed,
                              select_n_estimators=model == "DNRF-N")
    if model == "RaF":
        return RandomForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=seed)
    if model == "DNDT":
        return DNDTClassifier(n_epochs=n_epochs, n_jobs=n_jobs, random_state=seed)
    if model == "DT":
        return DecisionTreeClassifier(random_state=seed)
    raise ValueError(model)


def read_rows(path):
    if not os.path.isfile(path):
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def run(table, datasets, models, repeats, n_estimators, n_jobs, out, big_n_estimators, big_repeats, n_epochs):
    path = os.path.join(out, "results.csv")
    done = {(r["table"], r["dataset"], r["repeat"], r["model"]) for r in read_rows(path)}
    new = not os.path.isfile(path)
    with open(path, "a", newline="") as fh:
        writer = csv.DictWriter(fh, FIELDS)
        if new:
            writer.writeheader()
        for name in datasets:
            big = name == "ijcnn1"
            reps = big_repeats if big else repeats
            for repeat in range(reps):
                todo = [m for m in models if (table, name, str(repeat), m) not in done]
                if not todo:
                    continue
                Xtr, ytr, Xte, yte = split(name, repeat)
                Xtr, Xte = zscore(Xtr, Xte)
                for model in todo:
                    n_est = big_n_estimators if big else n_estimators
                    est = make(model, n_est, n_jobs, seed=repeat, n_epochs=n_epochs)
                    start = time.perf_counter()
                    est.fit(Xtr, ytr)
                    fit_s = time.perf_counter() - start
                    start = time.perf_counter()
                    error = 100.0 * np.mean(est.predict(Xte) != yte)
                    predict_s = time.perf_counter() - start
                    row = dict(table=table, dataset=name, repeat=repeat, model=model, n_estimators=n_est,
                               n_epochs=n_epochs if model in ("DNRF", "DNRF-N", "DNDT") else "",
                               error=round(error, 4), fit_s=round(fit_s, 3), predict_s=round(predict_s, 3),
                               n_train=len(ytr), n_test=len(yte))
                    writer.writerow(row)
                    fh.flush()
                    kept = f" kept={est.n_estimators_}" if model == "DNRF-N" else ""
                    print(" ".join(f"{k}={v}" for k, v in row.items()) + kept, flush=True)


def timing(out, n_jobs):
    """DNDT fit time on IJCNN1 (official training part) and prediction throughput.

    CPU time is printed beside wall time.  The DNDT fit shares every
    mini-batch between ``n_jobs`` threads (BLAS held to one thread each).
    """
    Xtr, ytr = load_dataset("ijcnn1", split="train")
    Xte, yte = load_dataset("ijcnn1", split="test")
    Xtr, Xte = zscore(Xtr, Xte)
    DNDTClassifier(n_epochs=1, random_state=0).fit(Xtr[:500], ytr[:500])  # compile / load the kernels, untimed
    lines = []
    for model in ("DT", "DNDT"):
        est = make(model, 1, n_jobs, 0)
        start, cpu = time.perf_counter(), time.process_time()
        est.fit(Xtr, ytr)
        fit_s, cpu_s = time.perf_counter() - start, time.process_time() - cpu
        err = 100.0 * np.mean(est.predict(Xte) != yte)
        extra = ""
        if model == "DNDT":
            info = est.finetune_info_[0]
            extra = (f", {info['epochs']} epochs run (best {int(info['best_epoch'][0])}), "
                     f"{est.dnfs_[0].n_units} split units")
        lines.append(f"| {model} fit on IJCNN1 train (49,990 x 22) | {fit_s:.1f} s wall, {cpu_s:.1f} s CPU | "
                     f"test error {err:.2f} %{extra} |")
    Xp, yp = load_dataset("pendigits", split="train")
    Xq, _ = load_dataset("pendigits", split="test")
    for model in ("RaF", "DNRF"):
        est = make(model, 20, n_jobs, 0).fit(Xp, yp)
        est.predict(Xq[:100])
        start = time.perf_counter()
        for _ in range(3):
            est.predict(Xq)
        rate = 3 * Xq.shape[0] / (time.perf_counter() - start)
        lines.append(f"| {model} (20 trees) predict, pendigits test (3,498 x 16) | {rate:,.0f} rows/s | "
                     f"n_jobs={n_jobs} |")
    text = "\n".join(["| measurement | value | notes |", "|---|---|---|"] + lines)
    print(text)
    with open(os.path.join(out, "timing.md"), "w") as fh:
        fh.write(text + "\n")


def _mean_std(values):
    v = np.asarray(values, dtype=float)
    return v.mean(), (v.std(ddof=1) if v.size > 1 else 0.0)


def report(out):
    rows = read_rows(os.path.join(out, "results.csv"))
    paper = paper_tables()
    by = {}
    for r in rows:
        by.setdefault((r["table"], r["dataset"], r["model"]), {})[int(r["repeat"])] = float(r["error"])
    parts = []
    for table, datasets, pairs in (("table4", BINARY, (("DNRF", "RaF", "4"), ("DNDT", "DT", "2"))),
                                   ("table6", MULTICLASS, (("DNRF", "RaF", "6"), ("DNRF-N", "RaF", "6")))):
        for ours, base, key in pairs:
            head = (f"| dataset | runs | {ours} (ours) | {ours} (paper) | {ours} - paper | {base} (ours) | "
                    f"{PAPER_ROWS[base]} (paper) | {ours} < {base}? | paired t-test p |")
            lines = [head, "|" + "---|" * 9]
            wins = n = 0
            for d in datasets:
                a, b = by.get((table, d, ours), {}), by.get((table, d, base), {})
                common = sorted(set(a) & set(b))
                if not common:
                    continue
                ea, eb = [a[i] for i in common], [b[i] for i in common]
                (ma, sa), (mb, sb) = _mean_std(ea), _mean_std(eb)
                pa = paper.get(key, {}).get((PAPER_ROWS[ours], PAPER_COLUMNS[d]))
                pb = paper.get(key, {}).get((PAPER_ROWS[base], PAPER_COLUMNS[d]))
                p = paired_t_test(ea, eb)[1] if len(common) > 1 else float("nan")
                n += 1
                wins += ma < mb
                fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
                lines.append(
                    f"| {d} | {len(common)} | {ma:.2f} ± {sa:.2f} | {fmt(pa)} | "
                    f"{'-' if pa is None else f'{ma - pa:+.2f}'} | {mb:.2f} ± {sb:.2f} | {fmt(pb)} | "
                    f"{'yes' if ma < mb else 'no'} | {p:.3g} |")
            if n:
                parts.append(f"### {table}: {ours} vs {base} (test error %, mean ± std over runs)\n")
                parts.append("\n".join(lines))
                parts.append(f"\n{ours} has the lower mean error on {wins} of {n} datasets.\n")
    fit = {}
    for r in rows:
        fit.setdefault((r["dataset"], r["model"]), []).append(float(r["fit_s"]))
    lines = ["| dataset | model | trees | max epochs | mean fit s |", "|---|---|---|---|---|"]
    for (d, m), v in sorted(fit.items()):
        first = next(r for r in rows if r["dataset"] == d and r["model"] == m)
        trees = first["n_estimators"] if m in ("DNRF", "DNRF-N", "RaF") else 1
        lines.append(f"| {d} | {m} | {trees} | {first['n_epochs'] or '-'} | {np.mean(v):.2f} |")
    parts.append("### fit times (noisy: the machine was shared)\n\n" + "\n".join(lines))
    text = "\n".join(parts)
    print(text)
    return text


def convergence(datasets, n_estimators, n_epochs, n_jobs):
    """Fit DNRF once per dataset; print each tree's best-epoch spread and the test error."""
    for name in datasets:
        Xtr, ytr, Xte, yte = split(name, 0)
        Xtr, Xte = zscore(Xtr, Xte)
        est = make("DNRF", n_estimators, n_jobs, seed=0, n_epochs=n_epochs)
        start = time.perf_counter()
        est.fit(Xtr, ytr)
        fit_s = time.perf_counter() - start
        print(f"{name}: {n_estimators} trees, at most {n_epochs} epochs, fit {fit_s:.1f} s")
        for i, info in enumerate(est.finetune_info_):
            best = np.asarray(info["best_epoch"])
            q10, q50, q90 = np.percentile(best, [10, 50, 90])
            late = np.mean(best > info["epochs"] - 10)  # best epoch among the last 10 run
            print(f"  tree {i}: {info['epochs']} epochs run; best epoch of its {best.size} functions: "
                  f"10/50/90 % {q10:.0f} / {q50:.0f} / {q90:.0f}, max {best.max()}; in the last 10 epochs: "
                  f"{100 * late:.0f} %; mean validation loss {np.mean(info['validation_loss']):.6f}")
        print(f"  test error {100.0 * np.mean(est.predict(Xte) != yte):.3f} %", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("table4", "table6", "timing", "report", "convergence"))
    parser.add_argument("--datasets", default=None, help="comma-separated subset")
    parser.add_argument("--models", default=None, help="comma-separated subset of DNRF,RaF,DNDT,DT, or DNRF-N "
                                                       "(DNRF whose number of trees is chosen on its validation rows)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--n-epochs", type=int, default=100, help="most epochs of DNRF / DNDT (default: 100)")
    parser.add_argument("--ijcnn1-n-estimators", type=int, default=10, help="trees on IJCNN1 (default: 10)")
    parser.add_argument("--ijcnn1-repeats", type=int, default=1)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--out", default="bench_dnf_out")
    args = parser.parse_args(argv)
    print(f"# {datetime.date.today()} python {' '.join(sys.argv)}", flush=True)
    if args.what == "convergence":  # prints only: no results file
        names = args.datasets.split(",") if args.datasets else MULTICLASS
        return convergence(names, args.n_estimators, args.n_epochs, args.n_jobs)
    os.makedirs(args.out, exist_ok=True)
    if args.what == "timing":
        return timing(args.out, args.n_jobs)
    if args.what == "report":
        return report(args.out)
    datasets = args.datasets.split(",") if args.datasets else (BINARY if args.what == "table4" else MULTICLASS)
    models = args.models.split(",") if args.models else (
        ("DNRF", "RaF", "DNDT", "DT") if args.what == "table4" else ("DNRF", "RaF"))
    run(args.what, datasets, models, args.repeats, args.n_estimators, args.n_jobs, args.out,
        args.ijcnn1_n_estimators, args.ijcnn1_repeats, args.n_epochs)


if __name__ == "__main__":
    main()
