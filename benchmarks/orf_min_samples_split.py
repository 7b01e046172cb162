"""ORF prequential score against min_samples_split (n_split) on the bench_online streams.

Batch size 1, 10 trees, n_tests=20, mean of seeds 0-2: accuracy (%) for the
classification streams, MAE for friedman1.  Answers whether the gap to river's
AMF / ARF is a matter of how soon leaves split.

    python benchmarks/orf_min_samples_split.py
"""
import os
import sys

import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_online import make_stream
from forestzoo import OnlineRandomForestClassifier, OnlineRandomForestRegressor
for name in ("stable", "covtype-like", "friedman1"):
    X, y, task = make_stream(name, 10000, 0)
    row = []
    for mss in (5, 10, 20, 50, 100):
        for nt in (20,):
            scores = []
            for seed in (0, 1, 2):
                if task == "classification":
                    m = OnlineRandomForestClassifier(n_estimators=10, min_samples_split=mss, n_tests=nt, random_state=seed)
                    kw = {"classes": np.unique(y)}
                else:
                    m = OnlineRandomForestRegressor(n_estimators=10, min_samples_split=mss, n_tests=nt, random_state=seed)
                    kw = {}
                m.partial_fit(X[:1], y[:1], **kw)
                err = 0.0
                for s in range(1, X.shape[0]):
                    p = m.predict(X[s:s+1])
                    err += (p[0] == y[s]) if task == "classification" else abs(p[0] - y[s])
                    m.partial_fit(X[s:s+1], y[s:s+1])
                scores.append(err / (X.shape[0] - 1))
            row.append(f"mss={mss}: {100*np.mean(scores) if task=='classification' else np.mean(scores):.3f}")
    print(name, " | ".join(row), flush=True)
