"""Every docstring example in the package runs as a doctest (STYLE.md: examples that run)."""

import doctest
import importlib
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
