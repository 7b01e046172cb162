"""Private compiled tree engine: arrays in, arrays out, no scikit-learn objects.

Modules, one job each:

* :mod:`.tree` -- the fitted-tree arrays (node dtype, values, oblique side
  arrays) and the predictor kernels ``apply`` / ``predict`` / ``decision_path``;
* :mod:`.binning` -- quantile bin edges and ``X -> uint8`` codes;
* :mod:`.criteria` -- weighted impurity of a node's sufficient statistics;
* :mod:`.splitters` -- the split kernels (``hist``, ``exact``, ``random``);
* :mod:`.grower` -- the single tree grower (depth-first or best-first);
* :mod:`.rng` -- a small counter-based RNG usable inside kernels.
"""
