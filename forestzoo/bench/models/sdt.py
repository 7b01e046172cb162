"""Stochastic decision trees (SDT) and Haar trees ("Stochastic induction of decision trees with
application to learning Haar tree"), with the exact CART tree they are compared with."""

from ..registry import Suite, register_model, register_suite

_REF = "Stochastic induction of decision trees with application to learning Haar tree"
_DEPTH = 12  # the deepest trees of the paper's Figures 1-3 (depths 5-12)


@register_model("SDT", f"forestzoo DecisionTreeClassifier(splitter='stochastic', max_depth={_DEPTH}): SDT split "
                "search, C=10, alpha=8, 0.5 % of the features kept, N_0=20; a single tree, n_estimators is ignored",
                family="tree", reference=_REF)
def _sdt(n_estimators, n_jobs, random_state):
    from forestzoo.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(splitter="stochastic", max_depth=_DEPTH, random_state=random_state)


@register_model("CART", f"forestzoo DecisionTreeClassifier(splitter='exact', max_depth={_DEPTH}): the exhaustive "
                "search SDT is compared with; a single tree, n_estimators is ignored", family="tree",
                reference="Breiman et al. 1984")
def _cart(n_estimators, n_jobs, random_state):
    from forestzoo.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(splitter="exact", max_depth=_DEPTH, random_state=random_state)


@register_model("SDT-RF", "forestzoo RandomForestClassifier(splitter='stochastic'): bootstrap, sqrt(n_features) "
                "candidates per node searched by SDT", family="ensemble", reference=_REF)
def _sdt_rf(n_estimators, n_jobs, random_state):
    from forestzoo.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=n_estimators, splitter="stochastic", n_jobs=n_jobs,
                                  random_state=random_state)


@register_model("HaarTree", f"forestzoo HaarTreeClassifier(max_depth={_DEPTH}): SDT over the 123,008 Haar features "
                "of a 28 x 28 image (square images; a row that is not a square is read as a one-row image); "
                "n_estimators is ignored", family="tree", reference=_REF, quick=False)
def _haar_tree(n_estimators, n_jobs, random_state):
    from forestzoo.tree import HaarTreeClassifier

    return HaarTreeClassifier(max_depth=_DEPTH, random_state=random_state)


register_suite(Suite(
    name="sdt",
    description="SDT vs the exact CART tree (depth 12) and an SDT forest, on the paper's datasets available "
                "offline",
    datasets=("satimage_landsat", "isolet_subset", "mnist_test_only", "fashion_mnist"),
    models=("SDT", "CART", "SDT-RF"),
    protocol="official", test_size=0.2, repeats=1, n_estimators=20,
    notes="Official train/test splits for satimage and fashion-MNIST; isolet_subset (1,560 rows, not the "
          "paper's 7,797) and mnist_test_only (the 10,000 MNIST test images only) have none and fall back "
          "to a stratified 80/20 holdout. Evaluation counts, depths 5-12 and the 400k-row synthetic set: "
          "benchmarks/bench_sdt.py.",
))

register_suite(Suite(
    name="sdt-haar",
    description="Haar tree vs the exact CART tree on raw pixels (both depth 12), MNIST and fashion-MNIST",
    datasets=("mnist_test_only", "fashion_mnist"),
    models=("HaarTree", "CART"),
    protocol="official", test_size=0.2, repeats=1, n_estimators=1,
    notes="fashion-MNIST uses its official 60,000 / 10,000 split (a depth-12 Haar tree takes minutes to tens of "
          "minutes there); mnist_test_only falls back to a stratified 8,000 / 2,000 holdout. The fixed "
          "8,000 / 2,000 split of the targets and inference costs: benchmarks/bench_sdt.py.",
))
