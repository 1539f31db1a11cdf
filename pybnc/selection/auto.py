"""AutoBNC: the learner, its encoding and its parameters chosen on the training rows alone.

``fit`` cross-validates candidate learners on stratified folds of the training rows
(:func:`pybnc.evaluation.cross_validate`: a learner that learns from counts is fitted
from the fold's counts, ``total - fold``, where the table's columns are all
categorical; every other fold is a refit on the raw rows), chooses one by
:func:`pybnc.selection.rules.choose`, and refits it on all the training rows. The test
rows a user scores the model on are never seen by the choice: cross-validating
``AutoBNC`` is nested cross-validation.

The default candidates come in rounds (:mod:`pybnc.selection.candidates`): round 1
chooses the encoding (discretiser; missing values summed out or a level of their own)
with naive Bayes and TAN, round 2 compares the learners under that encoding, the
discriminative variants included where this installation has them. The final choice
is among every candidate of both rounds.
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .._utils.validation import HasMethods, Interval, StrOptions, fit_context
from .._utils.progress import progress
from ..averaging import AODE, AveragedBNC, BaggedBNC
from .._utils.sample_weight import check_sample_weight, repeat_rows, take_rows
from ..encode import Encoder
from ..encode.table import rare_levels_mask
from ..encode.labels import class_codes
from ..estimators._fitted_state import InconsistentState
from ..estimators.base import BaseBNC, _check_labels, _check_table, log_posterior
from ..estimators.capabilities import Capabilities
from .candidates import RARE_MIN_FREQUENCY, Candidate, TableFacts, round_one, round_two, user_candidates
from .blend import ensemble_candidates
from .race import Evaluation, _folds, evaluate, race_head, race_survivors
from .rules import RULES, choose
from .temperature import fit_temperature

SCORINGS = ("log_loss", "accuracy")
#: ``time_budget="auto"``: round 2 (and the race's other folds) may take this many times
#: round 1's seconds ...
AUTO_BUDGET = 4.0
#: ... or this many seconds where that is more (round 1 of a small categorical table
#: takes a tenth of a second, its discriminative candidates tens of times that).
AUTO_MIN_SECONDS = 10.0
_METRICS = ("log_loss", "accuracy")
#: Below this many cells read per evaluation, a discriminative fit is mostly the
#: optimiser's steps and Python, which hold the GIL: two on threads take turns
#: (AutoBNC on car and glass with n_jobs=2 took 1.15-1.3 times n_jobs=1's).
GIL_FREE_READS = 1_000_000


def inner_folds(y_codes: np.ndarray, n_splits: int, seed: int) -> list:
    """Stratified folds of the rows; a class with a single row stays in every training
    fold (a refit without it would not know the class, and one row cannot be tested).

    Examples
    --------
    >>> folds = inner_folds(np.array([0, 0, 0, 0, 1, 1, 1, 1, 2]), 2, seed=0)
    >>> [sorted(test.tolist()) for _, test in folds]
    [[2, 3, 4, 6], [0, 1, 5, 7]]
    >>> all(8 in train for train, _ in folds)
    True
    """
    single = np.bincount(y_codes)[y_codes] < 2
    rows, kept = np.flatnonzero(~single), np.flatnonzero(single)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a class with fewer rows than folds
        split = StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(np.zeros((rows.size, 1)),
                                                                                 y_codes[rows])
        return [(np.sort(np.concatenate([rows[train], kept])), rows[test]) for train, test in split]


def _given_folds(cv, X, y) -> list:
    """The ``(train, test)`` row positions of a splitter or a list of folds."""
    folds = cv.split(X, y) if hasattr(cv, "split") else cv
    out = [(np.asarray(train, dtype=np.int64), np.asarray(test, dtype=np.int64)) for train, test in folds]
    if len(out) < 2:
        raise ValueError(f"cv gives {len(out)} fold(s); the inner cross-validation needs at least 2.")
    return out


class AutoBNC(BaseBNC):
    """A Bayesian network classifier chosen among pybnc's learners on the training rows.

    ``fit`` cross-validates the candidates on ``cv`` stratified folds of the training
    rows, chooses one by ``scoring`` and ``rule``, and refits it on all the training
    rows (``best_estimator_``), which then predicts. See :mod:`pybnc.selection.auto`
    and :mod:`pybnc.selection.candidates` for the default candidates.

    Parameters
    ----------
    candidates : None, dict of {str: estimator} or list of estimators, default=None
        ``None``: the default rounds (encoding, then learners; the discriminative
        variants where this installation has them). A dict or list: these estimators,
        compared as given in one round; the one-standard-error rule takes the first
        listed as the simplest.
    scoring : {"log_loss", "accuracy"}, default="log_loss"
        What the choice minimises (log-loss) or maximises (accuracy), averaged over the
        folds. Log-loss is a proper scoring rule and varies less from fold to fold than
        accuracy, so the choice is less noisy.
    rule : {"one_se", "best"}, default="one_se"
        ``"one_se"``: the simplest candidate within one standard error of the best
        mean (:func:`pybnc.selection.rules.choose`); ``"best"``: the best mean.
    cv : int, splitter or list of (train, test), default=5
        Stratified folds of the inner cross-validation (fewer when the largest class
        has fewer rows; with fewer than two rows in every class the simplest candidate
        is fitted without a choice), or the folds themselves: a scikit-learn splitter
        (its ``split(X, y)``) or a list of ``(train, test)`` row positions. The folds
        are drawn over row positions (seeded by ``random_state``), so, as with
        ``GridSearchCV``, the same rows in another order can make a near tie between
        candidates go the other way.
    ensemble : int, default=25
        Steps of the greedy ensemble selection (Caruana et al., ICML 2004;
        :func:`pybnc.selection.blend.ensemble_selection`) over the candidates'
        out-of-fold probabilities: each step adds, with replacement, the candidate whose
        addition most lowers the log-loss of the pooled posteriors, until none does; a
        candidate's weight is its share of the steps. Two ensembles are built this way,
        one averaging the posteriors and one pooling them in log space (their weighted
        geometric mean, :func:`pybnc.selection.blend.log_pool_selection`); each competes
        as the most complex candidate. 0: no ensemble. With 25 steps rather than 10 the weights are
        finer: on the 34 tables of ``benchmarks/accuracy_vs_forest.md`` (nested CV) no bar
        lost, colic's won.
    calibrate : bool, default=True
        Temper the chosen learner's posterior, ``P(c | x)^(1/T)`` normalised, by the
        temperature ``T`` of least log-loss on its out-of-fold probabilities of the
        inner cross-validation (:func:`pybnc.selection.temperature.fit_temperature`):
        a network fitted on a few hundred rows is often over- or underconfident, and
        one number learned from the training rows corrects most of it. It never
        changes the predicted class.
    time_budget : "auto", float or None, default="auto"
        Seconds the choice may take. Round 1 always runs (naive Bayes and TAN under
        each encoding: the cheapest fits of this table, whose time grows with its
        rows, columns and classes); round 2 runs its candidates one at a time on its
        first folds, cheapest first, each only if its estimated time (from round 1's
        measured time, corrected by what the candidates of its kind took so far) fits
        in what is left, and its other folds only for the candidates whose measured
        time still fits; the others are reported as skipped or stopped. ``"auto"``:
        round 2 may take :data:`AUTO_BUDGET` (4) times round 1's time or
        :data:`AUTO_MIN_SECONDS` (10 s), whichever is more, so that the choice costs a
        bounded multiple of this table's cheapest fits whatever folds are drawn, and
        a small table is not cut short. A number: that many seconds from the start of
        ``fit``. A single candidate can still overrun its estimate, and the refit of
        the choice comes on top. ``None``: every candidate runs, and the choice
        depends on ``random_state`` alone; with a budget it may depend on the
        machine's speed where the budget leaves candidates out.
    n_jobs : int, default=None
        Folds (and shares of a fold's candidates) cross-validated at once, and the
        members of an ensemble choice refitted at once, by :class:`joblib.Parallel`
        (``-1``: all cores; None: one at a time, or as ``joblib.parallel_config``
        says). The folds run on threads unless ``parallel_config`` chooses another
        backend; there the candidates that count run their folds in one task and the
        discriminative ones, whose evaluations release the GIL, on the other threads
        (:mod:`pybnc.selection.race`). The choice and the probabilities do not depend
        on it (where a time budget leaves no candidate out).
    random_state : int, RandomState or None, default=None
        Seeds the folds and the candidates' own randomness.
    verbose : int, default=1
        Progress over the folds of every round (see :mod:`pybnc._utils.progress`).
    encoder : Encoder, default=None
        The encoding options of every default candidate (identifiers, categorical and
        numeric columns, rare levels; see :class:`pybnc.Encoder`); None:
        ``Encoder()``. Its ``discretizer``, ``n_bins`` and ``missing`` are chosen: each
        candidate's encoder is a copy of it with the ones it tries. Candidates given in
        ``candidates`` keep their own encoders.

    Attributes
    ----------
    best_estimator_ : pybnc classifier
        The chosen candidate refitted on all the training rows.
    best_candidate_ : str
        Its name (a key of ``cv_results_["candidate"]``).
    best_params_ : dict
        Its parameters.
    best_score_ : float
        Its mean inner cross-validated score (log-loss or accuracy, per ``scoring``).
    cv_results_ : dict of str to ndarray
        One entry per candidate, as scikit-learn's ``GridSearchCV.cv_results_``
        (``pd.DataFrame(model.cv_results_)`` is the table): ``candidate``, ``learner``,
        ``params``, ``round``, ``complexity``, ``discretizer``, ``n_bins``, ``missing``,
        ``split{i}_test_log_loss`` and ``split{i}_test_accuracy`` per fold, their
        ``mean_test_*`` and ``std_test_*``, ``mean_fit_time`` (seconds per fold),
        ``rank_test_score`` (by ``scoring``; 1 is the best mean), ``within_one_se``
        (the candidates the rule could choose), ``chosen`` and ``status`` (``"ok"``,
        ``"failed: ..."``, ``"skipped: time budget"``).
    n_splits_ : int
        Folds of the inner cross-validation (0 when there was no choice).
    temperature_ : float
        The temperature applied to ``best_estimator_``'s posterior (1: none; above 1
        softens it).
    choice_time_, refit_time_ : float
        Seconds spent choosing and refitting.
    classes_, n_features_in_, feature_names_in_
        As every classifier.

    Notes
    -----
    Beside ``RandomForestClassifier(300)`` (nested 5-fold CV, ``benchmarks/accuracy_vs_forest.md``,
    "What to expect on your table"): on tables whose columns are mostly categorical its
    accuracy was within half a point of the forest's and its log-loss at most the
    forest's on 29 of 36; on tables of mostly numeric measurements on 8 of 25, where it
    was usually 0.5 to 6 points less accurate, its log-loss often still the lower.

    Examples
    --------
    >>> from pybnc import AutoBNC, NaiveBayes, TAN
    >>> from pybnc.datasets import load_dataset
    >>> X, y = load_dataset("car")
    >>> model = AutoBNC(candidates={"nb": NaiveBayes(), "tan": TAN()}, random_state=0, verbose=0).fit(X, y)
    >>> model.best_candidate_
    'tan'
    >>> import pandas as pd
    >>> pd.DataFrame(model.cv_results_)[["candidate", "mean_test_accuracy", "chosen"]].round(3)
      candidate  mean_test_accuracy  chosen
    0        nb               0.846   False
    1       tan               0.942    True
    """

    # It reads the raw table (each candidate encodes it its own way), searches by
    # cross-validation, and may choose a learner that averages, leaves out a missing
    # super-parent (AODE) or weighs its tables (discriminative): it promises none of these.
    _capabilities = Capabilities(learns_from_counts=False, passes=0, pair_counts=False, learns_from_codes=False,
                                 sums_missing_exactly=False, searches_by_cv=True, tables_are_probabilities=False)

    _parameter_constraints = {
        "candidates": [None, dict, list, tuple],
        "scoring": [StrOptions(set(SCORINGS))],
        "rule": [StrOptions(set(RULES))],
        "cv": [Interval(Integral, 2, None, closed="left"), list, tuple, HasMethods(["split", "get_n_splits"])],
        "ensemble": [Interval(Integral, 0, None, closed="left")],
        "calibrate": ["boolean"],
        "time_budget": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"}), None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "encoder": [Encoder, None],
    }

    def __init__(self, candidates=None, scoring="log_loss", rule="one_se", cv=5, ensemble=25, calibrate=True,
                 time_budget="auto", n_jobs=None, random_state=None, verbose=1, encoder=None):
        self.candidates = candidates
        self.calibrate = calibrate
        self.scoring = scoring
        self.rule = rule
        self.cv = cv
        self.ensemble = ensemble
        self.time_budget = time_budget
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.encoder = encoder

    # -- fit ---------------------------------------------------------------------------------
    @fit_context(skip_nested_validation=False)  # the candidates check their own parameters
    def fit(self, X, y, sample_weight=None):
        """Choose a learner on the rows of ``X`` and ``y`` and refit it on all of them.

        ``sample_weight``: integer weights, learned as repeated rows (the inner
        cross-validation splits the copies of a row like any rows, unless ``cv``
        gives the folds: then the copies of a row stay in its folds; fractional
        weights are refused).

        Returns
        -------
        self
        """
        start = time.perf_counter()
        X = _check_table(X)
        y = _check_labels(y, X.shape[0])
        given = None if isinstance(self.cv, Integral) else _given_folds(self.cv, X, y)
        if sample_weight is not None:  # the rows repeated by their weights, each copy in its row's folds
            rows = repeat_rows(check_sample_weight(sample_weight, X.shape[0]), type(self).__name__)
            X, y = take_rows(X, rows), y[rows]
            given = None if given is None else [(np.flatnonzero(np.isin(rows, train)),
                                                 np.flatnonzero(np.isin(rows, test))) for train, test in given]
        validate_data(self, X, skip_check_array=True)  # feature_names_in_, n_features_in_
        classes, y_codes = class_codes(y)
        if classes.shape[0] < 2:
            raise ValueError(f"y has one class only ({classes[0]!r}); a classifier needs at least 2 classes.")
        self.n_features_in_ = X.shape[1]
        rng = check_random_state(self.random_state)
        fold_seed, candidate_seed = (int(s) for s in rng.randint(2**31 - 1, size=2))
        shared = self.encoder  # the user's encoding options, the discretiser and missing values chosen
        largest = int(np.bincount(y_codes).max())
        n_splits = min(int(self.cv), largest) if given is None else len(given)
        if self.candidates is None:
            facts = self._table_facts(X, y_codes, classes.shape[0])
            first = round_one(facts, shared)
        else:
            first = user_candidates(self.candidates)
        results = {}
        if n_splits < 2:  # every class has a single row: nothing to cross-validate
            chosen, eligible, n_splits = first[0], {first[0].name}, 0
            self._record(results, first)
        else:
            folds = inner_folds(y_codes, n_splits, fold_seed) if given is None else given
            bar = progress(total=n_splits * (2 if self.candidates is None else 1), desc="AutoBNC",
                           verbose=self.verbose)
            with bar:
                seconds = self._round_one(results, first, X, y, folds, bar)
                if self.candidates is None:
                    encoding = self._choose(results, first, folds)[0].encoding
                    second = round_two(facts, encoding, shared, candidate_seed)
                    per_unit = seconds / max(sum(_cost(c) for c in first), 1e-9)
                    self._race(results, second, X, y, y_codes, folds, bar, per_unit, start,
                               self._budget(seconds, start))
                    skipped = [c for c in second if c.name not in results]
                    self._record(results, skipped, status="skipped: time budget")
            evaluated = first + (second if self.candidates is None else [])
            if self.ensemble:
                for candidate, entry in ensemble_candidates(results, evaluated, y_codes, folds, self.ensemble):
                    results[candidate.name] = entry
                    evaluated.append(candidate)
            chosen, eligible = self._choose(results, evaluated, folds)
        proba = results[chosen.name]["proba"] if n_splits >= 2 else None
        self.temperature_ = fit_temperature(proba, y_codes) if self.calibrate and proba is not None else 1.0
        self.choice_time_ = time.perf_counter() - start
        start = time.perf_counter()
        self.best_estimator_ = self._refit_estimator(chosen, results, n_splits).fit(X, y)
        self.refit_time_ = time.perf_counter() - start
        self.classes_ = self.best_estimator_.classes_
        self.best_candidate_ = chosen.name
        self.best_params_ = self.best_estimator_.get_params(deep=False)
        self.n_splits_ = n_splits
        self.cv_results_ = self._results_table(results, chosen.name, eligible, n_splits)
        score = results[chosen.name]["scores"][self.scoring]
        self.best_score_ = float(np.mean(score)) if score is not None else float("nan")
        return self

    def _refit_estimator(self, chosen: Candidate, results: dict, n_splits: int):
        """An unfitted copy of the choice; the ensemble of candidates fits its members
        with AutoBNC's ``n_jobs``."""
        estimator = clone(chosen.estimator)
        if isinstance(estimator, AveragedBNC) and chosen.round == 3:  # its own ensemble
            estimator.set_params(n_jobs=self.n_jobs)
        return estimator

    def _table_facts(self, X, y_codes, n_classes) -> TableFacts:
        # missing as a level shows which columns have missing values; the bins do not matter here
        encoder = (Encoder() if self.encoder is None else clone(self.encoder)).set_params(
            discretizer="uniform", missing="category").set_output(transform="default")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the refitted choice warns about the columns itself
            codes = encoder.fit_transform(X, y_codes)
        kinds = np.asarray(encoder.kinds_)
        categorical = np.flatnonzero(kinds == "categorical")
        rare = sum(int(rare_levels_mask(codes[:, j], int(encoder.cardinalities_[j]), RARE_MIN_FREQUENCY).sum())
                   for j in categorical)
        total = int(np.asarray(encoder.cardinalities_)[categorical].sum())
        return TableFacts(n_rows=len(y_codes), n_classes=n_classes,
                          cardinalities=tuple(int(r) for r in encoder.cardinalities_),
                          has_numeric=bool((kinds == "discretised").any()),
                          has_missing=bool((np.asarray(encoder.missing_codes_) >= 0).any()),
                          rare_levels=rare, categorical_levels=total,
                          n_numeric=int((kinds == "discretised").sum()))

    def _round_one(self, results: dict, candidates: list, X, y, folds, bar) -> float:
        """Cross-validate ``candidates`` on every fold into ``results``; returns the seconds taken."""
        total = evaluate(candidates, X, y, folds, range(len(folds)), self.n_jobs, bar.update,
                         releases_gil=_releases_gil)
        self._record(results, candidates, total, len(folds))
        return total.seconds

    def _budget(self, round_one_seconds: float, start: float):
        """The seconds the choice may take from ``start`` (None: no limit): ``time_budget``,
        or with ``"auto"`` what it took so far plus :data:`AUTO_BUDGET` times round 1's, at
        least :data:`AUTO_MIN_SECONDS`."""
        if self.time_budget != "auto":
            return self.time_budget
        return time.perf_counter() - start + max(AUTO_BUDGET * round_one_seconds, AUTO_MIN_SECONDS)

    def _race(self, results: dict, candidates: list, X, y, y_codes, folds, bar, per_unit: float,
              start: float, budget=None) -> None:
        """Cross-validate ``candidates`` into ``results`` as a race
        (:mod:`pybnc.selection.race`): all on the first folds, the rest on the others,
        within ``budget`` seconds from ``start`` (None: no limit)."""
        n_head = race_head(folds)
        if budget is None:
            head = evaluate(candidates, X, y, folds[:n_head], range(n_head), self.n_jobs, bar.update, cost=_cost,
                            releases_gil=_releases_gil)
        else:
            head, candidates = self._head_within_budget(candidates, X, y, folds, n_head, per_unit, start, budget)
            bar.update(n_head)
        stopped = {}
        survivors = list(candidates)
        if n_head < len(folds):
            rows = np.concatenate([test for _, test in folds[:n_head]])
            survivors, stopped = race_survivors(head, candidates, y_codes, rows, self.scoring, n_head)
            per_fold = {name: float(t.mean()) for name, t in
                        (head.long.assign(t=head.long["fit_time"] + head.long["predict_time"])
                         .groupby("model")["t"])} if len(head.long) else {}
            n_tail = len(folds) - n_head
            survivors = self._within_budget(survivors, {n: t * n_tail for n, t in per_fold.items()}, start,
                                            stopped, n_head, budget)
            head = head + evaluate(survivors, X, y, folds[n_head:], range(n_head, len(folds)), self.n_jobs,
                                   bar.update, cost=lambda c: per_fold.get(c.name, 0.0), releases_gil=_releases_gil)
            if not survivors:
                bar.update(n_tail)
        self._record(results, candidates, head, len(folds), stopped=stopped)

    def _head_within_budget(self, candidates: list, X, y, folds, n_head: int, per_unit: float, start: float,
                            budget: float):
        """The first folds of the race under a time budget: one candidate at a time,
        cheapest first, each only if its estimated time fits what is left. The estimate
        (:func:`_cost` times round 1's seconds per unit) is corrected by what the
        candidates of the same kind run so far took against theirs. Returns the
        evaluation and the candidates it holds (the others are skipped)."""
        head, done = Evaluation(), []
        taken, estimated = {}, {}  # per kind of candidate: measured and estimated seconds so far
        for c in sorted(candidates, key=_cost):
            kind = _kind(c)
            correction = taken[kind] / estimated[kind] if estimated.get(kind) else 1.0
            estimate = per_unit * _cost(c) * n_head / len(folds)
            left = budget - (time.perf_counter() - start)
            if estimate * correction > left:
                continue
            part = evaluate([c], X, y, folds[:n_head], range(n_head), self.n_jobs, releases_gil=_releases_gil)
            taken[kind] = taken.get(kind, 0.0) + part.seconds
            estimated[kind] = estimated.get(kind, 0.0) + estimate
            head, done = head + part, done + [c]
        return head, [c for c in candidates if c in done]

    def _within_budget(self, candidates: list, seconds: dict, start: float, stopped: dict, n_head: int,
                       budget=None) -> list:
        """The candidates, cheapest first, whose measured ``seconds`` fit the time left; the
        others go into ``stopped`` with the reason."""
        if budget is None:
            return candidates
        left = budget - (time.perf_counter() - start)
        kept = []
        for c in sorted(candidates, key=lambda c: seconds.get(c.name, 0.0)):
            if seconds.get(c.name, 0.0) <= left:
                kept.append(c)
                left -= seconds.get(c.name, 0.0)
            else:
                stopped[c.name] = f"stopped after {_folds(n_head)}: time budget"
        return [c for c in candidates if c in kept]

    @staticmethod
    def _record(results, candidates, evaluation: Evaluation | None = None, n_splits: int = 0, status=None,
                stopped=None) -> None:
        stopped = stopped or {}
        long = evaluation.long if evaluation is not None else None
        for c in candidates:
            entry = {"candidate": c, "scores": {m: None for m in _METRICS}, "fit_time": np.nan, "proba": None,
                     "status": status or "not cross-validated: too few rows per class"}
            if long is not None and len(long):
                rows = long[long["model"] == c.name]
                entry["scores"] = {}
                for m in _METRICS:
                    per_fold = np.full(n_splits, np.nan)
                    per_fold[rows["fold"].to_numpy(dtype=np.int64)] = rows[m].to_numpy(dtype=np.float64)
                    entry["scores"][m] = per_fold
                entry["fit_time"] = float(rows["fit_time"].mean()) if len(rows) else np.nan
                if c.name in evaluation.errors:
                    entry["status"] = f"failed: {evaluation.errors[c.name]}"
                elif c.name in stopped:
                    entry["status"] = stopped[c.name]
                else:
                    entry["status"] = "ok"
                entry["proba"] = evaluation.proba.get(c.name) if entry["status"] == "ok" else None
            results[c.name] = entry

    def _choose(self, results, candidates, folds) -> tuple:
        """The chosen :class:`Candidate` among ``candidates`` and the names the rule could choose."""
        scored = [c for c in candidates if results.get(c.name, {}).get("scores", {}).get(self.scoring) is not None]
        if not scored:
            raise ValueError("no candidate could be cross-validated")
        table = np.array([results[c.name]["scores"][self.scoring] for c in scored])
        try:
            chosen, _, eligible = choose(table, [c.complexity for c in scored],
                                         lower_is_better=self.scoring == "log_loss", rule=self.rule)
        except ValueError:
            failures = "; ".join(f"{c.name}: {results[c.name]['status']}" for c in scored)
            raise ValueError(f"AutoBNC: every candidate failed in cross-validation ({failures[:2000]}).") from None
        return scored[chosen], {c.name for c, ok in zip(scored, eligible) if ok}

    def _results_table(self, results: dict, chosen: str, eligible: set, n_splits: int) -> dict:
        entries = list(results.values())
        cands = [e["candidate"] for e in entries]
        n = len(entries)

        def column(values, dtype=object):
            out = np.empty(n, dtype=dtype)
            out[:] = values
            return out

        table = {
            "candidate": column([c.name for c in cands]),
            "learner": column([type(c.estimator).__name__ for c in cands]),
            "params": [_changed_params(c.estimator) for c in cands],
            "round": column([c.round for c in cands], np.int64),
            "complexity": column([c.complexity for c in cands], np.float64),
            "discretizer": column([c.encoding.get("discretizer", "") for c in cands]),
            "n_bins": column([c.encoding.get("n_bins", 0) for c in cands], np.int64),
            "missing": column([c.encoding.get("missing", "") for c in cands]),
        }
        for metric in _METRICS:
            fold_scores = np.full((n, n_splits), np.nan)
            for i, e in enumerate(entries):
                if e["scores"][metric] is not None:
                    fold_scores[i] = e["scores"][metric]
            for f in range(n_splits):
                table[f"split{f}_test_{metric}"] = fold_scores[:, f].copy()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: skipped candidates
                table[f"mean_test_{metric}"] = fold_scores.mean(axis=1) if n_splits else np.full(n, np.nan)
                table[f"std_test_{metric}"] = fold_scores.std(axis=1) if n_splits else np.full(n, np.nan)
        table["mean_fit_time"] = column([e["fit_time"] for e in entries], np.float64)
        mean = table[f"mean_test_{self.scoring}"]
        key = np.where(np.isfinite(mean), mean if self.scoring == "log_loss" else -mean, np.inf)
        table["rank_test_score"] = (pd.Series(key).rank(method="min").to_numpy().astype(np.int64))
        table["within_one_se"] = column([c.name in eligible for c in cands], bool)
        table["chosen"] = column([c.name == chosen for c in cands], bool)
        table["status"] = column([e["status"] for e in entries])
        return table

    # -- predict: the refitted choice's ---------------------------------------------------------
    def _best(self):
        check_is_fitted(self)
        return self.best_estimator_

    def _delegate(self, method: str, X):
        best = self._best()
        X = self._align(X)
        with warnings.catch_warnings():
            # the column names were checked against AutoBNC's own just above
            warnings.filterwarnings("ignore", message="X (has|does not have) (valid )?feature names")
            return getattr(best, method)(X)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log class posterior of the chosen learner, tempered by ``temperature_``, shape
        ``(n_samples, n_classes)``."""
        log_proba = self._delegate("predict_log_proba", X)
        return log_proba if self.temperature_ == 1.0 else log_posterior(self._temper(log_proba))

    def predict_proba(self, X) -> np.ndarray:
        """Class posterior of the chosen learner, tempered by ``temperature_``."""
        self._best()  # NotFittedError before temperature_ is read
        if self.temperature_ == 1.0:
            return self._delegate("predict_proba", X)
        return np.exp(self.predict_log_proba(X))

    def predict(self, X) -> np.ndarray:
        """Most probable class of each row, the chosen learner's prediction (a temperature
        keeps the order of the classes; where it rounds two near-tied posteriors to a tie,
        the first class of the tie, as every classifier reads its posterior)."""
        self._best()  # NotFittedError before temperature_ is read
        if self.temperature_ == 1.0:
            return self._delegate("predict", X)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self.predict_log_proba(X)

    def _temper(self, log_scores: np.ndarray) -> np.ndarray:
        # log p / T differs from the tempered log posterior by a constant per row, which
        # every reader normalises away (log_posterior), so jll-like values temper alike
        temperature = getattr(self, "temperature_", 1.0)
        return log_scores if temperature == 1.0 else log_scores / temperature

    @property
    def encoder_(self):
        """The chosen learner's encoder (what the columns became)."""
        return self._best().encoder_

    def _fit_encoded(self, codes, y, counts):
        raise TypeError("AutoBNC compares learners under encodings of their own, so it learns from the raw "
                        "table: call fit(X, y), not a fit from codes or counts.")

    def _jll_encoded(self, codes):
        return self._temper(self._best()._jll_encoded(codes))

    # explain(): the chosen learner's game
    def _explain_rows(self, X):
        return self._delegate("_explain_rows", X)

    def _masked_jll(self, coded, rows, keep) -> np.ndarray:
        return self._temper(self._best()._masked_jll(coded, rows, keep))

    def _independent_groups(self):
        return self._best()._independent_groups()

    def _check_fitted_state(self) -> None:
        """The chosen learner's state, its agreement with AutoBNC's and ``cv_results_``."""
        best = getattr(self, "best_estimator_", None)
        if not isinstance(best, BaseBNC) or isinstance(best, AutoBNC):
            raise InconsistentState("best_estimator_", f"a {type(best).__name__}, not a pybnc classifier")
        try:
            best._check_fitted_state()
        except InconsistentState as exc:
            raise InconsistentState(f"best_estimator_.{exc.field}", str(exc).split(": ", 1)[1]) from None
        for name in ("classes_", "n_features_in_", "feature_names_in_"):
            mine, theirs = getattr(self, name, None), getattr(best, name, None)
            if not np.array_equal(np.asarray(mine, dtype=object), np.asarray(theirs, dtype=object)):
                raise InconsistentState(name, f"differs from best_estimator_.{name}")
        table = getattr(self, "cv_results_", None)
        if not isinstance(table, dict) or not isinstance(table.get("candidate"), np.ndarray):
            raise InconsistentState("cv_results_", "not a dict of columns with a 'candidate' column")
        n = table["candidate"].shape[0]
        for key, value in table.items():
            if len(value) != n:
                raise InconsistentState(f"cv_results_[{key!r}]", f"{len(value)} entries, not {n}")
        if self.best_candidate_ not in set(table["candidate"].tolist()):
            raise InconsistentState("best_candidate_", "not a candidate of cv_results_")


def _cost(candidate: Candidate) -> float:
    """A relative fit cost, to order and budget the candidates (naive Bayes = 1)."""
    base = {"NaiveBayes": 1.0, "TAN": 1.5, "FAN": 1.5, "AODE": 2.0, "KDB": 3.0, "SKDB": 4.0, "AnDE": 8.0}
    members = getattr(candidate.estimator, "n_estimators", None)
    if isinstance(candidate.estimator, BaggedBNC):  # its members' cost, each a fit on all rows
        inner = candidate.estimator.estimator
        return members * base.get(type(inner).__name__, 5.0) * 2.0  # encoded afresh per member: no counts reused
    cost = base.get(type(candidate.estimator).__name__, 5.0)
    if getattr(candidate.estimator, "weighting", None) == "discriminative":
        # a fixed penalty: one L-BFGS fit; none: the learner's own path of penalties on 3 folds too;
        # an evaluation of it costs a product per class, where counting costs the same for any
        # number (per fold, naive Bayes's variants against naive Bayes: sonar, 2 classes, 1.3x;
        # letter, 26 classes, 28x to 80x; AODE's on letter 39x AODE)
        cost *= 4.0 if getattr(candidate.estimator, "discriminative_penalty", None) is not None else 40.0
        cost *= max(1.0, candidate.n_classes / 4.0)
        if isinstance(candidate.estimator, AODE):  # AnDE too: its design reads a cell per pair of columns
            # (a fold against the discriminative naive Bayes: chess, 36 columns, 13x; soybean, 35, 20x;
            # audiology, 69, 15x; with AODE 2 and naive Bayes 1 this gives 18x, 18x and 35x)
            cost *= max(1.0, candidate.n_features / 4.0)
    return cost


def _releases_gil(candidate: Candidate) -> bool:
    """Whether a candidate's fit runs mostly outside the GIL, so that it gains from a
    thread of its own: a discriminative one whose evaluations read at least
    :data:`GIL_FREE_READS` cells (rows x tables read x classes)."""
    if _kind(candidate) != "discriminative":
        return False
    tables = candidate.n_features + 1
    if isinstance(candidate.estimator, AODE):  # AnDE too: a table per pair of columns
        tables *= max(candidate.n_features, 1)
    return candidate.n_rows * tables * candidate.n_classes >= GIL_FREE_READS


def _kind(candidate: Candidate) -> str:
    """What a candidate's cost follows: counts, an optimiser, or a member per bootstrap sample."""
    if isinstance(candidate.estimator, BaggedBNC):
        return "bagged"
    return "discriminative" if getattr(candidate.estimator, "weighting", None) == "discriminative" else "counts"


def _changed_params(estimator) -> dict:
    """The parameters of ``estimator`` that differ from its class's defaults."""
    defaults = type(estimator)().get_params(deep=False)
    out = {}
    for key, value in estimator.get_params(deep=False).items():
        if key == "encoder":  # the candidate's encoding has columns of its own
            continue
        default = defaults.get(key)
        try:
            same = type(value) is type(default) and bool(value == default)
        except (TypeError, ValueError):  # arrays and other values without one truth value
            same = value is default
        if not same:
            out[key] = value
    return out
