"""The engine's public face: the one module that code outside :mod:`forestzoo._engine` imports.

The engine's other modules are private to it; estimators, families,
benchmarks and tools import from here.  The names are the engine's own
objects re-exported unchanged (a compiled function is the same Numba
dispatcher, so it can be called from other ``@njit`` code), grouped by what
they are for:

* **training data** -- :class:`TrainingData`, :func:`prepare_data`
  (binned codes, the feature-major float matrix or, for a scipy sparse
  ``X``, its CSC layout; built once per fit),
  :func:`resolve_max_features` (``max_features`` as a number of features)
  and :func:`bin_data` (codes of rows on given bin edges);
* **growing** -- :func:`grow` grows one tree from a :class:`TreeParams`
  (the resolved growth parameters; :data:`SDT_DEFAULTS` the stochastic
  splitter's defaults) and a :class:`TreeTarget` (class codes or targets),
  or a :class:`MultiOutputTarget` for a tree of several outputs
  (:func:`check_multi_output` says which parameters it refuses;
  :data:`MULTI_OUTPUT_CRITERIA` its criteria);
* **node models** -- :class:`NodeModel`, the seam through which a family
  proposes splits the split kernels do not express (oblique and Haar
  nodes): the ``NODE_*`` answers and ``OUT_*`` slots of its protocol, and
  the compiled helpers :func:`project`, :func:`fill_go_left` and
  :func:`best_threshold`;
* **split scoring** -- the compiled pieces of the split search a node model
  reuses in its own ``@njit`` code: :func:`add_sample` (one row into a
  statistics vector), :func:`evaluate_split` (cost of a candidate split,
  NaN side chosen), :func:`scan_sorted` (best threshold over sorted
  values; :func:`scan_sorted_cls` compiles classification code only),
  :func:`weighted_impurity`, and the stochastic (SDT) search's
  :func:`sdt_plan`, :func:`sdt_draw`, :func:`sdt_score_feature_cls` /
  :func:`sdt_score_feature_reg` (one per task), :func:`sdt_keep_best` and
  :func:`sort_pairs`;
* **fitted trees and the predictor** -- :class:`Tree` (and the
  prediction-only :class:`LeafValueTree` and :class:`PredictionTree`), the
  node record :data:`NODE_DTYPE` with :data:`TREE_LEAF` marking a leaf, the
  compact prediction record :data:`COMPACT_DTYPE`, and
  the compiled predictor kernels :func:`apply_compact` (and
  the walk :func:`branch_walker` picks, :func:`apply_by_branch_preorder` or
  :func:`apply_by_branch`, where :func:`walk_by_branch` says so; the walk
  in refilling lanes :func:`apply_lanes`, where :func:`walk_in_lanes` says
  so from the tree's :func:`path_spread`),
  :func:`accumulate_compact`, :func:`accumulate_compact_leaves`,
  :func:`accumulate_tree` and :func:`oblique_side` (the side a row takes at
  an oblique node), :func:`add_leaf_values` / :func:`add_leaf_rows` (a
  tree's leaf values added per row), and for a scipy sparse ``X``
  the walk :func:`csr_walker` picks (:func:`apply_csr_preorder` for a tree
  numbered in preorder, :func:`apply_csr` otherwise) over :func:`csr_arrays`
  where :func:`walks_csr` (axis-aligned trees) or else
  :func:`dense_row_blocks`, which hands the walkers dense blocks of rows;
* **edits** -- pure edits of fitted trees: :func:`compact`,
  :func:`empty_nodes`, :func:`expand_leaves`, :func:`prune_to_leaves`,
  :func:`node_sums`, :func:`values_from_sums`, :func:`class_targets`,
  :func:`regression_targets` and :func:`refit_values`;
* **pruning** -- :func:`cost_complexity_path`, the minimal cost-complexity
  pruning path of a fitted tree;
* **random numbers** -- :func:`draw_seeds` (per-tree seeds from a
  ``random_state``), :func:`make_state` and the in-kernel generators
  :func:`rng_randint` and :func:`rng_uniform`;
* **constants** -- :data:`MAX_BINS`, the splitter codes :data:`SPLITTERS`
  (``HIST``, ``EXACT``, ``RANDOM``, ``STOCHASTIC``) and the criterion codes
  :data:`CRITERIA` (``GINI``, ``ENTROPY``, ``SQUARED_ERROR``).
"""

from .binning import MAX_BINS, bin_data, split_threshold
from .builder import (
    MULTI_OUTPUT_CRITERIA, SDT_DEFAULTS, MultiOutputTarget, TrainingData, TreeParams, TreeTarget, check_multi_output, grow,
    prepare_data, resolve_max_features,
)
from .criteria import CRITERIA, ENTROPY, GINI, SQUARED_ERROR, weighted_impurity
from .edit import (
    class_targets, compact, empty_nodes, expand_leaves, node_sums, prune_to_leaves, refit_values, regression_targets,
    values_from_sums,
)
from .node_model import (
    NODE_AXIS, NODE_AXIS_SUBTREE, NODE_LEAF, NODE_OBLIQUE, OUT_COST, OUT_MISSING_LEFT, OUT_OBLIQUE, OUT_SIZE,
    OUT_THRESHOLD, NodeModel, best_threshold, fill_go_left, project,
)
from .prune import cost_complexity_path
from .rng import draw_seeds, make_state, rng_randint, rng_uniform
from .splitters import EXACT, HIST, RANDOM, SPLITTERS, STOCHASTIC
from .splitters._common import add_sample, scan_sorted, scan_sorted_cls
from .splitters._common import evaluate as evaluate_split
from .splitters.stochastic import (
    sdt_draw, sdt_keep_best, sdt_plan, sdt_score_feature_cls, sdt_score_feature_reg, sort_pairs,
)
from .tree import (
    COMPACT_DTYPE, NODE_DTYPE, TREE_LEAF, LeafValueTree, PredictionTree, Tree, accumulate_compact, accumulate_compact_leaves,
    accumulate_tree, add_leaf_rows, add_leaf_values, apply_by_branch, apply_by_branch_preorder, apply_compact,
    apply_csr, apply_csr_preorder, apply_lanes, branch_walker, csr_arrays, csr_walker, dense_row_blocks, is_preorder,
    path_spread, walk_by_branch, walk_in_lanes, walks_csr,
)
from .tree import _oblique_side as oblique_side

__all__ = [
    # training data
    "TrainingData", "prepare_data", "resolve_max_features", "bin_data",
    # growing
    "grow", "TreeParams", "TreeTarget", "SDT_DEFAULTS", "MultiOutputTarget", "check_multi_output",
    "MULTI_OUTPUT_CRITERIA",
    # node models
    "NodeModel", "NODE_AXIS", "NODE_AXIS_SUBTREE", "NODE_LEAF", "NODE_OBLIQUE",
    "OUT_COST", "OUT_MISSING_LEFT", "OUT_OBLIQUE", "OUT_SIZE", "OUT_THRESHOLD",
    "best_threshold", "fill_go_left", "project",
    # split scoring
    "add_sample", "evaluate_split", "scan_sorted", "scan_sorted_cls", "split_threshold", "weighted_impurity",
    "sdt_draw", "sdt_keep_best", "sdt_plan", "sdt_score_feature_cls", "sdt_score_feature_reg", "sort_pairs",
    # fitted trees and the predictor
    "Tree", "LeafValueTree", "PredictionTree", "NODE_DTYPE", "COMPACT_DTYPE", "TREE_LEAF",
    "accumulate_compact", "accumulate_compact_leaves", "accumulate_tree", "apply_compact", "dense_row_blocks",
    "oblique_side", "apply_csr", "apply_csr_preorder", "csr_walker", "is_preorder", "csr_arrays", "walks_csr",
    "add_leaf_values", "add_leaf_rows",
    "walk_by_branch", "apply_by_branch", "apply_by_branch_preorder", "branch_walker",
    "walk_in_lanes", "apply_lanes", "path_spread",
    # edits
    "class_targets", "compact", "empty_nodes", "expand_leaves", "node_sums", "prune_to_leaves", "refit_values",
    "regression_targets", "values_from_sums",
    # pruning
    "cost_complexity_path",
    # random numbers
    "draw_seeds", "make_state", "rng_randint", "rng_uniform",
    # constants
    "MAX_BINS", "SPLITTERS", "HIST", "EXACT", "RANDOM", "STOCHASTIC", "CRITERIA", "GINI", "ENTROPY", "SQUARED_ERROR",
]
