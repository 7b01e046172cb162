"""pytest set-up of the scikit-learn suite (see _sklearn_suite.py); inert unless the suite is enabled.

scikit-learn's tests need what ``sklearn/conftest.py`` provides to them; that
file is not loaded here (it is a conftest of the installed package, not of
this tree), so the parts the two test modules use are taken from it:

* ``global_random_seed``: parametrised by scikit-learn's own
  ``pytest_generate_tests`` (42 by default, ``SKLEARN_TESTS_GLOBAL_RANDOM_SEED``
  chooses others, as in scikit-learn);
* the ``thread_unsafe`` marker, registered here.

The other fixtures these modules use (``monkeypatch``, ``tmpdir``) are pytest's.
Items that exercise only scikit-learn get the ``sklearn_only`` marker and a
``sklearn_only`` user property holding the reason (``--junitxml`` writes it).
"""

import pytest

from _sklearn_suite import enabled, sklearn_only_reason

if enabled():
    from sklearn.conftest import pytest_generate_tests  # noqa: F401  (hook: global_random_seed)


def pytest_configure(config):
    config.addinivalue_line("markers", "sklearn_only: a scikit-learn suite test that exercises no forestzoo class")
    config.addinivalue_line("markers", "sklearn_suite: scikit-learn's tree/forest tests run against forestzoo")
    config.addinivalue_line("markers", "thread_unsafe: scikit-learn's marker for single-threaded tests")


def pytest_itemcollected(item):
    reason = sklearn_only_reason(item)
    if reason:
        item.add_marker(pytest.mark.sklearn_only)
        item.user_properties.append(("sklearn_only", reason))
