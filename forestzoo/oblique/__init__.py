"""Oblique forests: linear node models, class partitions, and the forests built on them.

The family plugs into the engine's node-model seam (``forestzoo._engine.api.NodeModel``)
through three small pieces; a new oblique forest adds a model or a partition
strategy, never a tree builder.

Linear node model
    Any object with ``fit_hyperplanes(Z, t, sample_weight) -> (W, b)``:
    ``Z`` (float64, shape (n, q)) is the node's block of candidate features,
    standardised over the node (weighted mean 0, standard deviation 1; rows
    with a NaN removed), ``t`` a boolean mask of the positive hyperclass and
    ``sample_weight`` the rows' weights (bootstrap counts x sample and class
    weights).  It returns ``k >= 0`` candidate hyperplanes, ``W`` of shape
    (k, q) and ``b`` of shape (k,): a row goes left when ``W[j] . z <= b[j]``.
    It raises :class:`SingularNodeError` when the problem is singular and the
    model's rule is to fall back to axis-parallel splits for the subtree.
    :class:`MPSVM` (two angle bisectors of the MPSVM clustering planes, with
    -T / -P / -N regularisation) is the first implementation.

Partition strategy
    ``strategy(Z, yk, w) -> list of boolean masks`` (one per binary problem to
    try; empty with fewer than two classes).  :func:`multi2binary`
    (Bhattacharyya-distance hyperclasses) and :func:`one_vs_all` are provided.

Node model and forest
    :class:`LinearNodeModel` draws ``max_features`` non-constant candidate
    features at the node, standardises them, asks every model for every
    partition, maps each hyperplane back to the original features (through
    the tree's rotation, if any), scores it with the tree's criterion (at its
    own offset, or at the best threshold along its normal) and returns the
    best as an oblique split stored in the tree's side arrays.
    :class:`LinearObliqueForestMixin` builds one per tree from the hooks
    ``_linear_models()`` and ``_partition_strategy()``; combined with
    ``forestzoo.ensemble._forest.ForestClassifier`` it gives a full
    scikit-learn forest (see :class:`MPSVMForestClassifier`).

One-vs-all and heterogeneous forests (Katuwal, Suganthan & Zhang; the lecture's obRaF)
    :class:`OneVsAllObliqueForestClassifier` fits one linear model (LDA, ridge
    regression, linear SVM, LS-SVM, logistic regression or MPSVM: :class:`LDA`,
    :class:`RidgeRegression`, :class:`LinearSVM`, :class:`LSSVM`,
    :class:`LogisticRegression`, :class:`MPSVMModel`) on the K one-vs-all
    partitions of every node -- obRaF(L/RR/S/LS/LR/M).
    :class:`HeterogeneousObliqueForestClassifier` is obRaF(H): the six models
    on ranked one-vs-all and hyperclass partitions (lecture Algorithm 2).
"""

from ._forest import LinearObliqueForestMixin, MPSVMForestClassifier
from ._heterogeneous import HeterogeneousObliqueForestClassifier
from ._linear_models import LDA, LSSVM, MPSVMModel, LinearSVM, LogisticRegression, RidgeRegression
from ._mpsvm import MPSVM, SingularNodeError
from ._node_model import LinearNodeModel
from ._ova import OneVsAllObliqueForestClassifier
from ._partition import bhattacharyya_distances, multi2binary, one_vs_all

__all__ = ["MPSVMForestClassifier", "OneVsAllObliqueForestClassifier", "HeterogeneousObliqueForestClassifier"]
