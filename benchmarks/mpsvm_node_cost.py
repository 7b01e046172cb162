"""CPU time per node of MPSVMForestClassifier (MPRaF-T) fits, for the per-node cost of issue 5.

20 trees, n_jobs=1, best of three fits (``time.process_time``).  Pass a checkout's
path to time that version of forestzoo (to compare two commits in one run):

    python benchmarks/mpsvm_node_cost.py [path/to/checkout]
"""

import sys
import time

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])
from forestzoo import MPSVMForestClassifier  # noqa: E402
from forestzoo.datasets import load_dataset  # noqa: E402


def main():
    for name in ("segment", "vehicle"):
        X, y = load_dataset(name)  # from the data directory, FORESTZOO_DATA
        MPSVMForestClassifier(n_estimators=2, random_state=0).fit(X[:200], y[:200])  # compile / load, untimed
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            model = MPSVMForestClassifier(n_estimators=20, n_jobs=1, random_state=0).fit(X, y)
            best = min(best, time.process_time() - start)
        nodes = sum(e.tree_.node_count for e in model.estimators_)
        print(f"{name} {X.shape}: {best:.2f} CPU s for 20 trees, {nodes} nodes, {best / nodes * 1e6:.0f} us/node",
              flush=True)


if __name__ == "__main__":
    main()
