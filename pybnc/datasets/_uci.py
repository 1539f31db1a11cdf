"""Readers and metadata for the bundled UCI benchmark datasets.

Every reader returns a DataFrame of *strings* (``NaN`` for missing values)
whose columns are the features followed by ``"class"``, plus optionally the
declared category domains (ARFF only).  Type conversion happens in one
place, ``pybnc.datasets._load``, so all datasets follow the same rules.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

DATA_DIR = Path(__file__).resolve().parent / "data"

ATTRIBUTION = (
    "Dua, D. and Graff, C. (2019). UCI Machine Learning Repository "
    "[http://archive.ics.uci.edu/ml]. Irvine, CA: University of California, "
    "School of Information and Computer Science. Licensed CC BY 4.0."
)

DATA_HOME_ENV = "PYBNC_DATA_HOME"

Reader = Callable[[list[Path]], tuple[pd.DataFrame, "dict | None"]]


@dataclass(frozen=True)
class Spec:
    name: str
    files: tuple[str, ...]
    features: tuple[str, ...]
    continuous: frozenset[str]
    n_rows: int
    n_classes: int
    has_missing: bool
    source: str
    reader: Reader
    aliases: tuple[str, ...] = ()
    notes: str = ""
    shipped: bool = True
    # Only for unshipped data: sub-folders of a data home that may hold it.
    search_dirs: tuple[str, ...] = field(default=("",))


def _read_csv(path: Path, **kw) -> pd.DataFrame:
    return pd.read_csv(path, header=None, dtype=str, keep_default_na=False,
                       na_values=["?"], skipinitialspace=True, **kw)


def _csv_reader(class_first: bool = False, id_col: bool = False) -> Reader:
    def read(paths):
        df = _read_csv(paths[0])
        if id_col:
            df = df.iloc[:, 1:]
        if class_first:
            df = df.iloc[:, list(range(1, df.shape[1])) + [0]]
        return df, None
    return read


def _read_glass(paths):
    df = _read_csv(paths[0])
    # The UCI glass.data starts with an id column, but the mirror shipped
    # here has already dropped it; accept both layouts.
    if df.shape[1] == 11:
        df = df.iloc[:, 1:]
    return df, None


def _read_adult(paths):
    # '|' starts adult.test's bogus first line ("|1x3 Cross validator").
    df = pd.concat([_read_csv(p, comment="|") for p in paths], ignore_index=True)
    df.iloc[:, -1] = df.iloc[:, -1].str.rstrip(".")
    return df, None


def _read_cleve(paths):
    df = pd.read_csv(paths[0], sep=r"\s+", comment="%", header=None, dtype=str,
                     keep_default_na=False, na_values=["?"])
    # Last column (H, S1..S4) is the original 0-4 diagnosis the class was
    # derived from; keeping it would leak the class.
    return df.iloc[:, :-1], None


def _read_flare(paths):
    df = pd.read_csv(paths[0], sep="\t", dtype=str)
    # PMLB wrote two integer-coded columns as floats ("3.0"); unify the codes.
    df = df.apply(lambda c: c.str.replace(r"\.0$", "", regex=True))
    return df, None


def _read_arff(paths):
    """An ARFF file as strings plus its declared domains (the attributes' order)."""
    from ..io.arff import read_arff

    frame = read_arff(paths[0])
    domains = {c: list(frame[c].cat.categories) for c in frame.columns}
    return frame.astype(object).where(frame.notna(), None), domains


def _split(names: str) -> tuple[str, ...]:
    return tuple(names.split())


SPECS: tuple[Spec, ...] = (
    Spec(
        "adult", ("adult.data.gz", "adult.test.gz"),
        _split("age workclass fnlwgt education education-num marital-status "
               "occupation relationship race sex capital-gain capital-loss "
               "hours-per-week native-country"),
        frozenset(_split("age fnlwgt education-num capital-gain capital-loss "
                         "hours-per-week")),
        48842, 2, True, "UCI Adult (Census Income), Kohavi & Becker 1996",
        _read_adult, aliases=("census-income",),
        notes="adult.data (32561) + adult.test (16281) concatenated; test "
              "labels' trailing '.' removed; '?' is missing.",
    ),
    Spec(
        "breast", ("breast-cancer-wisconsin.data",),
        _split("clump_thickness uniformity_of_cell_size uniformity_of_cell_shape "
               "marginal_adhesion single_epithelial_cell_size bare_nuclei "
               "bland_chromatin normal_nucleoli mitoses"),
        frozenset(_split("clump_thickness uniformity_of_cell_size "
                         "uniformity_of_cell_shape marginal_adhesion "
                         "single_epithelial_cell_size bare_nuclei "
                         "bland_chromatin normal_nucleoli mitoses")),
        699, 2, True, "UCI Breast Cancer Wisconsin (Original), Wolberg 1992",
        _csv_reader(id_col=True),
        aliases=("breast-cancer-wisconsin", "breast-w"),
        notes="Sample id column dropped; class 2 = benign, 4 = malignant; "
              "16 missing bare_nuclei.",
    ),
    Spec(
        "car", ("car.data",),
        _split("buying maint doors persons lug_boot safety"), frozenset(),
        1728, 4, False, "UCI Car Evaluation, Bohanec & Rajkovic 1988",
        _csv_reader(),
    ),
    Spec(
        "chess", ("kr-vs-kp.data.gz",),
        _split("bkblk bknwy bkon8 bkona bkspr bkxbq bkxcr bkxwp blxwp bxqsq "
               "cntxt dsopp dwipd hdchk katri mulch qxmsq r2ar8 reskd reskr "
               "rimmx rkxwp rxmsq simpl skach skewr skrxp spcop stlmt thrsk "
               "wkcti wkna8 wknck wkovl wkpos wtoeg"),
        frozenset(), 3196, 2, False,
        "UCI Chess (King-Rook vs. King-Pawn), Shapiro 1983", _csv_reader(),
        aliases=("kr-vs-kp", "krkp"),
    ),
    Spec(
        "cleve", ("cleve.mod",),
        _split("age sex cp trestbps chol fbs restecg thalach exang oldpeak "
               "slope ca thal"),
        frozenset(_split("age trestbps chol thalach oldpeak ca")),
        303, 2, True, "UCI Heart Disease (Cleveland), Detrano et al. 1989; "
        "symbolic cleve.mod version by J. Gennari (MLC++)", _read_cleve,
        aliases=("cleveland", "heart-c", "heart-disease"),
        notes="MLC++ cleve.mod as used by Friedman et al. 1997 (296 rows once "
              "the 7 rows with missing ca/thal are removed); class buff "
              "(healthy) vs sick.  It differs from processed.cleveland.data "
              "by one row (one duplicated record) and one extra missing value.",
    ),
    Spec(
        "crx", ("crx.data",), tuple(f"A{i}" for i in range(1, 16)),
        frozenset({"A2", "A3", "A8", "A11", "A14", "A15"}),
        690, 2, True, "UCI Credit Approval, Quinlan 1987", _csv_reader(),
        aliases=("credit-a", "credit-approval"),
        notes="Attribute names and values anonymised by the donor.",
    ),
    Spec(
        "flare", ("flare_pmlb.tsv.gz",),
        _split("class_code largest_spot_code spot_dist_code activity evolution "
               "previous_24_hour_code historically_complex become_complex area "
               "area_of_the_largest_spot"),
        frozenset(), 1066, 2, False,
        "UCI Solar Flare (flare.data2), Bradshaw 1989, via PMLB "
        "(Olson et al. 2017, MIT licence)", _read_flare,
        aliases=("solar-flare", "flare2"),
        notes="PMLB integer-coded layout as used by Friedman et al. 1997; "
              "class = C-class flares in next 24 h (0 vs >0). "
              "area_of_the_largest_spot is constant.",
    ),
    Spec(
        "glass", ("glass.data",), _split("RI Na Mg Al Si K Ca Ba Fe"),
        frozenset(_split("RI Na Mg Al Si K Ca Ba Fe")),
        214, 6, False, "UCI Glass Identification, German 1987", _read_glass,
        notes="Class codes 1-7; code 4 does not occur.",
    ),
    Spec(
        "hepatitis", ("hepatitis.data",),
        _split("age sex steroid antivirals fatigue malaise anorexia liver_big "
               "liver_firm spleen_palpable spiders ascites varices bilirubin "
               "alk_phosphate sgot albumin protime histology"),
        frozenset(_split("age bilirubin alk_phosphate sgot albumin protime")),
        155, 2, True, "UCI Hepatitis, Cestnik et al. 1987",
        _csv_reader(class_first=True),
        notes="Raw codes kept: class 1 = DIE, 2 = LIVE; sex 1 = male, "
              "2 = female; other binary attributes 1 = no, 2 = yes.",
    ),
    Spec(
        "iris", ("iris.data",),
        _split("sepal_length sepal_width petal_length petal_width"),
        frozenset(_split("sepal_length sepal_width petal_length petal_width")),
        150, 3, False, "UCI Iris, Fisher 1936", _csv_reader(),
    ),
    Spec(
        "letter", ("letter-recognition.data.gz",),
        _split("x-box y-box width high onpix x-bar y-bar x2bar y2bar xybar "
               "x2ybr xy2br x-ege xegvy y-ege yegvx"),
        frozenset(_split("x-box y-box width high onpix x-bar y-bar x2bar "
                         "y2bar xybar x2ybr xy2br x-ege xegvy y-ege yegvx")),
        20000, 26, False, "UCI Letter Recognition, Slate 1991",
        _csv_reader(class_first=True), aliases=("letter-recognition",),
        notes="16 integer features in 0..15, loaded as float64.",
    ),
    Spec(
        "mushroom", ("agaricus-lepiota.data.gz",),
        _split("cap-shape cap-surface cap-color bruises? odor gill-attachment "
               "gill-spacing gill-size gill-color stalk-shape stalk-root "
               "stalk-surface-above-ring stalk-surface-below-ring "
               "stalk-color-above-ring stalk-color-below-ring veil-type "
               "veil-color ring-number ring-type spore-print-color population "
               "habitat"),
        frozenset(), 8124, 2, True, "UCI Mushroom, Schlimmer 1987",
        _csv_reader(class_first=True), aliases=("agaricus-lepiota",),
        notes="2480 missing stalk-root; veil-type is constant.",
    ),
    Spec(
        "nursery", ("nursery.data.gz",),
        _split("parents has_nurs form children housing finance social health"),
        frozenset(), 12960, 5, False, "UCI Nursery, Olave et al. 1989",
        _csv_reader(),
        notes="Class 'recommend' occurs only twice.",
    ),
    Spec(
        "pima", ("pima-indians-diabetes.data",),
        _split("preg plas pres skin insu mass pedi age"),
        frozenset(_split("preg plas pres skin insu mass pedi age")),
        768, 2, False, "Pima Indians Diabetes, National Institute of Diabetes "
        "and Digestive and Kidney Diseases (Smith et al. 1988)",
        _csv_reader(), aliases=("pima-indians-diabetes", "diabetes"),
        notes="Not bundled: withdrawn from UCI at the donor's request.  Zeros "
              "in plas/pres/skin/insu/mass encode missing values; they are "
              "kept as zeros, as in the usual benchmarks.",
        shipped=False, search_dirs=("pima-indians-diabetes", "pima", ""),
    ),
    Spec(
        "soybean", ("soybean.arff.gz",),
        _split("date plant-stand precip temp hail crop-hist area-damaged "
               "severity seed-tmt germination plant-growth leaves "
               "leafspots-halo leafspots-marg leafspot-size leaf-shread "
               "leaf-malf leaf-mild stem lodging stem-cankers canker-lesion "
               "fruiting-bodies external-decay mycelium int-discolor sclerotia "
               "fruit-pods fruit-spots seed mold-growth seed-discolor "
               "seed-size shriveling roots"),
        frozenset(), 683, 19, True,
        "UCI Soybean (Large), Michalski & Chilausky 1980, Weka soybean.arff",
        _read_arff, aliases=("soybean-large",),
        notes="Training (307) and test (376) parts combined; categories in "
              "the ARFF-declared order.",
    ),
    Spec(
        "votes", ("house-votes-84.data",),
        _split("handicapped-infants water-project-cost-sharing "
               "adoption-of-the-budget-resolution physician-fee-freeze "
               "el-salvador-aid religious-groups-in-schools "
               "anti-satellite-test-ban aid-to-nicaraguan-contras mx-missile "
               "immigration synfuels-corporation-cutback education-spending "
               "superfund-right-to-sue crime duty-free-exports "
               "export-administration-act-south-africa"),
        frozenset(), 435, 2, True,
        "UCI Congressional Voting Records, Schlimmer 1987",
        _csv_reader(class_first=True), aliases=("house-votes-84", "vote", "voting"),
        notes="'?' means neither yea nor nay (abstained, paired, ...); like "
              "UCI and bnclassify we treat it as missing.",
    ),
)


def data_home_candidates(data_home: str | os.PathLike | None) -> list[Path]:
    """Folders searched for an unbundled file, most specific first."""
    if data_home is not None:
        return [Path(data_home)]
    if os.environ.get(DATA_HOME_ENV):
        return [Path(os.environ[DATA_HOME_ENV])]
    repo = Path(__file__).resolve().parents[2]
    return [Path.cwd() / ".." / "shared" / "datasets" / "uci",
            repo / ".." / "shared" / "datasets" / "uci"]
