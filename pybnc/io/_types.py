"""The types a model file may name: an explicit list, so that reading a file never depends
on which modules happen to be loaded. A class new to the fitted state is added here (and
a test fails until it is: ``tests/test_model_file_checks.py``)."""

from __future__ import annotations

from ..averaging import AODE, ESKDB, MANB, SSTBMATAN, TBMATAN, AnDE, AveragedBNC, BaggedBNC
from ..averaging.alr import SuperParentCells
from ..counts.families import FamilyCounts
from ..counts.tables import Counts
from ..encode import Encoder
from ..estimators import FAN, TAN, NaiveBayes
from ..estimators.base import Encoding
from ..estimators.capabilities import Capabilities
from ..parameters.discriminative import BlockSums, DiscriminativeFit, RowDesign
from ..parameters.learn import ParameterTables
from ..parameters.network_weights import NetworkCells
from ..search import BSEJ, FSSJ, KDB, SKDB, TANHC, TANHCSP
from ..selection import AutoBNC
from ..selection.candidates import Candidate, TableFacts
from ..selection.race import Evaluation
from ..structure.dag import Structure

#: The classifiers a model file may hold.
ESTIMATORS = (NaiveBayes, TAN, FAN, MANB, AODE, AnDE, ESKDB, TBMATAN, SSTBMATAN, TANHC, TANHCSP, FSSJ, BSEJ, KDB,
              SKDB, AutoBNC, AveragedBNC, BaggedBNC)
#: The other objects of a fitted state: the encoder and pybnc's dataclasses.
HELPERS = (Encoder, Counts, FamilyCounts, Structure, Encoding, Capabilities, ParameterTables, DiscriminativeFit,
           RowDesign, BlockSums, NetworkCells, SuperParentCells, Candidate, TableFacts, Evaluation)
