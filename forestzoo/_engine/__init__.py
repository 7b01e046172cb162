"""Private compiled tree engine: arrays in, arrays out, no scikit-learn objects.

Modules, one job each:

* :mod:`.tree` -- the fitted-tree arrays (node dtype, values, oblique side
  arrays) and the predictor kernels ``apply`` / ``predict`` / ``decision_path``;
* :mod:`.binning` -- quantile bin edges and ``X -> uint8`` codes;
* :mod:`.criteria` -- weighted impurity of a node's sufficient statistics;
* :mod:`.splitters` -- the split kernels (``hist``, ``exact``, ``random``,
  ``stochastic``);
* :mod:`.grower` -- the tree grower (depth-first or best-first),
  :func:`.grower.grower_for` compiling it for one split kernel at a time, so
  that a fit compiles only the kernel it runs;
* :mod:`.node_model` -- the seam for splits no kernel expresses (oblique
  node models, Haar features), called by the grower through ``objmode``;
* :mod:`.hist_threads` -- a node's histograms built on several threads;
* :mod:`.prune` -- minimal cost-complexity pruning;
* :mod:`.edit` -- pure edits of fitted trees (expand, prune, refit);
* :mod:`.rng` -- a small counter-based RNG usable inside kernels.

:mod:`forestzoo._engine.builder` prepares the training data and calls the
grower; the families reach the engine through it.
"""
