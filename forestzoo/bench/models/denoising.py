"""Denoising random forests (Hibino et al. 2017): DRF and DRF-clf.

The paper's protocol (clean training rows, test rows with a fraction of their
features replaced by the training mean) is run by
``benchmarks/bench_denoising.py``; registered here, the models run on the
bench's clean folds like any other.
"""

import inspect

from ..registry import register_model

# the autoencoders take minutes at the quick suite's 50 (x 2) trees: leave the
# models out of it where the registry knows about the quick suite
_SLOW = {"quick": False} if "quick" in inspect.signature(register_model).parameters else {}


@register_model("DRF", "denoising random forest regressor: 2 x n_estimators depth-4 trees grown, the "
                "half with the lowest mean cross entropy kept, per-depth denoising autoencoders, "
                "multi-path prediction", task="regression", family="denoising",
                reference="Hibino et al. 2017", **_SLOW)
def _drf(n_estimators, n_jobs, random_state):
    from forestzoo.denoising import DenoisingRandomForestRegressor

    return DenoisingRandomForestRegressor(n_estimators=2 * n_estimators, selection=0.5, n_jobs=n_jobs,
                                          random_state=random_state)


@register_model("DRF-clf", "denoising random forest classifier (the paper's future work): 2 x n_estimators "
                "depth-4 trees grown, half kept, per-depth autoencoders, multi-path class proportions",
                family="denoising", reference="Hibino et al. 2017", **_SLOW)
def _drf_clf(n_estimators, n_jobs, random_state):
    from forestzoo.denoising import DenoisingRandomForestClassifier

    return DenoisingRandomForestClassifier(n_estimators=2 * n_estimators, selection=0.5, n_jobs=n_jobs,
                                           random_state=random_state)
