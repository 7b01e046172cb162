"""Private compiled tree engine: arrays in, arrays out, no scikit-learn objects.

:mod:`.api` is its public face: the one module that code outside the engine
(estimators, families, benchmarks) imports, re-exporting what they use.  The
other modules are internal, one job each:

* :mod:`.builder` -- the training data in the layout a splitter reads
  (:func:`.builder.prepare_data`) and the growth of one tree from resolved
  parameters (:func:`.builder.grow`, :class:`.builder.TreeParams`), which
  calls the grower and turns its node table into a :class:`.tree.Tree`;
* :mod:`.grower` -- the tree grower (depth-first or best-first),
  :func:`.grower.grower_for` compiling it for one split kernel and one task
  (classification or regression) at a time, so that a fit compiles only the
  kernel and the statistics it runs;
* :mod:`.splitters` -- the split kernels (``hist``, ``exact``, ``random``,
  ``stochastic``);
* :mod:`.criteria` -- weighted impurity of a node's sufficient statistics;
* :mod:`.data` -- how the grower and the raw-value kernels read the training
  matrix (dense or CSC layout);
* :mod:`.binning` -- quantile bin edges and ``X -> uint8`` codes;
* :mod:`.hist_threads` -- a node's histograms built on several threads;
* :mod:`.node_model` -- the seam for splits no kernel expresses (oblique
  node models, Haar features), called by the grower through ``objmode``;
* :mod:`.tree` -- the fitted-tree arrays (node dtype, values, oblique side
  arrays) and the predictor kernels ``apply`` / ``predict`` / ``decision_path``;
* :mod:`.edit` -- pure edits of fitted trees (expand, prune, refit);
* :mod:`.prune` -- minimal cost-complexity pruning;
* :mod:`.rng` -- a small counter-based RNG usable inside kernels.

The engine imports nothing from the estimator side (:mod:`forestzoo._base`,
the families); estimators turn their parameters into the engine's
:class:`.builder.TreeParams`.
"""
