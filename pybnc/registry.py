"""Every public pybnc classifier once: its name, the short name the command line and the
web page use, what it is in one line, its class and so its capabilities.

The command line (``--model tan``), the web page's model list and the documentation
read this table; a new classifier is added here and nowhere else, except one defined
in a later stage, which this module cannot import: it adds itself with
:func:`register` when its package is imported (:class:`pybnc.AutoBNC`, whose package
``pybnc`` imports).

Examples
--------
>>> from pybnc.registry import model
>>> entry = model("tan")
>>> entry.cls.__name__, entry.description, entry.capabilities.learns_from_counts
('TAN', 'tree-augmented naive Bayes (Chow-Liu)', True)
"""

from __future__ import annotations

from dataclasses import dataclass

from .encode import Encoder
from .averaging import AODE, ESKDB, MANB, SSTBMATAN, TBMATAN, AnDE
from .search import BSEJ, FSSJ, KDB, SKDB, TANHC, TANHCSP
from .estimators import FAN, TAN, NaiveBayes
from .estimators.capabilities import Capabilities, capabilities
from .selection import AutoBNC


@dataclass(frozen=True)
class RegisteredModel:
    """One classifier of the registry.

    Attributes
    ----------
    short_name : str
        The command line's and the web page's name (``pybnc cv --models nb,tan``).
    name : str
        The name the literature gives it.
    description : str
        What it is, in one line.
    cls : type
        The scikit-learn estimator class.
    """

    short_name: str
    name: str
    description: str
    cls: type

    @property
    def capabilities(self) -> Capabilities:
        """:func:`pybnc.capabilities` of the class (at its default parameters)."""
        return capabilities(self.cls)


#: Every classifier pybnc offers, in the order the CLI, the web page and the docs list them.
MODELS = (
    RegisteredModel("nb", "naive Bayes", "naive Bayes", NaiveBayes),
    RegisteredModel("tan", "TAN", "tree-augmented naive Bayes (Chow-Liu)", TAN),
    RegisteredModel("fan", "FAN", "MDL-optimal forest-augmented naive Bayes", FAN),
    RegisteredModel("tbmatan", "TBMATAN", "exact Bayesian model averaging over TANs", TBMATAN),
    RegisteredModel("sstbmatan", "SSTBMATAN", "structure-stubborn TBMATAN (K=5)", SSTBMATAN),
    RegisteredModel("manb", "MANB", "model-averaged naive Bayes", MANB),
    RegisteredModel("aode", "AODE", "averaged one-dependence estimators", AODE),
    RegisteredModel("eskdb", "ESKDB", "ensemble of selective kDBs with HDP smoothing", ESKDB),
    RegisteredModel("a2de", "A2DE", "averaged two-dependence estimators (AnDE, n=2)", AnDE),
    RegisteredModel("kdb", "kDB", "k-dependence Bayesian classifier", KDB),
    RegisteredModel("skdb", "SKDB", "selective kDB (features and k chosen by leave-one-out)", SKDB),
    RegisteredModel("tanhc", "TAN-HC", "TAN by hill-climbing on CV accuracy", TANHC),
    RegisteredModel("tanhcsp", "TAN-HCSP", "TAN-HC with super-parents", TANHCSP),
    RegisteredModel("fssj", "FSSJ", "forward sequential selection and joining", FSSJ),
    RegisteredModel("bsej", "BSEJ", "backward sequential elimination and joining", BSEJ),
    RegisteredModel("auto", "AutoBNC", "the learner chosen on the training rows by inner cross-validation", AutoBNC),
)

#: The registry by short name, in the order above.
BY_SHORT_NAME = {entry.short_name: entry for entry in MODELS}


def model(short_name: str) -> RegisteredModel:
    """The registry entry of a short name (case and surrounding spaces ignored).

    Raises
    ------
    KeyError
        Naming the known short names.
    """
    key = str(short_name).strip().lower()
    if key not in BY_SHORT_NAME:
        raise KeyError(f"unknown model {short_name!r}; known models: {', '.join(BY_SHORT_NAME)}.")
    return BY_SHORT_NAME[key]


def configured(short_name: str, settings: dict | None = None, seed=None, quiet: bool = False):
    """A fresh estimator of a short name with the ``settings`` it accepts, seeded and
    quiet as the command line and the web page run it: ``seed`` becomes its
    ``random_state`` and ``quiet`` its ``verbose=0`` unless ``settings`` say otherwise,
    and a model with ``n_jobs`` uses every core (its results do not depend on it).

    Examples
    --------
    >>> configured("tanhc", {"epsilon": 0.0, "n_bins": 3}, seed=0).get_params()["random_state"]
    0
    """
    estimator = model(short_name).cls()
    params = estimator.get_params()
    settings = settings or {}
    accepted = {k: v for k, v in settings.items() if k in params}
    if "encoder" in params:  # the encoding options are the encoder's
        options = Encoder().get_params()
        accepted.update({f"encoder__{k}": v for k, v in settings.items() if k in options and k not in params})
    defaults = {"random_state": seed, "verbose": 0 if quiet else None, "n_jobs": -1}
    accepted.update({k: v for k, v in defaults.items() if v is not None and k in params and k not in settings})
    return estimator.set_params(**accepted)
