"""The one request a generator of passes may make besides a pass.

A model learns out of core as a generator of passes over its rows
(:func:`pybnc.estimators.base.run_passes`): each ``yield`` hands out a function of one
coded block and gets back the sum of its results over the blocks. An optimiser that
calls its objective (scipy's L-BFGS-B) cannot hand out one pass and wait, so such a
generator yields :data:`PASS_MAKER` once and gets back the driver's ``one_pass``: the
function that makes a pass of a per-block function and returns its sum.
"""

from __future__ import annotations


class _PassMaker:
    def __repr__(self) -> str:
        return "PASS_MAKER"


#: Yielded to ask the driver for its ``one_pass(per_block)`` function.
PASS_MAKER = _PassMaker()
