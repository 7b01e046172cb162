"""MPSVM oblique forests (Zhang & Suganthan 2015) under the lecture's names: MP{RaF,RoF,RRoF}-{T,P,N}.

-T: Tikhonov regularisation of a singular G / H; -P: axis-parallel splits from a
singular node down; -N: the null-space method.  MPRaF: bootstrap, sqrt(n_features)
candidate features per node; MPRoF: a rotation per tree, every rotated feature at
every node; MPRRoF: a rotation per tree and sqrt(n_features) rotated features per node.
"""

from ..registry import register_model

_REGULARIZATIONS = {"T": ("tikhonov", "Tikhonov"), "P": ("axis", "axis-parallel"), "N": ("null_space", "null-space")}
_FORESTS = {
    "MPRaF": (dict(), "random forest (bootstrap, sqrt features per node)"),
    "MPRoF": (dict(rotation=True, bootstrap=False, max_features=None), "rotation forest (all rotated features)"),
    "MPRRoF": (dict(rotation=True, bootstrap=False, max_features="sqrt"),
               "random rotation forest (sqrt rotated features per node)"),
}


def _register(forest, suffix):
    params, forest_doc = _FORESTS[forest]
    regularization, reg_doc = _REGULARIZATIONS[suffix]

    def factory(n_estimators, n_jobs, random_state):
        from forestzoo.oblique import MPSVMForestClassifier

        return MPSVMForestClassifier(n_estimators=n_estimators, regularization=regularization, n_jobs=n_jobs,
                                     random_state=random_state, **params)

    register_model(f"{forest}-{suffix}", f"MPSVM oblique {forest_doc}, {reg_doc} regularisation",
                   family="oblique", reference="Zhang & Suganthan 2015",
                   quick=(forest == "MPRaF"))(factory)


for _forest in _FORESTS:
    for _suffix in _REGULARIZATIONS:
        _register(_forest, _suffix)
