"""Rotation Forest (RoF) and Random Rotation Forest (RRoF), under the lecture's names."""

from ..registry import register_model

_REF = "Rodriguez et al. 2006; Zhang & Suganthan 2015"


@register_model("RoF", "forestzoo RotationForestClassifier: PCA of random 3-feature subsets per tree, "
                "CART on X R with every rotated feature at every node", family="ensemble",
                reference="Rodriguez et al. 2006")
def _rof(n_estimators, n_jobs, random_state):
    from forestzoo.ensemble import RotationForestClassifier

    return RotationForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("RRoF", "Random Rotation Forest: RoF with sqrt(n_features) rotated features drawn at every node",
                family="ensemble", reference=_REF)
def _rrof(n_estimators, n_jobs, random_state):
    from forestzoo.ensemble import RotationForestClassifier

    return RotationForestClassifier(n_estimators=n_estimators, max_features="sqrt", n_jobs=n_jobs,
                                    random_state=random_state)
