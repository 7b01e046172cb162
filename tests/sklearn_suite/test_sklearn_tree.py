"""scikit-learn's ``sklearn/tree/tests/test_tree.py`` with forestzoo's DecisionTreeClassifier/Regressor.

Opt-in (``FORESTZOO_SKLEARN_SUITE=1``); see _sklearn_suite.py and docs/sklearn_compatibility.md.
"""

import pytest

from _sklearn_suite import SKIP_REASON, SUITE_MODULES, enabled, load_substituted, public_namespace

if not enabled():
    pytest.skip(SKIP_REASON, allow_module_level=True)

globals().update(public_namespace(load_substituted(SUITE_MODULES["test_tree"])))
pytestmark = [*globals().get("pytestmark", []), pytest.mark.sklearn_suite]
