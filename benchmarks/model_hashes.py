"""Fingerprints of fitted models, to show that an engine change leaves every model as it was.

For a fixed ``random_state`` a refactor of the engine must grow the same
trees.  This script fits every estimator of ``forestzoo.all_estimators()``
(small settings, the tests' ``fast_instance``) and a grid of tree / forest
variants that covers the grower's paths (each splitter and criterion,
best-first growth, sample weights, NaN, monotonic constraints, pruning,
regression and classification), and prints one SHA-256 per case of the
bytes of its outputs (``predict_proba`` or ``predict``, and ``apply`` where
the estimator has it).

The package is imported as usual, so ``PYTHONPATH`` chooses the checkout
(the cases are always this checkout's)::

    PYTHONPATH=. python benchmarks/model_hashes.py --out after.json
    PYTHONPATH=../base python benchmarks/model_hashes.py --out before.json
    python benchmarks/model_hashes.py --compare before.json after.json

``tests/test_fingerprints.py`` checks the grower's cases against stored
fingerprints on every test run.

The axis-aligned cases call no BLAS and give the same bytes on any x86-64
CPU; families whose node models call BLAS / LAPACK may differ across CPUs
(docs/portability.md), so compare those on one machine.
"""

import argparse
import json
import os
import sys
import warnings

# the tests' helpers (fast_instance, the fingerprint cases) of this checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))


def registry_cases():
    """Every estimator of ``all_estimators()`` with the tests' small settings and toy data."""
    import forestzoo
    from _estimators import fast_instance, toy_data

    cases = {}
    for name, Estimator in forestzoo.all_estimators():
        est = fast_instance(Estimator)
        X, y = toy_data(est, 150)
        cases[f"all:{name}"] = (est, X, y, {})
    return cases


def fingerprints(which="all"):
    from _fingerprints import digest, engine_cases, outputs

    cases = dict(engine_cases())
    if which == "all":
        cases.update(registry_cases())
    result = {}
    for name, (est, X, y, kw) in cases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                est.fit(X, y, **kw)
                result[name] = digest(*outputs(est, X))
            except Exception as exc:  # recorded, so a case that starts or stops failing shows
                result[name] = f"error: {type(exc).__name__}: {exc}"[:200]
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", help="write the fingerprints as JSON here")
    p.add_argument("--engine-only", action="store_true", help="only the axis-aligned grower cases")
    p.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two JSON files and exit")
    args = p.parse_args(argv)
    if args.compare:
        a, b = (json.load(open(f)) for f in args.compare)
        same = [k for k in a if b.get(k) == a[k]]
        differ = sorted(k for k in a if k in b and b[k] != a[k])
        only = sorted(set(a) ^ set(b))
        print(f"{len(same)} identical, {len(differ)} differ, {len(only)} in one file only")
        for k in differ:
            print(f"  differs: {k}")
        for k in only:
            print(f"  only in one: {k}")
        return 1 if differ else 0
    result = fingerprints("engine" if args.engine_only else "all")
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
