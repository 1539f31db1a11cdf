"""pybnc.io.read_table and read_arff: delimiters, encodings, header rows, ARFF; on small
synthetic files always, and against the UCI folder's .data files when it is there."""

from __future__ import annotations

import gzip
import io
import numpy as np
import pandas as pd
import pytest

from pybnc.datasets import read_arff as read_arff_xy
from pybnc.datasets._uci import data_home_candidates
from pybnc.io import read_arff, read_table

UCI = next((p for p in data_home_candidates(None) if p.is_dir()), None)  # as the pima tests look
needs_uci = pytest.mark.skipif(UCI is None, reason="the UCI folder ../shared/datasets/uci is not there")

ROWS = [["vhigh", "low", 2, "unacc"], ["low", "?", 4, "good"], ["med", "high", 2, "unacc"],
        ["vhigh", "med", 4, "acc"], ["low", "low", 2, "unacc"]]
NAMES = ["buying", "maint", "doors", "class"]


def _text(sep, header, rows=ROWS):
    lines = ([sep.join(NAMES)] if header else []) + [sep.join(map(str, r)) for r in rows]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("sep, name", [(",", ","), (";", ";"), ("\t", "\t"), ("|", "|"), ("  ", r"\s+")])
@pytest.mark.parametrize("header", [True, False])
def test_delimiter_and_header_are_detected(sep, name, header):
    frame, report = read_table(_text(sep, header).encode(), return_report=True)
    assert (report.delimiter, report.header, report.header_detected) == (name, header, True)
    assert list(frame.columns) == (NAMES if header else ["col1", "col2", "col3", "col4"])
    assert frame.shape == (5, 4) and frame.iloc[:, 1].isna().tolist() == [False, True, False, False, False]
    assert frame.iloc[:, 2].tolist() == [2, 4, 2, 4, 2]


def test_header_can_be_given_and_wins():
    frame = read_table(_text(",", False).encode(), header=True)
    assert list(frame.columns)[0] == "vhigh" and len(frame) == 4
    frame = read_table(_text(",", True).encode(), header=False)
    assert frame.iloc[0].tolist() == NAMES and len(frame) == 6
    with pytest.raises(ValueError, match="line 1: the header row has 2 fields, the rows below 4"):
        read_table(b"a,b\n" + _text(",", False).encode(), header=True)


@pytest.mark.parametrize("text, header", [
    ("id,x,y\n1,0.5,a\n2,0.7,b\n3,0.1,a\n", True),  # names over numbers
    ("1,0.5,a\n2,0.7,b\n3,0.1,a\n", False),  # numbers over numbers
    ("name,town\nAnn,Oslo\nBob,Rome\nCid,Lima\n", True),  # unique text everywhere: undecidable, header
    ("?,x\nb,y\nc,x\nb,x\n", False),  # a missing cell is data
    ("a,b,a\nx,y,x\nz,y,z\n", False),  # a repeated value is no header
])
def test_header_votes(text, header):
    assert read_table(text.encode(), return_report=True)[1].header is header


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "cp1252", "latin-1"])
def test_encodings_are_detected(encoding):
    text = "town,price,class\nZürich,5€,a\nSão Paulo,3€,b\nKøbenhavn,4€,a\n"
    if encoding == "latin-1":
        text = text.replace("€", "\x81")  # not Windows-1252: only Latin-1 decodes it
    frame, report = read_table(text.encode(encoding), return_report=True)
    assert frame["town"].tolist() == ["Zürich", "São Paulo", "København"]
    assert frame.iloc[0, 1] == text.split("\n")[1].split(",")[1]
    expected = {"utf-16-le": "utf-16-le", "latin-1": "latin-1", "cp1252": "cp1252"}.get(encoding, None)
    assert report.encoding == (expected or encoding)


def test_a_late_non_utf8_byte_falls_back(tmp_path):
    path = tmp_path / "late.csv"
    path.write_bytes(b"a,b\n" + b"x,1\n" * 400_000 + b"\xe9t\xe9,2\n")  # past the sniffed head
    frame, report = read_table(path, return_report=True)
    assert report.encoding == "cp1252" and frame["a"].iloc[-1] == "été"


def test_compressed_parquet_and_comment_lines(tmp_path):
    frame = pd.DataFrame({"a": ["x", "y", "x"], "b": [1.5, None, 2.0]})
    assert read_table(gzip.compress(frame.to_csv(index=False).encode())).equals(frame)
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    parquet, report = read_table(buffer.getvalue(), return_report=True)
    assert parquet.equals(frame) and report.format == "parquet"
    text = "% a comment block\n%\n\n1 2 x\n3 4 y\n5 6 x\n"
    frame, report = read_table(text.encode(), return_report=True)
    assert frame.shape == (3, 3) and report.comment_lines == 3 and report.delimiter == r"\s+"


@pytest.mark.parametrize("data, message", [
    (b"", "is empty"),
    (b"  \n\n", "is empty"),
    (b"a,b\n\x00\x01\x02\x03", "binary file .a NUL byte"),
    (b"PK\x03\x04" + bytes(40), "a damaged zip archive .an .xlsx workbook cut short"),
    (b"\xd0\xcf\x11\xe0" + bytes(40), "Excel 97-2003"),
    (b"\x89PNG\r\n\x1a\n" + bytes(8), "binary file .a PNG image"),
    (b"a,b\n1,2\n3,4\n5,6,7,8\n", "line 4 has 4 fields where the rows above have 2"),
])
def test_what_is_no_table_is_one_error_naming_the_file(data, message):
    with pytest.raises(ValueError, match=message) as info:
        read_table(data, name="upload.csv")
    assert str(info.value).startswith("upload.csv")


def test_a_wrong_encoding_names_the_file_and_byte(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes("a,b\nü,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match=rf"{path} is not UTF-8 text: byte 4"):
        read_table(path, encoding="utf-8")


# -- ARFF -----------------------------------------------------------------------------------------
ARFF = """% a comment
@RELATION 'weather report'

@attribute outlook {sunny, 'over cast', "rainy"}
@ATTRIBUTE 'wind speed' NUMERIC
@attribute count integer [0,10]
@attribute note string
@attribute when date "yyyy-MM-dd"
@attribute play {yes,no}

@data
sunny, 12.5, 3, 'a, b', 2020-01-02, no
% inside the data
'over cast', ?, 4, "it's", ?, yes
rainy,1e3,?,?,2020-01-03,yes
"""


def test_arff_types_quotes_comments_and_missing_values():
    frame = read_arff(ARFF.encode())
    assert list(frame.columns) == ["outlook", "wind speed", "count", "note", "when", "play"]
    assert frame.attrs["relation"] == "weather report"
    assert frame["outlook"].cat.categories.tolist() == ["sunny", "over cast", "rainy"]
    assert frame["outlook"].tolist() == ["sunny", "over cast", "rainy"]
    assert frame["wind speed"].dtype == np.float64 and frame["wind speed"].tolist()[::2] == [12.5, 1000.0]
    assert frame["count"].isna().tolist() == [False, False, True]
    assert frame["note"].tolist()[:2] == ["a, b", "it's"] and pd.isna(frame["note"].iloc[2])
    assert frame["when"].iloc[0] == "2020-01-02"
    assert read_table(ARFF.encode(), return_report=True)[1].format == "arff"


def test_sparse_arff_reads_omitted_values_as_zero():
    text = "@relation s\n@attribute a numeric\n@attribute b {x,y}\n@attribute c numeric\n@data\n{0 1.5, 1 y}\n{2 ?}\n{}\n"
    frame = read_arff(text.encode())
    assert frame["a"].tolist() == [1.5, 0.0, 0.0] and frame["b"].tolist() == ["y", "x", "x"]
    assert np.isnan(frame["c"].iloc[1]) and frame["c"].iloc[0] == 0.0


@pytest.mark.parametrize("text, message", [
    ("@relation r\n@attribute a {x,y}\n@data\nx\nz\n", "line 5: attribute 'a' holds 'z', expected one of"),
    ("@relation r\n@attribute a numeric\n@attribute b {x}\n@data\n1,x\none,x\n", "line 6: attribute 'a' holds 'one'"),
    ("@relation r\n@attribute a numeric\n@attribute b {x}\n@data\n1,x\n2,x,3\n", "line 6: a row holds 3 values"),
    ("@relation r\n@attribute a numeric\n@attribute b {x}\n@data\n1,x\n2\n", "line 6: the row holds fewer values"),
    ("@relation r\n@attribute a relational\n@data\n", "line 2: relational attribute 'a' is not supported"),
    ("@relation r\n@attribute a blob\n@data\n", "line 2: unknown type 'blob'"),
    ("@relation r\n@attribute a numeric\n", "no @data line"),
    ("@relation r\n@attribute a {x,x}\n@data\n", "declares a value twice"),
])
def test_malformed_arff_names_the_file_and_line(text, message):
    with pytest.raises(ValueError, match=message) as info:
        read_arff(text.encode(), name="bad.arff")
    assert str(info.value).startswith("bad.arff")


def test_datasets_read_arff_splits_the_class(tmp_path):
    path = tmp_path / "w.arff"
    path.write_text(ARFF)
    X, y = read_arff_xy(path)
    assert y.name == "play" and X.shape == (3, 5)
    X, y = read_arff_xy(path, target="outlook")
    assert y.tolist() == ["sunny", "over cast", "rainy"]
    with pytest.raises(ValueError, match="no attribute 'nope'"):
        read_arff_xy(path, target="nope")


# -- the UCI folder -------------------------------------------------------------------------------
@needs_uci
@pytest.mark.parametrize("arff, data, class_first", [
    ("car/car.arff", "car/car.data", False),
    ("house-votes-84/vote.arff", "house-votes-84/house-votes-84.data", True),
    ("chess/kr-vs-kp.arff", "chess/kr-vs-kp.data", False),
    ("mushroom/mushroom.arff", "mushroom/agaricus-lepiota.data", True),
])
def test_uci_arff_files_hold_the_rows_of_the_data_files(arff, data, class_first):
    from_arff = read_arff(UCI / arff)
    from_data, report = read_table(UCI / data, return_report=True)
    assert report.header is False  # UCI .data files have no header row
    if class_first:
        from_data = from_data[list(from_data.columns[1:]) + [from_data.columns[0]]]
    assert from_arff.shape == from_data.shape
    assert (from_arff.isna().to_numpy() == from_data.isna().to_numpy()).all()
    assert (from_arff.astype(object).fillna("?").to_numpy() == from_data.fillna("?").to_numpy()).all()


@needs_uci
def test_uci_soybean_arff_declares_the_codes_of_the_data_file():
    """soybean-large.data codes each value by its position in the declaration: the ARFF
    reader must keep the declared order, and read '?' as missing."""
    from_arff = read_arff(UCI / "soybean/soybean.arff")
    codes = read_table(UCI / "soybean/soybean-large.data")
    codes = codes[list(codes.columns[1:]) + [codes.columns[0]]]  # class first in the .data file
    top = from_arff.iloc[:len(codes)]
    assert (top.isna().to_numpy() == codes.isna().to_numpy()).all() and codes.isna().any().any()
    for j, column in enumerate(top.columns[:-1]):
        observed = codes.iloc[:, j].notna().to_numpy()
        declared = np.asarray(top[column].cat.categories)
        assert (declared[codes.iloc[:, j][observed].astype(int)] == top[column][observed].to_numpy()).all(), column
    assert (top.iloc[:, -1].to_numpy() == codes.iloc[:, -1].to_numpy()).all()


@needs_uci
def test_uci_heart_arff_matches_the_cleveland_numbers():
    from_arff = read_arff(UCI / "cleve/heart-c.arff")
    assert from_arff.shape == (303, 14) and from_arff["sex"].cat.categories.tolist() == ["female", "male"]
    # The ARFF file lacks .data's row 185 further down (and has another); compare the rows before.
    from_arff = from_arff.iloc[:184]
    numbers = read_table(UCI / "cleve/processed.cleveland.data").iloc[:184]
    for name, j in (("age", 0), ("trestbps", 3), ("chol", 4), ("thalach", 7), ("oldpeak", 9), ("ca", 11)):
        np.testing.assert_array_equal(from_arff[name].to_numpy(), numbers.iloc[:, j].to_numpy())
    assert (from_arff["sex"] == "male").tolist() == (numbers.iloc[:, 1] == 1).tolist()
    assert from_arff["thal"].isna().tolist() == numbers.iloc[:, 12].isna().tolist()


@needs_uci
def test_every_uci_file_reads():
    for path in sorted(UCI.glob("*/*")):
        if path.suffix == ".names":
            continue
        frame, report = read_table(path, return_report=True)
        assert len(frame) >= 47 and frame.shape[1] >= 5, path
        if report.format == "text":
            assert report.header is path.name.endswith(".tsv.gz"), path


def test_write_arff_writes_the_same_file_to_a_path_a_binary_and_a_text_file(tmp_path):
    """A text buffer (StringIO, open(..., "w")) gets the text; it raised "string argument
    expected, got 'bytes'" before."""
    from pybnc.io import write_arff

    frame = pd.DataFrame({"colour": ["rouge", None, "bleu"], "size": [1.5, 2.0, np.nan]})
    write_arff(frame, tmp_path / "a.arff", "demo")
    binary, text = io.BytesIO(), io.StringIO()
    write_arff(frame, binary, "demo")
    write_arff(frame, text, "demo")
    with open(tmp_path / "b.arff", "w", encoding="utf-8") as handle:
        write_arff(frame, handle, "demo")
    expected = (tmp_path / "a.arff").read_bytes()
    assert binary.getvalue() == expected == text.getvalue().encode("utf-8") == (tmp_path / "b.arff").read_bytes()
    back = read_arff(tmp_path / "b.arff")
    assert back["colour"].tolist()[::2] == ["rouge", "bleu"] and back["colour"].isna().tolist() == [False, True, False]


def test_a_european_csv_reads_its_decimal_commas_as_numbers():
    """Semicolon-separated with decimal commas (a European spreadsheet's export): the
    numbers were read as text, so a measurement became a column of hundreds of levels
    or was left out as a row identifier."""
    text = ("age;city;score;size\n36;Nice, FR;;1.5\n78,0;Paris;0,649;2\n25,5;Lyon;-2,28e-1;x\n"
            "40;Lyon;?;3\n").encode()
    frame, report = read_table(text, return_report=True)
    assert report.delimiter == ";" and report.decimal_comma == ["age", "score"]
    assert frame["age"].tolist() == [36.0, 78.0, 25.5, 40.0]  # its first value without a comma
    np.testing.assert_allclose(frame["score"].to_numpy(), [np.nan, 0.649, -0.228, np.nan])
    assert frame["city"].tolist() == ["Nice, FR", "Paris", "Lyon", "Lyon"]  # text with a comma stays text
    assert frame["size"].tolist() == ["1.5", "2", "x", "3"]  # not every value a number: text
    assert "decimal commas read as numbers in 2 columns" in report.describe()
    # thousands points with a decimal comma; quoted decimal commas in a comma-separated file
    assert read_table(b"a;b\n1.234,5;x\n2,5;y\n")["a"].tolist() == [1234.5, 2.5]
    assert read_table(b'a,b\n"1,5",x\n"2,5",y\n')["a"].tolist() == [1.5, 2.5]
    assert read_table(b"a;b\n").shape == (0, 2)  # a header without rows, as before


def _workbook(sheets: dict) -> bytes:
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        for name, frame in sheets.items():
            frame.to_excel(writer, sheet_name=name, index=False)
    return buffer.getvalue()


def test_an_excel_workbook_reads_its_first_sheet(tmp_path):
    """An .xlsx was refused ("a zip archive ...: export the sheet as CSV"); its first sheet
    is the table now, its first row the names, '?' and empty cells missing."""
    frame = pd.DataFrame({"age": [1.5, 2.0, np.nan], "city": ["Paris", "?", "Lyon"], "n": [1, 2, 3],
                          "y": ["a", "b", "a"]})
    data = _workbook({"data": frame, "notes": frame.head(1)})
    (tmp_path / "t.xlsx").write_bytes(data)
    for source in (data, tmp_path / "t.xlsx"):
        read, report = read_table(source, return_report=True, name="t.xlsx")
        assert read.columns.tolist() == ["age", "city", "n", "y"]
        np.testing.assert_array_equal(read["age"].to_numpy(), [1.5, 2.0, np.nan])
        assert read["city"].isna().tolist() == [False, True, False] and read["n"].dtype.kind == "i"
        assert report.describe() == "t.xlsx: Excel workbook, sheet 'data' (the first of 2); 3 rows, 4 columns"
    headless = read_table(data, header=False)
    assert headless.columns.tolist() == ["col1", "col2", "col3", "col4"] and headless.shape == (4, 4)


def test_a_damaged_workbook_a_plain_zip_and_a_missing_openpyxl_say_so(monkeypatch):
    import sys
    import zipfile

    data = _workbook({"data": pd.DataFrame({"a": [1, 2], "y": ["p", "q"]})})
    with pytest.raises(ValueError, match=r"t\.xlsx is a damaged zip archive \(an \.xlsx workbook cut short\?\)"):
        read_table(data[: len(data) // 2], name="t.xlsx")
    plain = io.BytesIO()
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("table.csv", "a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"is a binary file \(a zip archive: unzip it\)"):
        read_table(plain.getvalue())
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(ImportError, match=r'needs openpyxl: pip install "pybnc\[excel\]"'):
        read_table(data, name="t.xlsx")


# -- numbers written as text, as pd.read_csv leaves them ----------------------------------
def test_text_columns_of_numbers_with_missing_tokens_are_read_as_numbers():
    import warnings

    import pybnc
    from pybnc.encode import EncodingWarning

    rng = np.random.default_rng(0)
    n = 300
    y = rng.choice(["a", "b"], n)
    amount = np.round(rng.normal(50, 10, n) + 10 * (y == "a"), 2)
    frame = pd.DataFrame({"amount": amount.astype(str).astype(object), "code": rng.choice(["1", "2"], n),
                          "age": rng.integers(18, 90, n).astype(str).astype(object)})
    frame.loc[::7, "amount"] = "?"
    frame.loc[3::11, "amount"] = " NA"
    frame.loc[5::13, "age"] = "-"
    typed = frame.replace({"?": np.nan, " NA": np.nan, "-": np.nan}).astype({"amount": float, "age": float})
    with pytest.warns(EncodingWarning, match=r"Text columns of numbers are read as numbers.*'amount' \(missing: "
                                             r"' NA', '\?'\), 'age' \(missing: '-'\)"):
        model = pybnc.TAN().fit(frame, y)
    reference = pybnc.TAN().fit(typed.assign(code=frame["code"]), y)
    assert model.encoder_.kinds_ == reference.encoder_.kinds_ == ["discretised", "categorical", "discretised"]
    for ours, theirs in zip(model.encoder_.cut_points_, reference.encoder_.cut_points_):
        np.testing.assert_array_equal(ours if ours is not None else [], theirs if theirs is not None else [])
    assert model.encoder_.categories_[1].tolist() == ["1", "2"]  # a few codes and no token stay text
    np.testing.assert_array_equal(model.predict_proba(frame), reference.predict_proba(typed.assign(code=frame["code"])))
    with warnings.catch_warnings():
        warnings.simplefilter("error", EncodingWarning)
        as_text = pybnc.Encoder(categorical_features=["amount", "age"])
        kept = pybnc.NaiveBayes(encoder=as_text).fit(frame[["amount", "age"]], y)
    assert "?" in kept.encoder_.categories_[0].tolist()
    # few whole numbers and a token: levels of numbers, read again from text at predict
    small = pd.DataFrame({"stars": rng.choice(["1", "2", "3", "?"], n)})
    with pytest.warns(EncodingWarning, match=r"'stars' \(missing: '\?'\)"):
        model = pybnc.NaiveBayes().fit(small, y)
    assert model.encoder_.categories_[0].tolist() == [1.0, 2.0, 3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", EncodingWarning)  # no "values of another type" at predict
        codes = model.encoder_.transform(small)
    np.testing.assert_array_equal(codes[:, 0], np.where(small["stars"] == "?", -1, small["stars"].replace("?", "0")
                                                        .astype(int) - 1))


def test_text_columns_of_numbers_with_thousands_commas_are_numbers():
    import pybnc

    rng = np.random.default_rng(1)
    y = rng.choice(["a", "b"], 400)
    amount = np.round(rng.lognormal(7, 1, 400) * np.where(y == "a", 2, 1), 2)
    frame = pd.DataFrame({"amount": [f"{v:,.2f}" for v in amount]})  # pd.read_csv leaves "1,234.50" text
    with pytest.warns(UserWarning, match=r"read as numbers.*'amount'"):
        model = pybnc.NaiveBayes().fit(frame, y)
    reference = pybnc.NaiveBayes().fit(pd.DataFrame({"amount": amount}), y)
    assert model.encoder_.kinds_ == ["discretised"] and not model.encoder_.dropped_columns_
    np.testing.assert_array_equal(model.encoder_.cut_points_[0], reference.encoder_.cut_points_[0])
    one = pd.DataFrame({"amount": ["2,345"]})  # a fitted column reads thousands commas in any value
    np.testing.assert_array_equal(model.predict_proba(one), reference.predict_proba(pd.DataFrame({"amount": [2345.0]})))
    # "1,234" alone may be a decimal comma: such a column is not taken for numbers
    assert pybnc.NaiveBayes().fit(pd.DataFrame({"v": ["1,234", "2,500"] * 20}), ["a", "b"] * 20) \
        .encoder_.categories_[0].tolist() == ["1,234", "2,500"]


@needs_uci
def test_crx_read_by_pandas_is_encoded_as_read_by_read_table():
    import pybnc
    from pybnc.encode import EncodingWarning

    path = UCI / "crx" / "crx.data"
    raw, typed = pd.read_csv(path, header=None), read_table(path)
    with pytest.warns(EncodingWarning, match=r"Text columns of numbers .*: 1 \(missing: '\?'\), 13 \(missing: '\?'\)"):
        ours = pybnc.TAN().fit(raw.iloc[:, :-1], raw.iloc[:, -1])
    theirs = pybnc.TAN().fit(typed.iloc[:, :-1], typed.iloc[:, -1])
    assert ours.encoder_.kinds_ == theirs.encoder_.kinds_  # A2 and A14 numbers, not 350 and 171 levels
    assert [c is None for c in ours.encoder_.cut_points_] == [c is None for c in theirs.encoder_.cut_points_]


def test_fit_dask_says_it_keeps_text_columns_of_numbers_as_categories():
    dd = pytest.importorskip("dask.dataframe")
    import pybnc
    from pybnc.encode import EncodingWarning
    from pybnc.streaming import fit_dask

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"amount": np.round(rng.normal(50, 10, 200), 2).astype(str).astype(object),
                          "cls": rng.choice(["a", "b"], 200)})
    frame.loc[::7, "amount"] = "?"
    with pytest.warns(EncodingWarning, match=r"categories in fit_dask, which fit reads as numbers: 'amount'"):
        fit_dask(pybnc.NaiveBayes(), dd.from_pandas(frame, npartitions=2), "cls")


# -- thousands separators and decimal commas ------------------------------------------------
def test_thousands_separators_are_read_as_numbers_not_left_out_as_identifiers():
    import pybnc

    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b"], 300)
    amount = (rng.integers(1_000, 90_000, 300) + 20_000 * (y == "a")).astype(int)
    text = "amount,class\n" + "".join(f'"{v:,}",{c}\n' for v, c in zip(amount, y))
    frame, report = read_table(text.encode(), return_report=True)
    assert frame["amount"].dtype == np.int64 and frame["amount"].tolist() == amount.tolist()
    assert report.thousands == ["amount"] and "thousands separators read as numbers in 1 column" in report.describe()
    model = pybnc.NaiveBayes().fit(frame[["amount"]], frame["class"])
    assert model.encoder_.kinds_ == ["discretised"] and not model.encoder_.dropped_columns_


@pytest.mark.parametrize("decimal, sep", [(".", ","), (".", "\t"), (",", ";"), (",", "\t")])
def test_numbers_written_with_either_mark_read_back_exactly(decimal, sep):
    """Random numbers of every magnitude and sign, written as a spreadsheet of each
    convention writes them (grouped thousands, two decimals), read back to the cent."""
    rng = np.random.default_rng(len(sep) + ord(decimal))
    values = np.round(rng.choice([-1, 1], 500) * 10 ** rng.uniform(-2, 8, 500), 2)
    written = [f"{v:,.2f}" for v in values]
    if decimal == ",":
        written = [w.translate(str.maketrans(",.", ".,")) for w in written]
    quote = '"' if sep == "," else ""
    text = f"x{sep}k\n" + "".join(f"{quote}{w}{quote}{sep}{i % 3}\n" for i, w in enumerate(written))
    frame, report = read_table(text.encode(), return_report=True)
    np.testing.assert_array_equal(frame["x"].to_numpy(), values)
    assert report.decimal_comma == (["x"] if decimal == "," else [])


def test_numbers_that_read_both_ways_follow_the_file_or_are_refused_naming_the_column():
    ambiguous = b"amount;city\n42.520;Paris\n1.234;Lyon\n7;Nice\n"
    with pytest.raises(ValueError, match=r"^t\.csv: column 'amount' holds numbers such as '42\.520', which read as "
                                         r"42\.52 \(decimal point, thousands commas\) or as 42520 \(decimal comma, "
                                         r"thousands points\); say which with decimal='\.' or decimal=','"):
        read_table(ambiguous, name="t.csv")
    assert read_table(ambiguous, decimal=",")["amount"].tolist() == [42520, 1234, 7]
    assert read_table(ambiguous, thousands=",")["amount"].tolist() == [42.52, 1.234, 7.0]
    # another column says the file's decimal mark: the points are thousands
    frame, report = read_table(b"amount;rate\n42.520;0,5\n1.234;1,25\n", return_report=True)
    assert frame["amount"].tolist() == [42520, 1234] and frame["rate"].tolist() == [0.5, 1.25]
    assert report.thousands == ["amount"] and report.decimal_comma == ["rate"]
    # a quoted comma in a comma-separated file is thousands, in a semicolon-separated one decimal
    assert read_table(b'amount,city\n"42,520",Paris\n"1,234",Lyon\n')["amount"].tolist() == [42520, 1234]
    assert read_table(b"amount;city\n42,520;Paris\n1,234;Lyon\n")["amount"].tolist() == [42.52, 1.234]
    for text in (b"amount\tcity\n42.520\tParis\n1.234\tLyon\n", b"amount\tcity\n42,520\tParis\n",
                 b'amount,city\n42.520,Paris\n1.234,Lyon\n'):  # nothing says which: refused
        with pytest.raises(ValueError, match="column 'amount' holds numbers such as"):
            read_table(text)
    assert read_table(b"amount,rate\n42.520,0.5\n1.234,0.25\n")["amount"].tolist() == [42.52, 1.234]
    with pytest.raises(ValueError, match="decimal must be"):
        read_table(ambiguous, decimal="_")


def test_a_column_that_turns_to_decimal_points_past_the_sample_is_refused():
    rows = "".join(f"{i % 900 + 1}.{i % 1000:03d};0,5\n" for i in range(1200)) + "1.5;0,5\n"  # 1.5 past the sample
    with pytest.raises(ValueError, match=r"column 'a' holds numbers with a decimal comma and numbers with a "
                                         r"decimal point"):
        read_table(("a;b\n" + rows).encode())


def test_the_fast_number_match_is_the_regular_expressions():
    from pybnc.io._numbers import NUMBER, numbers_written

    rng = np.random.default_rng(0)
    alphabet = list("0123456789.,eE+- x")
    values = np.unique(["".join(rng.choice(alphabet, rng.integers(1, 9))) for _ in range(40_000)]
                       + ["inf", "nan", "1.234", "12.345.678", "1,5", "0.649", "5.", ".5", "-1.5e-3", "1.234e5"])
    found = numbers_written(values)
    for mark in ".,":
        expected = pd.Series(values, dtype=object).str.fullmatch(NUMBER[mark]).to_numpy(dtype=bool)
        assert expected.sum() > 1000
        np.testing.assert_array_equal(found[mark], expected)
