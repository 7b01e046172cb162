"""One-vs-all and heterogeneous oblique random forests under the lecture's names (Katuwal, Suganthan & Zhang).

obRaF(L/RR/S/LS/LR/M): one linear classifier (LDA, ridge regression, linear SVM,
LS-SVM, logistic regression, MPSVM) on the K one-vs-all partitions of every
node; obRaF(H): the six of them on ranked one-vs-all and hyperclass partitions
(lecture Algorithm 2).  All are Random Forests of oblique trees: bootstrap,
sqrt(n_features) candidate features per node, Gini.

Suite ``lecture-obraf``: RaF and the seven obRaF forests under the lecture's
protocol (10 x 3-fold CV on the lecture datasets available offline), 100 trees.
"""

from ..registry import Suite, register_model, register_suite
from ..suites import LECTURE_DATASETS

_ONE_VS_ALL = {
    "L": ("lda", "LDA (Fisher, Tikhonov-regularised)"),
    "RR": ("rr", "ridge regression (GCV penalty)"),
    "S": ("svm", "linear SVM (squared hinge)"),
    "LS": ("lssvm", "least-squares SVM"),
    "LR": ("lr", "logistic regression"),
    "M": ("mpsvm", "MPSVM bisectors"),
}


def _register_one_vs_all(letter):
    node_model, doc = _ONE_VS_ALL[letter]

    def factory(n_estimators, n_jobs, random_state):
        from forestzoo.oblique._ova import OneVsAllObliqueForestClassifier

        return OneVsAllObliqueForestClassifier(n_estimators=n_estimators, node_model=node_model, n_jobs=n_jobs,
                                               random_state=random_state)

    register_model(f"obRaF({letter})", f"one-vs-all oblique random forest, {doc} at every node",
                   family="oblique", reference="Katuwal, Suganthan & Zhang 2020", quick=False)(factory)


for _letter in _ONE_VS_ALL:
    _register_one_vs_all(_letter)


@register_model("obRaF(H)", "heterogeneous oblique random forest: six linear models on ranked one-vs-all and "
                "hyperclass partitions (lecture Algorithm 2)", family="oblique",
                reference="Katuwal, Suganthan & Zhang 2020")
def _obraf_h(n_estimators, n_jobs, random_state):
    from forestzoo.oblique._heterogeneous import HeterogeneousObliqueForestClassifier

    return HeterogeneousObliqueForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


register_suite(Suite(
    name="lecture-obraf",
    description="heterogeneous and one-vs-all oblique random forests vs RaF: the lecture's 10 x 3-fold "
                "stratified CV, 100 trees, on every lecture dataset available offline",
    datasets=LECTURE_DATASETS,
    models=("RaF", "obRaF(L)", "obRaF(RR)", "obRaF(S)", "obRaF(LS)", "obRaF(LR)", "obRaF(M)", "obRaF(H)"),
    protocol="cv", folds=3, repeats=10, n_estimators=100,
    notes="The lecture reports average Friedman ranks over 121 UCI datasets (RaF 5.4, obRaF(L) 4.28, "
          "obRaF(RR) 6.13, obRaF(S) 5.65, obRaF(LS) 5.14, obRaF(LR) 5.46, obRaF(M) 4.43, obRaF(H) 3.44; "
          "shared/paper_tables/lecture_obraf_friedman_ranks.csv), not per-dataset accuracies.",
))

register_suite(Suite(
    name="lecture-obraf-sndf",
    description="obRaF(H) and RaF on the datasets of the lecture's sNDF comparison (Table 5) available "
                "offline, official train/test splits, 100 trees",
    datasets=("satimage_landsat", "optdigits", "pendigits"),
    models=("RaF", "obRaF(H)"),
    protocol="official", repeats=1, n_estimators=100,
    paper_table="lecture_sndf_vs_obraf_h_accuracy.csv",
    notes="The lecture's Table 5 names these datasets st-landsat, optical and pendigits (obRaF(H) 91.96, "
          "97.19, 97.14 %; sNDF 89.35, 96.99, 96.97 %); its protocol is not stated.",
))
