"""Docstrings: every example runs as a doctest, and every public object passes numpydoc's validator."""

import doctest
import importlib
import inspect
import pkgutil

import pytest

import forestzoo


def _modules():
    names = ["forestzoo"]
    for info in pkgutil.walk_packages(forestzoo.__path__, "forestzoo."):
        if ".bench.models." in info.name:  # registrations only: no examples
            continue
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_doctests(name):
    if name in OPTIONAL_MODULES:  # needs an optional extra (e.g. dask)
        module = pytest.importorskip(name, exc_type=ImportError)
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={}):
        if test.examples:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"


def test_every_public_estimator_has_a_runnable_example():
    missing = [name for name, cls in forestzoo.all_estimators()
               if ">>>" not in (cls.__doc__ or "")]
    assert not missing, f"estimators without a docstring example: {missing}"


# -- numpydoc validation -----------------------------------------------------------------------------------------

#: Modules whose ``__all__`` is public API (``forestzoo`` re-exports every family's estimators).
PUBLIC_MODULES = ("forestzoo", "forestzoo.io", "forestzoo.stats", "forestzoo.datasets", "forestzoo.bench")

#: Modules whose ``__all__`` is public API but which need an optional dependency (dask[distributed]) to import.
OPTIONAL_MODULES = ("forestzoo.dask",)

#: ``forestzoo.interop`` has no ``__all__``: its public functions (the rest are helpers of other families).
INTEROP_PUBLIC = ("to_sklearn", "from_sklearn", "sklearn_tree", "forestzoo_tree", "forest_trees")

#: numpydoc checks not enforced anywhere, each with its reason.
IGNORED = {
    "GL01": "PEP 257 style: the summary starts on the line of the opening quotes",
    "ES01": "an extended summary is optional: many objects say all in their summary and sections",
    "SA01": "a See Also section is optional",
    "RT02": "numpydoc's format lets a single return value be named (``path : Bunch``)",
}

#: numpydoc checks not enforced on methods, each with its reason.
IGNORED_ON_METHODS = {
    "EX01": "the class's Examples section shows its methods in use",
}


def _is_ours(obj):
    return getattr(obj, "__module__", "").split(".")[0] == "forestzoo"


def _owner(cls, name):
    """The class of ``cls``'s MRO whose namespace defines ``name``."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass
    return None


def _public_methods(path, cls):
    """``(path, kind)`` of each public method that ``cls`` runs from forestzoo's code (not scikit-learn's)."""
    found = []
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        owner = _owner(cls, name)
        if owner is None or not _is_ours(owner):
            continue
        raw = vars(owner)[name]
        func = getattr(raw, "__func__", None) or getattr(raw, "fn", None) or raw  # classmethod, available_if
        if not (inspect.isfunction(func) and _is_ours(func)):
            continue  # properties are documented in the class's Attributes section; data are not callables
        found.append((f"{path}.{name}", "method", (owner, name)))
    return found


def _public_objects():
    """``(import path, kind)`` of every public function, class and forestzoo-defined method, each object once.

    An object exported under several names (a family's estimator, also in ``forestzoo``; a base class method
    shared by many estimators) is listed under its first path only.
    """
    modules = []
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        modules.append((name, list(module.__all__)))
    modules.append(("forestzoo.interop", list(INTEROP_PUBLIC)))
    for name in OPTIONAL_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # its objects are skipped without the optional dependency
            continue
        modules.append((name, list(module.__all__)))

    seen, objects = set(), []
    for module_name, names in modules:
        module = importlib.import_module(module_name)
        for name in names:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or not _is_ours(obj):
                continue  # constants, and re-exported third-party objects
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            path = f"{module_name}.{name}"
            objects.append((path, "class" if inspect.isclass(obj) else "function"))
            if inspect.isclass(obj):
                for method_path, kind, key in _public_methods(path, obj):
                    if key not in seen:
                        seen.add(key)
                        objects.append((method_path, kind))
    return objects


def _errors(path, kind):
    """numpydoc's ``(code, message)`` errors for the object at ``path``, the ignored checks left out."""
    from numpydoc.validate import validate

    ignored = set(IGNORED) | (set(IGNORED_ON_METHODS) if kind == "method" else set())
    return [(code, message) for code, message in validate(path)["errors"] if code not in ignored]


_OBJECTS = _public_objects()


def _resolve(path):
    module, _, rest = path.partition(".")
    obj = importlib.import_module(module)
    for part in rest.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(f"{obj.__name__}.{part}")
    return obj


def test_the_public_api_is_enumerated():
    paths = {path for path, _ in _OBJECTS}
    assert len(_OBJECTS) > 100
    assert {"forestzoo.RandomForestClassifier", "forestzoo.io.save", "forestzoo.stats.friedman_test",
            "forestzoo.interop.to_sklearn"} <= paths
    # a method shared by many estimators is validated once, under the first path that reaches it
    functions = {_resolve(path) for path, kind in _OBJECTS if kind == "method"}
    assert forestzoo.RandomForestClassifier.fit in functions
    assert forestzoo.RandomForestClassifier.predict_proba in functions
    # scikit-learn's own methods are not ours to document
    assert not any(path.endswith((".get_params", ".set_params")) for path in paths)


def _undocumented(a, b=1):
    """returns things"""


def test_the_validator_reports_a_bad_docstring():
    pytest.importorskip("numpydoc")
    codes = {code for code, _ in _errors(f"{__name__}._undocumented", "function")}
    assert {"SS02", "SS03", "PR01", "EX01"} <= codes


@pytest.mark.parametrize("path, kind", _OBJECTS, ids=[path for path, _ in _OBJECTS])
def test_numpydoc(path, kind):
    pytest.importorskip("numpydoc")
    errors = _errors(path, kind)
    assert not errors, f"{path}:\n" + "\n".join(f"  {code}: {message}" for code, message in errors)
