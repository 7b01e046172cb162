"""Competence-area decision forests (Donskoy 2016): CAF-first and CAF-vote."""

from ..registry import register_model


@register_model("CAF-vote", "competence-area forest of smart trees, weighted vote of the competent trees "
                "(gamma by 3-fold CV; the number of trees is found by the fit, n_estimators is ignored)",
                family="competence", reference="Donskoy 2016")
def _caf_vote(n_estimators, n_jobs, random_state):
    from forestzoo.competence import CompetenceForestClassifier

    return CompetenceForestClassifier(strategy="weighted_vote", n_jobs=n_jobs, random_state=random_state)


@register_model("CAF-first", "competence-area forest of smart trees, first competent tree answers; rejected "
                "objects get the fallback class (gamma by 3-fold CV; n_estimators is ignored)",
                family="competence", reference="Donskoy 2016")
def _caf_first(n_estimators, n_jobs, random_state):
    from forestzoo.competence import CompetenceForestClassifier

    return CompetenceForestClassifier(strategy="first_competent", n_jobs=n_jobs, random_state=random_state)
