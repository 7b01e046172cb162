"""RVFL network and the RVFL + decision-tree ensembles RFL and obRFL (Katuwal, Suganthan & Zhang 2018).

RFL: per bag, an RVFL routes each sample to the trees of its top-two classes
(axis-parallel Random Forest trees); obRFL: the same with one-vs-all MPSVM
oblique trees; obRF: the forest of those oblique trees without the RVFL (the
baseline of obRFL: obRaF(M) with the same axis-parallel kernel as obRFL); RVFL:
the network alone.

Suite ``lecture-rvfl``: RF (RaF), RFL, obRF, obRFL and RVFL on the multi-class
datasets of the lecture's table available offline, 10 x 3-fold CV.  The
``-tuned`` variants choose the RVFL's configuration by an inner 3-fold CV
over the lecture's grid (:class:`forestzoo.rvfl.RVFLClassifierCV`), as the
lecture does; run them with ``--models``.
"""

from ...datasets._registry import REGISTRY
from ..registry import Suite, register_model, register_suite
from ..suites import LECTURE_DATASETS


@register_model("RFL", "RVFL + Random Forest trees: per bag, one tree per class partition chosen by the "
                "RVFL's top-two classes (n_estimators = bags)", family="rvfl",
                reference="Katuwal, Suganthan & Zhang 2018")
def _rfl(n_estimators, n_jobs, random_state):
    from forestzoo.rvfl import RVFLForestClassifier

    return RVFLForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("obRFL", "RVFL + one-vs-all MPSVM oblique trees (n_estimators = bags)", family="rvfl",
                reference="Katuwal, Suganthan & Zhang 2018", quick=False)
def _obrfl(n_estimators, n_jobs, random_state):
    from forestzoo.rvfl import RVFLForestClassifier

    return RVFLForestClassifier(n_estimators=n_estimators, tree="oblique", n_jobs=n_jobs,
                                random_state=random_state)


@register_model("obRF", "oblique Random Forest of one-vs-all MPSVM trees, the baseline of obRFL (obRaF(M) "
                "with obRFL's histogram kernel for axis-parallel fallbacks)", family="rvfl",
                reference="Katuwal & Suganthan 2018", quick=False)
def _obrf(n_estimators, n_jobs, random_state):
    from forestzoo.oblique._ova import OneVsAllObliqueForestClassifier

    return OneVsAllObliqueForestClassifier(n_estimators=n_estimators, node_model="mpsvm", splitter="hist",
                                           n_jobs=n_jobs, random_state=random_state)


@register_model("RVFL", "random vector functional link network, 100 relu hidden units, direct links, "
                "lambda = 1 (n_estimators is ignored)", family="rvfl", reference="Pao et al. 1994")
def _rvfl(n_estimators, n_jobs, random_state):
    from forestzoo.rvfl import RVFLClassifier

    return RVFLClassifier(random_state=random_state)


@register_model("RVFL-tuned", "RVFL whose hidden units, activation, scale and ridge penalty are chosen by 3-fold CV "
                "on the training data over the lecture's grid (n_estimators is ignored)", family="rvfl",
                reference="Katuwal, Suganthan & Zhang 2018", quick=False)
def _rvfl_tuned(n_estimators, n_jobs, random_state):
    from forestzoo.rvfl import RVFLClassifierCV

    return RVFLClassifierCV(n_jobs=n_jobs, random_state=random_state)


@register_model("RFL-tuned", "RFL whose RVFLs take the configuration of RVFL-tuned's search (n_estimators = bags)",
                family="rvfl", reference="Katuwal, Suganthan & Zhang 2018", quick=False)
def _rfl_tuned(n_estimators, n_jobs, random_state):
    from forestzoo.rvfl import RVFLForestClassifier

    return RVFLForestClassifier(n_estimators=n_estimators, tune_rvfl=True, n_jobs=n_jobs, random_state=random_state)


@register_model("obRFL-tuned", "obRFL whose RVFLs take the configuration of RVFL-tuned's search "
                "(n_estimators = bags)", family="rvfl", reference="Katuwal, Suganthan & Zhang 2018", quick=False)
def _obrfl_tuned(n_estimators, n_jobs, random_state):
    from forestzoo.rvfl import RVFLForestClassifier

    return RVFLForestClassifier(n_estimators=n_estimators, tree="oblique", tune_rvfl=True, n_jobs=n_jobs,
                                random_state=random_state)


#: The lecture datasets with more than two classes (the RVFL hybrids are multi-class methods).
MULTICLASS_LECTURE_DATASETS = tuple(n for n in LECTURE_DATASETS if REGISTRY[n].n_classes > 2)

register_suite(Suite(
    name="lecture-rvfl",
    description="RVFL + decision-tree ensembles (RFL, obRFL) vs RF, obRF and RVFL on the multi-class "
                "lecture datasets available offline, 10 x 3-fold CV, 100 bags / trees",
    datasets=MULTICLASS_LECTURE_DATASETS,
    models=("RaF", "RFL", "obRF", "obRFL", "RVFL"),
    protocol="cv", folds=3, repeats=10, n_estimators=100,
    notes="The lecture reports average ranks over 65 multi-class UCI datasets (RF 2.79, RFL 2.66, obRF 3.12, "
          "obRFL 2.79, RVFL 3.62; N > 500: RF 2.55, RFL 2.09, obRF 3.01, obRFL 2.33) with 500 trees and "
          "tuned RVFLs (shared/paper_tables/lecture_rvfl_forest_ranks.csv); RVFL, RFL and obRFL here are untuned, "
          "RVFL-tuned, RFL-tuned and obRFL-tuned search the lecture's grid (add them with --models).",
))
