"""Disjunctive normal decision trees and forests (Seyedhosseini & Tasdizen 2015): DNDT, DNRF,
the fully grown CART tree they are compared with, and the paper's two suites."""

from ..registry import Suite, register_model, register_suite

_REF = "Seyedhosseini & Tasdizen 2015"


@register_model("DNDT", "forestzoo DNDTClassifier: a CART tree rewritten in differentiable disjunctive normal "
                "form, all splits fine-tuned jointly by gradient descent (10 % validation for the epoch); a "
                "single tree, n_estimators is ignored", family="dnf", reference=_REF)
def _dndt(n_estimators, n_jobs, random_state):
    from forestzoo.dnf import DNDTClassifier

    return DNDTClassifier(random_state=random_state)


@register_model("DNRF", "forestzoo DNRFClassifier: a random forest (sqrt(d) features per node) whose trees are "
                "each converted to disjunctive normal form and fine-tuned by gradient descent; majority vote "
                "(Eqs. 9 / 13)", family="dnf", reference=_REF, quick=False)
def _dnrf(n_estimators, n_jobs, random_state):
    from forestzoo.dnf import DNRFClassifier

    return DNRFClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("DT", "forestzoo DecisionTreeClassifier(splitter='exact'), fully grown: the 'Decision tree' of "
                "the DNDT paper's Table 2 and the tree DNDT starts from; n_estimators is ignored", family="tree",
                reference="Breiman et al. 1984")
def _full_cart(n_estimators, n_jobs, random_state):
    from forestzoo.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(splitter="exact", random_state=random_state)


register_suite(Suite(
    name="dnrf-binary",
    description="DNRF and DNDT against forestzoo's random forest and a CART tree on the DNRF paper's eight "
                "binary datasets: 2/3 train - 1/3 test stratified holdouts, z-scored, repeated",
    datasets=("ionosphere", "breast_cancer_wisconsin_diag", "german_credit_numeric", "pima_diabetes",
              "statlog_heart", "ijcnn1", "australian_credit", "sonar"),
    models=("DNRF", "RaF", "DNDT", "DT"),
    protocol="holdout", test_size=1 / 3, repeats=10, n_estimators=100, preprocess="zscore",
    validation_fraction=0.1, metric="error",
    paper_table=("dnrf_table4_binary_forest_error.csv", "dnrf_table2_binary_single_tree_error.csv"),
    paper_names={"RaF": "Random forest", "DT": "Decision tree"},
    notes="The paper runs 50 repeats; 'Wisconsin breast cancer' is its 569 x 30 diagnostic set (380 + 189 rows, "
          "30 features, Table 1). IJCNN1 is a 141,691-row holdout here (the paper uses its official "
          "49,990 / 91,701 split, benchmarks/bench_dnf.py); DNRF takes long there. DNDT / DNRF hold out 10 % of "
          "the training rows themselves to choose each function's epoch.",
))

register_suite(Suite(
    name="dnrf-multiclass",
    description="DNRF against forestzoo's random forest on the DNRF paper's four multi-class datasets, "
                "official train/test splits, z-scored",
    datasets=("pendigits", "optdigits", "satimage_landsat", "letter"),
    models=("DNRF", "RaF"),
    protocol="official", repeats=1, n_estimators=100, preprocess="zscore", validation_fraction=0.1,
    metric="error", paper_table="dnrf_table6_multiclass_error.csv", paper_names={"RaF": "Random forest"},
    notes="letter has no registered split and falls back to a 1/3 holdout here; benchmarks/bench_dnf.py uses "
          "the paper's first 16,000 rows / last 4,000. The paper averages 50 runs.",
))
