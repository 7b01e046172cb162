"""Deep forest (Zhou & Feng 2017): the cascade forest and gcForest."""

from ..registry import Suite, register_model, register_suite

_REF = "Zhou & Feng 2017"


@register_model("CascadeForest", "forestzoo CascadeForestClassifier: levels of 2 random forests + 2 completely-random "
                "tree forests on out-of-fold (3-fold) class vectors, grown until the OOF accuracy stops improving; "
                "n_estimators = trees per forest and fold", family="deep", reference=_REF, quick=False)
def _cascade_forest(n_estimators, n_jobs, random_state):
    from forestzoo.deep import CascadeForestClassifier

    return CascadeForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("gcForest", "forestzoo GCForestClassifier: multi-grained scanning of each row as a sequence (windows "
                "d/16, d/9, d/4; a random forest and a completely-random forest per window) feeding a cascade of "
                "cascades; n_estimators = trees per forest and fold", family="deep", reference=_REF, quick=False)
def _gcforest(n_estimators, n_jobs, random_state):
    from forestzoo.deep import GCForestClassifier

    return GCForestClassifier(scan_n_estimators=n_estimators, n_estimators=n_estimators, n_jobs=n_jobs,
                              random_state=random_state)


register_suite(Suite(
    name="deep-forest",
    description="Cascade forest and gcForest beside forestzoo RF on datasets with an official train/test split",
    datasets=("optdigits", "pendigits", "satimage_landsat"),
    models=("CascadeForest", "gcForest", "RaF"),
    protocol="official",
    repeats=1,
    n_estimators=50,
    notes="Zhou & Feng 2017 compare gcForest with RF on MNIST, ORL and IMDB; those splits are run by "
          "benchmarks/bench_deep.py (fashion-MNIST, ORL 5/7/9 per person, letter, digits). RaF here has "
          "n_estimators trees, fewer than the deep models' total (see n_trees_ of the fitted models).",
))
