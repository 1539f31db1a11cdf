"""The protocol between a pybnc classifier and the code that drives it.

Streaming (:mod:`pybnc.streaming`), cross-validation (:mod:`pybnc.evaluation`),
explanations, ensembles and composite models speak to a classifier through these
protected hooks only, never through another class's private names; :class:`BaseBNC
<pybnc.estimators.base.BaseBNC>` implements every one of them once, a subclass overrides
what it learns differently. :data:`HOOKS` names them all, and a test checks that no
module calls a private method of another class outside this list.

The fitted state is what one fit wrote: every fit starts from a cleared state
(``_forget_fit``), so it replaces the whole state; the running state
(``_running_state``: the classes, the encoder, the counts) is what blocks add to.
"""

from __future__ import annotations

from typing import Generator, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class BlockLearner(Protocol):
    """A classifier that learns from blocks of rows, their counts and coded tables.

    A learning step is: ``_begin_fit`` (or ``_start_fit`` with an encoding learned
    elsewhere), blocks added by ``_add_block``, then ``_fit_from_counts`` (one pass) or
    the generator ``_learn_in_passes`` (each ``yield`` a function of a coded block,
    whose results over the blocks are summed and sent back, or
    :data:`~pybnc._utils.passes.PASS_MAKER`, to which the function making such a pass is
    sent back: :func:`pybnc.estimators.base.run_passes`).
    """

    _running_state: tuple

    def _validate_params(self) -> None:
        """Check the parameters (their constraints), before any row is read."""

    def _begin_fit(self) -> None:
        """Check the parameters and forget the former fit."""

    def _forget_fit(self, keep=()) -> None:
        """Remove every fitted attribute but those in ``keep``."""

    def _encoder(self):
        """The unfitted encoder of this model's encoding options."""

    def _encode_fit(self, X, y, weights=None) -> tuple:
        """Validate a table, learn its encoding; returns codes, class codes and counts
        (cross-validation shares one fold's among the models of one encoder)."""

    def _start_fit(self, encoding, counts=None) -> None:
        """Start a fit from a learned encoding (and a first pass's counts)."""

    def _add_block(self, X, y, classes, sample_weight=None):
        """Add a block of rows to the running counts; returns them."""

    def _code_block(self, X, y) -> tuple:
        """A block's codes and class codes under the fitted encoding."""

    def _fit_from_counts(self, counts, families=None) -> None:
        """Learn from counts alone."""

    def _learn_in_passes(self, counts) -> Generator:
        """Learn from a first pass's counts, reading the rows again as needed."""

    def _fit_coded(self, encoding, codes, y_codes, counts, weights=None):
        """Learn from a coded table, its class codes and counts; returns the model."""

    def _jll_encoded(self, codes: np.ndarray) -> np.ndarray:
        """``log P(x_observed, c)`` of coded rows (``-1``: missing), shape ``(n, K)``."""


@runtime_checkable
class Explainable(Protocol):
    """What :meth:`~pybnc.estimators.base.BaseBNC.explain` reads of a model (and an
    ensemble of its members)."""

    def _explain_rows(self, X) -> tuple:
        """The rows as :meth:`_masked_jll` reads them and the columns each observes."""

    def _masked_jll(self, coded, rows, keep) -> np.ndarray:
        """``log P(x_kept, c)`` of some rows with the other columns missing."""

    def _independent_groups(self):
        """Groups of columns whose terms add up, or None."""


#: The other hooks: a table's codes (the web page's views), a model file's
#: check, a parameter's effect on the capabilities, ESKDB's members, the discriminative
#: weights' features.
OTHER_HOOKS = ("_encode", "_check_fitted_state", "_refine_capabilities", "_fit_ranked", "_weighted_features",
               "_generative_jll")


def _hooks(protocol) -> tuple:
    return tuple(n for n in vars(protocol) if n.startswith("_") and not n.startswith("__") and n not in ("_is_protocol",
                 "_is_runtime_protocol") and callable(vars(protocol)[n]))


#: Every protected name one class may call on another.
HOOKS = (*_hooks(BlockLearner), *_hooks(Explainable), *OTHER_HOOKS)

__all__ = ["BlockLearner", "Explainable", "HOOKS"]
