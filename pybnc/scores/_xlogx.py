"""``n log n`` of counts, the one kernel of every information and score of the counts."""

from __future__ import annotations

import numpy as np

#: Arrays of at least this many counts take ``n log n`` from a table of the integers up to
#: their largest (when they are all whole numbers no larger than their size).
LOOKUP_FROM = 1 << 14


def xlogx(a: np.ndarray) -> np.ndarray:
    """``a log a`` elementwise, 0 at 0 (``log`` of the smallest normal float, times 0).

    Counts are whole numbers, mostly small: a large array of them reads each ``n log n``
    from a table of ``0 .. max`` computed by the same operations (the same bits), which
    costs about half as much as the logarithms (a block of arrhythmia's pair counts)."""
    if a.size >= LOOKUP_FROM:
        top, bottom = a.max(), a.min()  # NaN fails both tests below
        if 0 <= bottom and top < a.size:
            whole = a.astype(np.intp)
            if (whole == a).all():
                return xlogx_direct(np.arange(int(top) + 1, dtype=np.float64))[whole]
    return xlogx_direct(a)


def xlogx_direct(a: np.ndarray) -> np.ndarray:
    out = np.maximum(a, np.finfo(np.float64).tiny)
    np.log(out, out=out)
    out *= a
    return out
