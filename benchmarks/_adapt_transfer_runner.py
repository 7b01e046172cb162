"""Run adapt's TransferForestClassifier (SER, STRUT) on one source/target split.

Executed by bench_transfer.py with the Python of a separate environment that
has the `adapt` package (it needs TensorFlow, which forestzoo does not).
Reads an .npz with Xs, ys, Xt, yt, Xte and the settings; fits a scikit-learn
RandomForestClassifier on the source, runs adapt's SER and STRUT on the
target rows, and writes the source forest (pickle) plus adapt's test
predictions and fit times, so that forestzoo can refine the very same source.
"""

import os
import pickle
import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main(inp, out):
    from adapt.parameter_based import TransferForestClassifier
    from sklearn.ensemble import RandomForestClassifier

    d = np.load(inp)
    n_estimators, seed = int(d["n_estimators"]), int(d["seed"])
    t0 = time.perf_counter()
    src = RandomForestClassifier(n_estimators=n_estimators, random_state=seed, n_jobs=1).fit(d["Xs"], d["ys"])
    res = {"source": pickle.dumps(src), "src_fit_s": time.perf_counter() - t0}
    for algo in ("ser", "strut"):
        t0 = time.perf_counter()
        tf = TransferForestClassifier(src, algo=algo, random_state=seed)
        tf.fit(d["Xt"], d["yt"])
        res[f"{algo}_fit_s"] = time.perf_counter() - t0
        res[f"{algo}_pred"] = tf.predict(d["Xte"])
    with open(out, "wb") as fh:
        pickle.dump(res, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
