"""Boosted trees (forestzoo.boosting): the AdaBoost family, LSBoost / AdaBoost.R2 and gradient boosting.

Names follow the lecture's list of AdaBoost variants (Suganthan's lecture, boosted trees section).
The AdaBoost-family classifiers use trees of depth 3 (8 leaves, the tree size of
Friedman, Hastie & Tibshirani 2000's experiments) on the histogram splitter and no
shrinkage, as the papers define them; gradient boosting uses ESL's usual depth 3 and
shrinkage 0.1.  ``n_estimators`` is the number of boosting rounds.
"""

from ..registry import Suite, register_model, register_suite

_ADA_DEPTH = 3


def _ada(algorithm):
    def factory(n_estimators, n_jobs, random_state):
        from forestzoo.boosting import AdaBoostClassifier

        return AdaBoostClassifier(n_estimators=n_estimators, algorithm=algorithm, max_depth=_ADA_DEPTH,
                                  n_jobs=n_jobs, random_state=random_state)

    return factory


_CLASSIFIERS = {
    "AdaBoost-M1": ("M1", "AdaBoost.M1, alpha = log((1 - err)/err), depth-3 trees", "Freund & Schapire 1997"),
    "SAMME": ("SAMME", "multi-class AdaBoost (SAMME), depth-3 trees", "Zhu et al. 2009"),
    "SAMME.R": ("SAMME.R", "real multi-class AdaBoost (SAMME.R), depth-3 trees", "Zhu et al. 2009"),
    "LogitBoost": ("LogitBoost", "LogitBoost, Newton steps with regression trees of depth 3",
                   "Friedman, Hastie & Tibshirani 2000"),
    "GentleBoost": ("GentleBoost", "Gentle AdaBoost, least-squares regression trees of depth 3",
                    "Friedman, Hastie & Tibshirani 2000"),
    "RUSBoost": ("RUSBoost", "AdaBoost.M2 on random class-balanced under-samples, depth-3 trees", "Seiffert et al. 2010"),
}
for _name, (_alg, _desc, _ref) in _CLASSIFIERS.items():
    register_model(_name, f"forestzoo AdaBoostClassifier: {_desc}", family="boosting", reference=_ref)(_ada(_alg))


@register_model("GBT", "forestzoo GradientBoostingClassifier: depth 3, learning rate 0.1, histogram grower",
                family="boosting", reference="Friedman 2001; Hastie et al. 2009 (Alg. 10.4)")
def _gbt(n_estimators, n_jobs, random_state):
    from forestzoo.boosting import GradientBoostingClassifier

    return GradientBoostingClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("LSBoost", "forestzoo AdaBoostRegressor: least-squares boosting, depth 3, learning rate 0.1",
                task="regression", family="boosting", reference="Friedman 2001")
def _lsboost(n_estimators, n_jobs, random_state):
    from forestzoo.boosting import AdaBoostRegressor

    return AdaBoostRegressor(n_estimators=n_estimators, algorithm="LSBoost", learning_rate=0.1,
                             random_state=random_state)


@register_model("AdaBoost.R2", "forestzoo AdaBoostRegressor: AdaBoost.R2, linear loss, depth 3",
                task="regression", family="boosting", reference="Drucker 1997")
def _r2(n_estimators, n_jobs, random_state):
    from forestzoo.boosting import AdaBoostRegressor

    return AdaBoostRegressor(n_estimators=n_estimators, algorithm="R2", random_state=random_state)


@register_model("GBT-reg", "forestzoo GradientBoostingRegressor: squared error, depth 3, learning rate 0.1",
                task="regression", family="boosting", reference="Friedman 2001; Hastie et al. 2009 (Alg. 10.3)")
def _gbt_reg(n_estimators, n_jobs, random_state):
    from forestzoo.boosting import GradientBoostingRegressor

    return GradientBoostingRegressor(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


register_suite(Suite(
    name="boosting-largest5",
    description="Boosted trees against RaF on the five largest datasets of the lecture's UCI table",
    datasets=("adult", "twonorm", "page_blocks", "waveform_21", "waveform_40"),
    models=("GBT", "SAMME", "LogitBoost", "RUSBoost", "RaF"),
    protocol="cv", folds=3, repeats=1, n_estimators=100,
    notes="the datasets of the GBT accuracy target; 100 rounds / trees, 3-fold CV",
))
