"""Private helpers shared by the stages: numba kernels loaded on demand, progress bars, a light
log-sum-exp."""
