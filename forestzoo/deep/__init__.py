"""Deep forest (gcForest): multi-grained scanning and cascade forests (Zhou & Feng 2017).

:class:`MultiGrainedScanner` is public here but not listed in ``__all__``:
``forestzoo.all_estimators()`` feeds the library-wide predictor tests
(``tests/test_validation.py``), which assume ``predict``; the scanner, a
supervised transformer, gets scikit-learn's checks in ``tests/test_deep_scanning.py``.
"""

from ._cascade import CascadeForestClassifier, CascadeForestRegressor
from ._gcforest import GCForestClassifier
from ._scanning import MultiGrainedScanner

__all__ = ["CascadeForestClassifier", "CascadeForestRegressor", "GCForestClassifier"]
