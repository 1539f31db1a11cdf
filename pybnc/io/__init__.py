"""Reading and writing models: pybnc's own model files and BIF/XMLBIF export.

* :func:`save` / :func:`load`: any fitted pybnc classifier, in a safe, versioned
  zip + JSON + ``.npy`` format that runs no code when loaded
  (``docs/model-format.md``).
* :func:`to_bif` / :func:`to_xmlbif`: networks with one structure, for pgmpy,
  pyAgrum, Weka and other Bayesian network tools.
* :func:`read_table`: the one reader of data files (CSV/TSV/``.data`` with the
  delimiter, encoding and header detected, ARFF, Parquet) for the command line and
  the web page; :func:`read_arff` / :func:`write_arff` for ARFF alone.
"""

from .arff import read_arff, write_arff
from .bif import to_bif, to_xmlbif
from ._nodes import estimator_classes
from .model_file import FORMAT_VERSION, load, read_header, save
from .table import ReadReport, read_table

__all__ = ["save", "load", "read_header", "estimator_classes", "FORMAT_VERSION", "to_bif", "to_xmlbif",
           "read_table", "read_arff", "write_arff", "ReadReport"]
