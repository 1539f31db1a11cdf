"""Optional dependencies: import one, or fail with the extra that installs it."""

from __future__ import annotations

import importlib

#: The extra of ``pyproject.toml`` that installs each optional top-level module.
EXTRAS = {
    "matplotlib": "plot",
    "networkx": "graph",
    "pyarrow": "parquet",
    "openpyxl": "excel",
    "flask": "web",
    "werkzeug": "web",
    "dask": "dask",
    "distributed": "dask",
    "pgmpy": "peers",
    "pyagrum": "peers",
}


def missing_message(module: str, purpose: str) -> str:
    """The sentence an ImportError of ``module`` says: what needed it and the install line."""
    top = module.split(".")[0]
    extra = EXTRAS.get(top.lower())
    fix = f'pip install "pybnc[{extra}]"' if extra else f"pip install {top}"
    return f"{purpose} needs {top}, which is not installed: {fix}"


def require(module: str, purpose: str):
    """Import ``module`` (``"matplotlib.pyplot"``), or raise an ImportError naming the extra.

    Parameters
    ----------
    module : str
        Dotted module name.
    purpose : str
        What needs it, the start of the message (``"plot_network"``).

    Returns
    -------
    module

    Examples
    --------
    >>> require("math", "this example").__name__
    'math'
    >>> try:
    ...     require("matplotlib_not_here", "drawing")
    ... except ImportError as exc:
    ...     print(exc)
    drawing needs matplotlib_not_here, which is not installed: pip install matplotlib_not_here
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != module.split(".")[0]:
            raise  # the module is there but something it imports is broken: say that, not ours
        raise ImportError(missing_message(module, purpose), name=module) from None
