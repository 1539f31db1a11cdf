"""The C kernels (project metadata is in pyproject.toml).

``pip install .`` (or ``-e .``) compiles them once, at install time, so that no fit
waits on a compiler; each is a few hundred lines of plain C against Python's own
headers (numpy arrays are read through the buffer protocol). Without a C compiler the
install still succeeds (``optional``) and the same computations run in numpy, slower.
In a source checkout: ``python setup.py build_ext --inplace``.
"""

import sys

from setuptools import Extension, setup

# -fno-trapping-math: no kernel reads floating-point exception flags, and without it GCC
# keeps the branch-free selects of the vector loops as branches. -ffp-contract=off: no
# fused multiply-adds (aarch64's default), so a kernel rounds as its numpy twin does.
FLAGS = [] if sys.platform == "win32" else ["-O3", "-fno-trapping-math", "-ffp-contract=off"]

KERNELS = {
    "pybnc.averaging._laplacian_c": "pybnc/averaging/_laplacian_c.c",
    "pybnc.encode._mdl_c": "pybnc/encode/_mdl_c.c",
    "pybnc.parameters._design_c": "pybnc/parameters/_design_c.c",
    "pybnc.parameters._hdp_c": "pybnc/parameters/_hdp_c.c",
    "pybnc.scores._pairs_c": "pybnc/scores/_pairs_c.c",
    "pybnc.search._leave_one_out_c": "pybnc/search/_leave_one_out_c.c",
    "pybnc.search._rows_c": "pybnc/search/_rows_c.c",
    "pybnc.structure._forest_c": "pybnc/structure/_forest_c.c",
}

setup(ext_modules=[
    Extension(name, [source], include_dirs=["pybnc/_utils"], extra_compile_args=FLAGS, optional=True,
              depends=["pybnc/_utils/native.h", "pybnc/averaging/_laplacian_lanes.h"])
    for name, source in KERNELS.items()
])
