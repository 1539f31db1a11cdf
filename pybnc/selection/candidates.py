"""The learners :class:`~pybnc.selection.AutoBNC` chooses among, in rounds.

Round 1, the encoding: naive Bayes and TAN under every encoding the table calls for:
the discretiser of the numeric columns (Fayyad-Irani MDL, equal-frequency 5 and 10
bins) when there are numeric columns, and summing missing values out or making them a
level (``missing="category"``) when there are missing values. The encoding of the
round's choice is kept for the next rounds. Where at least :data:`RARE_SHARE` of the
categorical columns' levels are seen fewer than :data:`RARE_MIN_FREQUENCY` times in the
training rows, every candidate groups those levels into one (``min_frequency``; each
fold groups its own): the tables stay small and a row with a rare level reads what the
rare levels had in common.

Round 2, the learners under that encoding: AODE, kDB with k = 2 (Dirichlet smoothing)
and k = 1, 2, 3 with back-off smoothing, SKDB, and the discriminative variants
(``weighting="discriminative"``) of naive Bayes, TAN, AODE and kDB(k=2) where their
class has them, each with the fixed penalties of :data:`DISCRIMINATIVE_PENALTIES`, so
that AutoBNC's own folds choose the penalty (a penalty chosen inside every fit costs
about ten fits). The discriminative AODE is offered while its design has at most
:data:`DISCRIMINATIVE_AODE_MAX_ENTRIES` entries (its cost grows with the square of the
columns). A2DE and kDB with k = 5 are left out: many times the cost, never the choice.

With numeric columns and rows for at least :data:`PROPORTIONAL_MIN_BINS` bins, AODE on
*proportional* bins (about ``sqrt(n)`` equal-frequency bins of ``sqrt(n)`` rows; Yang &
Webb, ECML 2001; :func:`proportional_bins`) is a candidate while its pair tables hold at
most :data:`PROPORTIONAL_MAX_CELLS` cells: its finer cuts recall combinations that ten
bins merge. On tables of at most :data:`BAGGING_MAX_ROWS` rows and
:data:`BAGGING_MAX_COLUMNS` columns, bagged TAN and AODE
(:class:`pybnc.averaging.BaggedBNC`, :data:`BAGGING_MEMBERS` members) are candidates
too: on small tables the average of bootstrap copies evens out the chance of one sample
(a cut point, an arc, a sparse cell).

Each candidate has a *complexity* rank, used by the one-standard-error rule
(:mod:`pybnc.selection.rules`): naive Bayes is simplest, then the one-dependence
models, then the two- and three-dependence ones; a discriminative variant ranks one
above its generative self (it adds a weight per table cell), the weaker penalty a
little above the stronger. The measurements behind these choices are in
``benchmarks/autobnc_candidates.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone

from ..averaging import AODE, BaggedBNC
from ..encode import Encoder
from ..estimators import TAN, NaiveBayes
from ..estimators.capabilities import capabilities
from ..search import KDB, SKDB

#: The default encoding first: the one-standard-error rule prefers it.
DEFAULT_ENCODING = {"discretizer": "mdl", "n_bins": 5, "missing": "sum"}
DISCRETISERS = ({"discretizer": "mdl", "n_bins": 5}, {"discretizer": "quantile", "n_bins": 5},
                {"discretizer": "quantile", "n_bins": 10})
#: Levels seen fewer than this many times in the training rows are rare ...
RARE_MIN_FREQUENCY = 3
#: ... and where they are at least this share of the categorical levels, every
#: candidate groups them.
RARE_SHARE = 1 / 3
#: The penalties of the discriminative candidates, strongest (simplest) first.
DISCRIMINATIVE_PENALTIES = (1.0, 0.01)
#: The round-2 learners whose discriminative variants are candidates.
DISCRIMINATIVE_LEARNERS = ("NB", "TAN", "AODE", "KDB(k=2)")
#: Bagged candidates are offered on tables of at most this many rows and columns ...
BAGGING_MAX_ROWS = 2000
BAGGING_MAX_COLUMNS = 100
#: ... with this many members each.
BAGGING_MEMBERS = 10
#: Most design entries (training rows x columns^2) of a discriminative AODE candidate.
DISCRIMINATIVE_AODE_MAX_ENTRIES = 1 << 24
#: AODE on proportional bins is offered from this many bins (finer than the encodings' 10) ...
PROPORTIONAL_MIN_BINS = 20
#: ... while its pair tables (one-hot width^2 x classes) have at most this many cells.
PROPORTIONAL_MAX_CELLS = 1 << 24


def proportional_bins(facts: "TableFacts") -> int:
    """The bins of the AODE candidate on proportional bins, 0 where it is not offered.

    Proportional discretisation (Yang & Webb, 2001) cuts a numeric column of ``n`` rows
    into about ``sqrt(n)`` bins of ``sqrt(n)`` rows: the bins grow finer as the rows
    allow. AODE reads each pair of columns given the class, so on tables of a few
    thousand rows its finer cuts recall combinations that ten bins merge."""
    if not facts.n_numeric:
        return 0
    bins = int(round(np.sqrt(facts.n_rows)))
    width = facts.categorical_levels + facts.n_numeric * bins  # the one-hot columns
    if bins < PROPORTIONAL_MIN_BINS or width * width * facts.n_classes > PROPORTIONAL_MAX_CELLS:
        return 0
    return bins


@dataclass
class Candidate:
    """One learner to cross-validate.

    Attributes
    ----------
    name : str
        Unique, readable (``"KDB(k=2)"``, ``"TAN quantile(10) missing=category"``).
    estimator : estimator
        Unfitted.
    complexity : float
        Rank for the one-standard-error rule (smaller is simpler).
    round : int
        The round that evaluates it (1: encoding, 2: learners; 1 for a user's own).
    encoding : dict
        ``discretizer``, ``n_bins``, ``missing`` of the default candidates (empty for a
        user's own).
    n_classes, n_features, n_rows : int
        The table's classes, columns and rows, where the candidate's cost grows with
        them (a weight per class and cell, and for an averaged model a cell per pair of
        columns: the discriminative variants); 2, 0 and 0 otherwise.
    """

    name: str
    estimator: object
    complexity: float
    round: int = 1
    encoding: dict = field(default_factory=dict)
    n_classes: int = 2
    n_features: int = 0
    n_rows: int = 0


@dataclass(frozen=True)
class TableFacts:
    """What decides the default candidates: read from the training table's encoding."""

    n_rows: int
    n_classes: int
    cardinalities: tuple
    has_numeric: bool
    has_missing: bool
    rare_levels: int = 0  # levels seen fewer than RARE_MIN_FREQUENCY times (in columns with two or more)
    categorical_levels: int = 0  # levels of the categorical columns
    n_numeric: int = 0  # numeric (discretised) columns


def encoding_name(encoding: dict) -> str:
    """``""`` for the default encoding, else what differs: ``"quantile(10) missing=category"``."""
    parts = []
    if encoding.get("discretizer", "mdl") != "mdl":
        parts.append(f"{encoding['discretizer']}({encoding['n_bins']})")
    if encoding.get("missing", "sum") != "sum":
        parts.append(f"missing={encoding['missing']}")
    if encoding.get("min_frequency", 1) > 1:
        parts.append(f"min_frequency={encoding['min_frequency']}")
    return " ".join(parts)


def groups_rare_levels(facts: TableFacts) -> bool:
    """Whether every candidate groups the rare levels (a third of the levels are rare)."""
    return facts.rare_levels >= 2 and facts.rare_levels >= RARE_SHARE * facts.categorical_levels


def encodings(facts: TableFacts) -> list:
    """The encodings round 1 compares, the default first (each with the rare levels
    grouped, where :func:`groups_rare_levels`)."""
    discretisers = DISCRETISERS if facts.has_numeric else DISCRETISERS[:1]
    missing = ("sum", "category") if facts.has_missing else ("sum",)
    plain = [{**d, "missing": m} for m in missing for d in discretisers]
    if not groups_rare_levels(facts):
        return plain
    return [{**e, "min_frequency": RARE_MIN_FREQUENCY} for e in plain]


def _named(learner: str, encoding: dict) -> str:
    tag = encoding_name(encoding)
    return f"{learner} {tag}" if tag else learner


def _with(estimator, encoding: dict, shared):
    """``estimator`` with the user's encoder ``shared`` (None: the default) set to ``encoding``."""
    return estimator.set_params(encoder=(Encoder() if shared is None else clone(shared)).set_params(**encoding))


def discriminative(estimator):
    """The ``weighting="discriminative"`` variant of ``estimator``, or None where its class
    has none in this installation (its capabilities do not declare the weights)."""
    if "weighting" not in estimator.get_params(deep=False):
        return None
    variant = clone(estimator).set_params(weighting="discriminative")
    return variant if capabilities(variant).discriminative_weights else None


def round_one(facts: TableFacts, shared) -> list:
    """Naive Bayes and TAN under every encoding of :func:`encodings`."""
    out = []
    for e, encoding in enumerate(encodings(facts)):
        # an encoding other than the default is a little less simple, so the rule keeps the default
        for learner, estimator, rank in (("NB", NaiveBayes(smoothing="bayes"), 0.0),
                                         ("TAN", TAN(smoothing="bayes"), 1.0)):
            out.append(Candidate(_named(learner, encoding), _with(estimator, encoding, shared),
                                 rank + 0.01 * e, 1, dict(encoding)))
    return out


def round_two(facts: TableFacts, encoding: dict, shared, random_state: int) -> list:
    """The learners of round 2 under ``encoding``, with their discriminative variants."""
    learners = [
        ("AODE", AODE(smoothing="bayes"), 2.0),
        ("KDB(k=1) backoff", KDB(k=1, smoothing="backoff", verbose=0), 2.0),
        ("KDB(k=2)", KDB(k=2, smoothing="bayes", verbose=0), 3.0),
        ("KDB(k=2) backoff", KDB(k=2, smoothing="backoff", verbose=0), 3.0),
        ("SKDB(k=5)", SKDB(k=5, smoothing="bayes", verbose=0), 3.0),
        ("KDB(k=3) backoff", KDB(k=3, smoothing="backoff", verbose=0), 4.0),
    ]
    out = []
    for learner, estimator, rank in learners:
        out.append(Candidate(_named(learner, encoding), _with(estimator, encoding, shared), rank, 2,
                             dict(encoding)))
    bins = proportional_bins(facts)
    if bins:
        fine = {**encoding, "discretizer": "quantile", "n_bins": bins}
        out.append(Candidate(_named("AODE", fine), _with(AODE(smoothing="bayes"), fine, shared), 2.05, 2, fine))
    if facts.n_rows <= BAGGING_MAX_ROWS and len(facts.cardinalities) <= BAGGING_MAX_COLUMNS:
        for learner, estimator, rank in (("TAN bagged", TAN(), 1.5), ("AODE bagged", AODE(), 2.5)):
            bagged = BaggedBNC(_with(estimator, encoding, shared), n_estimators=BAGGING_MEMBERS,
                               random_state=random_state)
            out.append(Candidate(_named(learner, encoding), bagged, rank, 2, dict(encoding)))
    for learner, estimator, rank in [("NB", NaiveBayes(smoothing="bayes"), 0.0), ("TAN", TAN(smoothing="bayes"), 1.0),
                                     *learners]:
        variant = discriminative(_with(estimator, encoding, shared)) if learner in DISCRIMINATIVE_LEARNERS else None
        if variant is None or (learner == "AODE" and facts.n_rows * len(facts.cardinalities) ** 2
                               > DISCRIMINATIVE_AODE_MAX_ENTRIES):
            continue
        if "random_state" in variant.get_params(deep=False):
            variant.set_params(random_state=random_state)
        if "discriminative_penalty" not in variant.get_params(deep=False):
            out.append(Candidate(_named(f"{learner} discriminative", encoding), variant, rank + 1.0, 2,
                                 dict(encoding), facts.n_classes, len(facts.cardinalities), facts.n_rows))
            continue
        # AODE's weaker penalty only: with 1 it stayed below its 0.01 on car, chess and nursery and
        # within the noise of plain AODE on glass and hepatitis, and it is the costliest variant
        penalties = DISCRIMINATIVE_PENALTIES[-1:] if learner == "AODE" else DISCRIMINATIVE_PENALTIES
        for i, penalty in enumerate(penalties):
            out.append(Candidate(_named(f"{learner} discriminative({penalty:g})", encoding),
                                 clone(variant).set_params(discriminative_penalty=penalty), rank + 1.0 + 0.1 * i, 2,
                                 dict(encoding), facts.n_classes, len(facts.cardinalities), facts.n_rows))
    return out


def user_candidates(candidates) -> list:
    """A user's ``candidates`` (a dict of name to estimator, or a list of estimators) as
    :class:`Candidate` s of one round, simplest first as given."""
    if isinstance(candidates, dict):
        items = list(candidates.items())
    elif isinstance(candidates, (list, tuple)):
        names = [type(est).__name__ for est in candidates]
        # the same class twice: number them
        items = [(f"{n}-{names[:i].count(n) + 1}" if names.count(n) > 1 else n, est)
                 for i, (n, est) in enumerate(zip(names, candidates))]
    else:
        raise TypeError(f"candidates must be None (the default set), a dict {{name: estimator}} or a list of "
                        f"estimators, got {type(candidates).__name__}.")
    if not items:
        raise ValueError("candidates is empty: give at least one estimator, or None for the default set.")
    for name, est in items:
        if not (hasattr(est, "fit") and hasattr(est, "predict_proba") and hasattr(est, "get_params")):
            raise TypeError(f"candidates[{name!r}] = {est!r} is not a classifier with fit and predict_proba.")
    return [Candidate(str(name), clone(est), float(i), 1) for i, (name, est) in enumerate(items)]
