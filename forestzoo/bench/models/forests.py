"""Random Forest and Extra Trees, forestzoo's and scikit-learn's (for reference)."""

from ..registry import register_model


@register_model("RaF", "forestzoo RandomForestClassifier (histogram splitter)", family="ensemble",
                reference="Breiman 2001")
def _forestzoo_rf(n_estimators, n_jobs, random_state):
    from forestzoo.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("ET", "forestzoo ExtraTreesClassifier (random thresholds)", family="ensemble",
                reference="Geurts et al. 2006")
def _forestzoo_et(n_estimators, n_jobs, random_state):
    from forestzoo.ensemble import ExtraTreesClassifier

    return ExtraTreesClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("sk-RF", "scikit-learn RandomForestClassifier, for reference", family="peer")
def _sklearn_rf(n_estimators, n_jobs, random_state):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("sk-ET", "scikit-learn ExtraTreesClassifier, for reference", family="peer")
def _sklearn_et(n_estimators, n_jobs, random_state):
    from sklearn.ensemble import ExtraTreesClassifier

    return ExtraTreesClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)
