"""Private helpers shared by the stages: the compiled kernels' loader and the C header they
share (``native.h``), progress bars, a fit's worker processes, a light log-sum-exp."""
