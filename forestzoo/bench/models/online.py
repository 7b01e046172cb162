"""Online random forests (partial_fit), registered for ``forestzoo bench``.

In a batch protocol (cross-validation, hold-out) ``fit`` makes one pass over
the training rows in order; the streaming comparison with river's ARF and AMF
(prequential accuracy, throughput) is benchmarks/bench_online.py.
"""

from ..registry import register_model


@register_model("ORF", "forestzoo OnlineRandomForestClassifier (one pass of partial_fit)", family="online",
                reference="Saffari et al. 2009")
def _orf(n_estimators, n_jobs, random_state):
    from forestzoo.online import OnlineRandomForestClassifier

    return OnlineRandomForestClassifier(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)


@register_model("ORF-reg", "forestzoo OnlineRandomForestRegressor (lecture Algorithm 1, Eq. 5-9)",
                task="regression", family="online", reference="Wang et al. 2018")
def _orf_reg(n_estimators, n_jobs, random_state):
    from forestzoo.online import OnlineRandomForestRegressor

    return OnlineRandomForestRegressor(n_estimators=n_estimators, n_jobs=n_jobs, random_state=random_state)
