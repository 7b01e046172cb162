"""The grower grows the same trees as before: fingerprints of fitted models against stored ones.

``engine_fingerprints.json`` holds, for each case of
:func:`_fingerprints.engine_cases` (every splitter and criterion, best-first
growth, sample weights, NaN, monotonic constraints, pruning, gradient boosting
and AdaBoost), the SHA-256 of the model's outputs.  A change that alters a model for a fixed
``random_state`` fails here; if the change is meant (a documented bug fix),
regenerate the file with ``python benchmarks/model_hashes.py --engine-only
--out tests/engine_fingerprints.json`` and say why in the commit.

These cases call no BLAS or LAPACK routine and take ``exp`` and ``log`` from
the C library, so their bytes do not depend on the OpenBLAS kernel, on Numba's
target CPU or on numpy's SIMD loops, and the same file holds across x86-64 CPUs
(docs/portability.md lists the CPUs and settings measured); the
multi-class gradient boosting case is fingerprinted by its scores, not by its
probabilities, which numpy's ``exp`` computes (see :func:`_fingerprints.outputs`).
"""

import json
import os
import warnings

import pytest

from _fingerprints import digest, engine_cases, outputs

with open(os.path.join(os.path.dirname(__file__), "engine_fingerprints.json")) as _fh:
    STORED = json.load(_fh)

CASES = engine_cases()


def test_every_case_has_a_stored_fingerprint():
    assert sorted(CASES) == sorted(STORED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_is_unchanged(name):
    estimator, X, y, fit_kwargs = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, y, **fit_kwargs)
    assert digest(*outputs(estimator, X)) == STORED[name]
