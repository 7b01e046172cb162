"""Run scikit-learn's own tree and forest tests against forestzoo's classes.

The installed test modules ``sklearn.tree.tests.test_tree`` and
``sklearn.ensemble.tests.test_forest`` bind their estimator classes at import
time: ``from sklearn.tree import DecisionTreeClassifier``, dicts such as
``CLF_TREES`` / ``FOREST_ESTIMATORS`` and the ``@pytest.mark.parametrize``
argument lists are all built while the module executes.  :func:`load_substituted`
therefore imports a fresh copy of such a module while the public attributes of
``sklearn.tree`` and ``sklearn.ensemble`` are temporarily replaced by forestzoo's
classes (see :data:`SUBSTITUTES`), and restores them right after.  Every name
the module binds -- module globals, the dicts, the parametrize lists -- then
holds forestzoo's class, while the rest of scikit-learn keeps its own classes
(``sklearn.tree.export_graphviz``'s parameter check, for instance).
Parametrize ids come from the same dict keys and list positions as in
scikit-learn's own run, so node ids match test for test.

The copy is imported through the normal import system under its own name
(then taken out of ``sys.modules`` again, the previous entry restored), so
pytest's assertion rewriting applies to it as it does to scikit-learn's run.
The scikit-learn files are read where they are installed; nothing is copied
or edited.

Classes without a faithful forestzoo counterpart stay scikit-learn's
(:data:`KEPT_FROM_SKLEARN`).  Tests that then exercise only such classes, or
scikit-learn's private internals, are listed in :data:`SKLEARN_ONLY` (whole
tests) or recognised from their parametrisation (:func:`sklearn_only_reason`);
the conftest tags them with the ``sklearn_only`` marker and a
``sklearn_only`` user property (written to ``--junitxml`` reports), so that
their outcome is counted apart from forestzoo's.

The suite is opt-in: it runs only with ``FORESTZOO_SKLEARN_SUITE=1`` in the
environment (:func:`enabled`).
"""

import functools
import importlib
import os
import sys
import warnings

ENV_VAR = "FORESTZOO_SKLEARN_SUITE"
SKIP_REASON = (
    f"scikit-learn's tree and forest tests against forestzoo are opt-in: set {ENV_VAR}=1 "
    "(see docs/sklearn_compatibility.md)"
)

# The scikit-learn test modules run by the suite, by the short name used in SKLEARN_ONLY's keys.
SUITE_MODULES = {
    "test_tree": "sklearn.tree.tests.test_tree",
    "test_forest": "sklearn.ensemble.tests.test_forest",
}

# public scikit-learn module -> {class name: forestzoo class name}; patched while a suite module is imported
SUBSTITUTES = {
    "sklearn.tree": {
        "DecisionTreeClassifier": "DecisionTreeClassifier",
        "DecisionTreeRegressor": "DecisionTreeRegressor",
    },
    "sklearn.ensemble": {
        "RandomForestClassifier": "RandomForestClassifier",
        "RandomForestRegressor": "RandomForestRegressor",
        "ExtraTreesClassifier": "ExtraTreesClassifier",
        "ExtraTreesRegressor": "ExtraTreesRegressor",
    },
}

# Classes the test modules use that stay scikit-learn's, and why.
KEPT_FROM_SKLEARN = {
    "ExtraTreeClassifier": (
        "no faithful forestzoo counterpart: forestzoo has no single extra-tree class, and "
        "DecisionTreeClassifier's defaults differ from ExtraTreeClassifier's (splitter='exact' vs 'random', "
        "max_features=None vs 'sqrt'), so ExtraTreeClassifier() would become an exact CART tree"
    ),
    "ExtraTreeRegressor": (
        "no faithful forestzoo counterpart: DecisionTreeRegressor's defaults differ from "
        "ExtraTreeRegressor's (splitter='exact' vs 'random'), so ExtraTreeRegressor() would become "
        "an exact CART tree"
    ),
    "RandomTreesEmbedding": "no forestzoo counterpart (unsupervised totally-random-trees embedding)",
}

# Whole tests that exercise only scikit-learn classes or scikit-learn private internals, keyed
# "<short module>::<test function>".  Their outcome says nothing about forestzoo.
SKLEARN_ONLY = {
    # sklearn/tree/tests/test_tree.py
    "test_tree::test_realloc": "sklearn.tree._utils._realloc_test, a Cython allocation helper",
    "test_tree::test_criterion_copy": "copies scikit-learn's Cython criterion objects (sklearn.tree._criterion)",
    "test_tree::test_check_n_classes": "sklearn.tree._tree._check_n_classes, a Cython unpickling check",
    "test_tree::test_check_value_ndarray": "sklearn.tree._tree._check_value_ndarray, a Cython unpickling check",
    "test_tree::test_check_node_ndarray": "sklearn.tree._tree._check_node_ndarray and NODE_DTYPE (Cython Tree)",
    "test_tree::test_splitter_serializable": "pickles scikit-learn's Cython splitters (sklearn.tree._splitter)",
    "test_tree::test_absolute_errors_precomputation_function": (
        "sklearn.tree._criterion._py_precompute_absolute_errors, a Cython criterion helper"
    ),
    "test_tree::test_different_bitness_pickle": (
        "re-pickles sklearn.tree._tree.Tree with other-bitness node arrays; the hook never fires for a "
        "forestzoo tree_"
    ),
    "test_tree::test_different_bitness_joblib_pickle": (
        "re-pickles sklearn.tree._tree.Tree with other-bitness node arrays (joblib); the hook never fires "
        "for a forestzoo tree_"
    ),
    "test_tree::test_build_pruned_tree_py": (
        "sklearn.tree._tree._build_pruned_tree_py, which takes a Cython Tree, on the fitted tree_"
    ),
    "test_tree::test_build_pruned_tree_infinite_loop": (
        "sklearn.tree._tree._build_pruned_tree_py, which takes a Cython Tree, on the fitted tree_"
    ),
    "test_tree::test_missing_values_random_splitter_on_equal_nodes_no_missing": (
        "ExtraTreeRegressor only (kept as scikit-learn's)"
    ),
    "test_tree::test_regression_extra_tree_missing_values_toy": "ExtraTreeRegressor only (kept as scikit-learn's)",
    "test_tree::test_random_splitter_missing_values_uses_non_missing_min_max": (
        "ExtraTreeRegressor only (kept as scikit-learn's)"
    ),
    # sklearn/ensemble/tests/test_forest.py
    "test_forest::test_random_trees_embedding_raise_error_oob": "RandomTreesEmbedding only (no forestzoo counterpart)",
    "test_forest::test_random_trees_dense_type": "RandomTreesEmbedding only (no forestzoo counterpart)",
    "test_forest::test_random_trees_dense_equal": "RandomTreesEmbedding only (no forestzoo counterpart)",
    "test_forest::test_random_hasher": "RandomTreesEmbedding only (no forestzoo counterpart)",
    "test_forest::test_random_hasher_sparse_data": "RandomTreesEmbedding only (no forestzoo counterpart)",
    "test_forest::test_random_trees_embedding_feature_names_out": (
        "RandomTreesEmbedding only (no forestzoo counterpart)"
    ),
    "test_forest::test_forest_multioutput_integral_regression_target": (
        "recomputes the OOB rows with sklearn.ensemble._forest._generate_unsampled_indices, scikit-learn's "
        "private bootstrap scheme"
    ),
    "test_forest::test_validate_y_class_weight": (
        "calls the private method _validate_y_class_weight of scikit-learn's forest classifiers"
    ),
    "test_forest::test_oob_not_computed_twice": (
        "counts calls of the private method _set_oob_score_and_attributes of scikit-learn's forests"
    ),
    "test_forest::test_class_weights_forest": (
        "asserts on _sample_weight, a private fitted attribute of scikit-learn's forests"
    ),
    "test_forest::test_mse_criterion_object_segfault_smoke_test": (
        "passes a scikit-learn Cython criterion object (sklearn.tree._criterion.MSE) as criterion"
    ),
}


def enabled():
    """True when the environment asks for the suite (``FORESTZOO_SKLEARN_SUITE`` set, not ``0``)."""
    return os.environ.get(ENV_VAR, "").strip() not in ("", "0")


@functools.lru_cache(maxsize=None)
def substitutes():
    """``{(sklearn module, name): (sklearn class, forestzoo class)}`` for every substituted class."""
    import forestzoo

    out = {}
    for modname, names in SUBSTITUTES.items():
        module = importlib.import_module(modname)
        for name, fz_name in names.items():
            out[(modname, name)] = (getattr(module, name), getattr(forestzoo, fz_name))
    return out


def load_substituted(modname):
    """Import a fresh copy of the test module ``modname`` with forestzoo's classes bound in it.

    The public class attributes of ``sklearn.tree`` / ``sklearn.ensemble`` are
    replaced while the module executes and restored afterwards; a previously
    imported copy of ``modname`` (scikit-learn's own) is put back in
    ``sys.modules``.  Raises RuntimeError when a scikit-learn class meant to be
    substituted is still reachable from the module's globals (e.g. a future
    version imports it from a private module), so the suite cannot silently
    test scikit-learn instead of forestzoo.
    """
    subs = substitutes()
    previous = sys.modules.pop(modname, None)
    try:
        for (owner, name), (_, fz_cls) in subs.items():
            setattr(sys.modules[owner], name, fz_cls)
        module = importlib.import_module(modname)
    finally:
        for (owner, name), (sk_cls, _) in subs.items():
            setattr(sys.modules[owner], name, sk_cls)
        sys.modules.pop(modname, None)
        parent, _, child = modname.rpartition(".")
        if previous is not None:
            sys.modules[modname] = previous
            setattr(sys.modules[parent], child, previous)
        elif parent in sys.modules and hasattr(sys.modules[parent], child):
            delattr(sys.modules[parent], child)
    _check_substituted(module, subs)
    _warn_stale_entries(module)
    return module


def _warn_stale_entries(module):
    """Warn about SKLEARN_ONLY entries naming no test of ``module`` (renamed or removed upstream)."""
    short = module.__name__.rsplit(".", 1)[-1]
    stale = [key for key in SKLEARN_ONLY if key.split("::")[0] == short and key.split("::")[1] not in vars(module)]
    if stale:
        warnings.warn(f"SKLEARN_ONLY names tests that {module.__name__} does not have: {', '.join(stale)}",
                      UserWarning, stacklevel=3)


def _check_substituted(module, subs):
    leftovers = {id(sk): f"{owner}.{name}" for (owner, name), (sk, _) in subs.items()}
    for gname, value in vars(module).items():
        values = [value]
        if isinstance(value, dict):
            values += list(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            values += list(value)
        for v in values:
            if id(v) in leftovers:
                raise RuntimeError(
                    f"{module.__name__}.{gname} still refers to scikit-learn's {leftovers[id(v)]}; "
                    "the substitution in tests/sklearn_suite/_sklearn_suite.py needs updating."
                )


def public_namespace(module):
    """The module's globals without dunders, for a pytest module to re-export (and so collect)."""
    return {k: v for k, v in vars(module).items() if not (k.startswith("__") and k.endswith("__"))}


@functools.lru_cache(maxsize=None)
def _kept_classes():
    import sklearn.ensemble
    import sklearn.tree

    return frozenset(getattr(sklearn.tree, n, None) or getattr(sklearn.ensemble, n) for n in KEPT_FROM_SKLEARN)


def _param_kind(value, kept, fz):
    """'kept', 'forestzoo' or None for one parametrize value (class, instance or dict key)."""
    if isinstance(value, str):
        if value in KEPT_FROM_SKLEARN:
            return "kept"
        if any(value == name for names in SUBSTITUTES.values() for name in names):
            return "forestzoo"
        return None
    cls = value if isinstance(value, type) else type(value)
    if cls in kept:
        return "kept"
    if cls in fz:
        return "forestzoo"
    return None


def sklearn_only_reason(item):
    """Why the pytest ``item`` exercises only scikit-learn, or None when it exercises forestzoo.

    Either the whole test is in :data:`SKLEARN_ONLY`, or its parametrisation
    names only classes of :data:`KEPT_FROM_SKLEARN` (e.g.
    ``test_sparse_input[ExtraTreeClassifier-...]``) and none of the
    substituted ones.  Tests looping over a dict of both kinds exercise
    forestzoo and are not scikit-learn-only.
    """
    function = getattr(item, "function", None)
    short = (getattr(function, "__module__", "") or "").rsplit(".", 1)[-1]
    key = f"{short}::{getattr(item, 'originalname', item.name)}"
    if key in SKLEARN_ONLY:
        return SKLEARN_ONLY[key]
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    kept = _kept_classes()
    fz = {fz_cls for _, fz_cls in substitutes().values()}
    kinds = {_param_kind(v, kept, fz) for v in callspec.params.values()}
    if "kept" in kinds and "forestzoo" not in kinds:
        names = sorted({(v if isinstance(v, str) else (v if isinstance(v, type) else type(v)).__name__)
                        for v in callspec.params.values() if _param_kind(v, kept, fz) == "kept"})
        return f"parametrised with {', '.join(names)} only (kept as scikit-learn's)"
    return None
