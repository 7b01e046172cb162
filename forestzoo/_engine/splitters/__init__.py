"""Split kernels.

Every kernel evaluates one candidate feature of one node and, if it beats
the split already held in the record ``rec`` (a float64 vector indexed by the
``REC_*`` constants of :mod:`._common`), overwrites it.  They return whether
the feature is non-constant in the node: the grower draws ``max_features``
features and more while every one drawn was constant, as scikit-learn does.

* :func:`.hist.split_histogram_cls` / ``_reg`` -- best split over a 256-bin
  histogram (``splitter="hist"``), with :func:`.hist.build_histogram_cls` /
  ``_reg`` and a sorted scan over codes for small nodes;
* :func:`.exact.split_exact_cls` / ``_reg`` -- best split over sorted raw values, thresholds
  at midpoints as in CART (``splitter="exact"``);
* :func:`.random.split_random` -- one uniform threshold between the node's
  min and max (Extra Trees, ``splitter="random"``);
* :func:`.stochastic.split_stochastic_cls` / ``_reg`` -- stochastic split search (SDT):
  features are scored on growing random subsets of the node and the worse
  half discarded each round; the exact search runs on the survivors only
  (``splitter="stochastic"``).  Unlike the others it works on the whole node
  at once.

The kernels the grower calls come in a classification and a regression
variant (``*_cls``, ``*_reg``), each compiled with the task a constant, so
that a fit compiles only its own task's statistics.

Oblique splits are not a kernel: a *node model* (:mod:`..node_model`)
proposes them from Python and the grower partitions by its mask.
"""

#: Splitter names and their kernel codes; "best" is scikit-learn's name of the exact search.
SPLITTERS = {"hist": 0, "exact": 1, "best": 1, "random": 2, "stochastic": 3}
HIST, EXACT, RANDOM, STOCHASTIC = 0, 1, 2, 3
