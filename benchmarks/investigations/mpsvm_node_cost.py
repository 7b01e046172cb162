"""CPU time per node of MPSVMForestClassifier fits, the per-node cost of the MPSVM forest.

Default: MPRaF-T (``--forest`` for the others), 20 trees, ``n_jobs=1``, best of three
fits on segment and vehicle (``time.process_time``, which counts BLAS threads too; the
wall time is printed beside it).  ``--wide``: MPRoF-T (a rotation per tree, every
rotated feature at every node) on the 1,024-pixel face sets, one tree, one fit: the
nodes there have fewer rows than features.  Pass a checkout's path to time that
version of forestzoo (to compare two commits in one run):

    python benchmarks/investigations/mpsvm_node_cost.py [--wide | --forest MPRoF] [--datasets A,B] [path/to/checkout]
"""

import argparse
import sys
import time

#: The registered MPSVM forests' settings (forestzoo/bench/models/mpsvm.py).
FORESTS = {
    "MPRaF": {},
    "MPRoF": dict(rotation=True, bootstrap=False, max_features=None),
    "MPRRoF": dict(rotation=True, bootstrap=False, max_features="sqrt"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", nargs="?", help="path of a forestzoo checkout to time instead of the installed one")
    parser.add_argument("--wide", action="store_true", help="MPRoF-T on the face sets (1,024 features), one tree")
    parser.add_argument("--forest", choices=sorted(FORESTS), default="MPRaF",
                        help="which MPSVM forest (-T) to time without --wide (default: MPRaF)")
    parser.add_argument("--datasets", help="comma-separated dataset names (default: segment,vehicle; "
                                           "with --wide yale_faces,orl_faces)")
    args = parser.parse_args()
    if args.checkout:
        sys.path.insert(0, args.checkout)
    from forestzoo import MPSVMForestClassifier
    from forestzoo.datasets import load_dataset

    if args.wide:
        names = (args.datasets or "yale_faces,orl_faces").split(",")
        params, n_trees, repeats = FORESTS["MPRoF"], 1, 1
    else:
        names = (args.datasets or "segment,vehicle").split(",")
        params, n_trees, repeats = FORESTS[args.forest], 20, 3
    for name in names:
        X, y = load_dataset(name)  # from the data directory, FORESTZOO_DATA
        # compile (or load) every kernel, untimed; 200 columns reach the routes for wide nodes
        MPSVMForestClassifier(n_estimators=2, random_state=0, **params).fit(X[:60, :200], y[:60])
        best, wall = float("inf"), float("inf")
        for _ in range(repeats):
            start, start_wall = time.process_time(), time.perf_counter()
            model = MPSVMForestClassifier(n_estimators=n_trees, n_jobs=1, random_state=0, **params).fit(X, y)
            best = min(best, time.process_time() - start)
            wall = min(wall, time.perf_counter() - start_wall)
        nodes = sum(e.tree_.node_count for e in model.estimators_)
        print(f"{name} {X.shape}: {best:.2f} CPU s ({wall:.2f} s wall) for {n_trees} tree(s), {nodes} nodes, "
              f"{best / nodes * 1e6:.0f} us/node", flush=True)


if __name__ == "__main__":
    main()
