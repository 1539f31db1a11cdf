"""Seeded fuzz of the readers (issue 24, item 4): damaged tables and model files get a
clear error naming the file, or are read exactly as an independent second reading
says; never a raw exception, a hang or a silent misreading. A few hundred cases from
``benchmarks/_mutations.py`` (``benchmarks/fuzz_readers.py`` runs 1,500 and 1,000),
then the behaviours the fuzz found, one by one."""

import gzip
import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pybnc
from pybnc.datasets import load_dataset
from pybnc.io import read_table, write_arff

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _mutations import check_model, check_table, model_cases, table_cases  # noqa: E402


def _failures(cases, outcomes):
    return [f"{case.name} ({case.how}): {outcome.kind}: {outcome.detail}"
            for case, outcome in zip(cases, outcomes) if outcome.kind not in ("read", "error")]


@pytest.mark.slow  # the whole fuzzed corpus
def test_damaged_tables_are_read_exactly_or_refused_naming_the_file():
    cases = table_cases(120, seed=24)
    outcomes = [check_table(case) for case in cases]
    assert not _failures(cases, outcomes)
    kinds = {outcome.kind for outcome in outcomes}
    assert kinds == {"read", "error"}  # the corpus holds both


@pytest.mark.slow  # the whole fuzzed corpus
def test_damaged_model_files_are_refused_naming_the_field(tmp_path):
    cases = model_cases(150, seed=24)
    outcomes = [check_model(case, tmp_path) for case in cases]
    assert not _failures(cases, outcomes)
    assert {outcome.kind for outcome in outcomes} == {"read", "error"}
    assert not [o.detail for o in outcomes if "probe row" in o.detail]  # each says which field


# -- what the fuzz found ---------------------------------------------------------------------
CAR = load_dataset("car")[0].assign(verdict=load_dataset("car")[1]).head(40).to_csv(index=False).encode()


@pytest.mark.parametrize("damage, why", [
    (lambda z: z[:len(z) // 2], "Compressed file ended"),  # truncated
    (lambda z: z[:2] + b"\x07" + z[3:], "unknown compression method"),
    (lambda z: z[:3] + b"\xe0" + z[4:], "header flags"),
    (lambda z: z[:-8] + bytes([z[-8] ^ 0xFF]) + z[-7:], "data check"),  # the CRC
    (lambda z: z[:40] + bytes(b ^ 0x55 for b in z[40:60]) + z[60:], ""),  # the deflate data
])
def test_a_broken_gzip_file_is_one_error_naming_the_file(damage, why):
    with pytest.raises(ValueError, match=r"^broken\.csv\.gz is (a damaged|an empty or damaged) gzip file") as info:
        read_table(damage(gzip.compress(CAR, mtime=0)), name="broken.csv.gz")
    assert why.lower() in str(info.value).lower() or not why or "nothing decompresses" in str(info.value)


def test_rows_short_of_fields_are_refused_with_their_lines():
    lines = CAR.decode().splitlines()
    truncated = "\n".join(lines[:30]) + "\n" + lines[30][:9]
    with pytest.raises(ValueError, match=r"t\.csv: line 31 has 2 fields where the rows above have 7 \(delimiter "
                                         r"comma\); the file may be truncated"):
        read_table(truncated.encode(), name="t.csv")
    short = lines[:5] + ["vhigh,low,2"] + lines[5:20] + ["a,b"] + lines[20:]
    with pytest.raises(ValueError, match=r"line 6 has 3 fields where the rows above have 7 .*\(also line 22\)"):
        read_table("\n".join(short).encode(), name="t.csv")
    # A value left empty is a missing value, not a short row.
    frame = read_table("\n".join(lines[:3] + ["vhigh,low,2,,small,,unacc"]).encode())
    assert frame.iloc[-1].isna().sum() == 2


def test_a_first_line_that_fits_no_row_is_refused_or_read_as_row_names():
    lines = CAR.decode().splitlines()
    body = "\n".join(lines[1:])
    for first in ("a,b,c", ",".join(f"c{j}" for j in range(10_000))):  # too few, far too many
        with pytest.raises(ValueError, match=r"w\.csv: line 1 has \d+ fields where the other rows have 7 .*"
                                             "neither a header of this table nor one of its rows"):
            read_table(f"{first}\n{body}".encode(), name="w.csv")
    # One name fewer than the fields below: R's write.table, whose first column holds row names.
    frame, report = read_table((lines[0] + "\n" + "\n".join(f"r{i},{line}" for i, line in
                                                             enumerate(lines[1:]))).encode(), return_report=True)
    assert report.row_names and "row names" in report.describe()
    assert list(frame.columns) == ["Unnamed: 0", *lines[0].split(",")] and len(frame) == len(lines) - 1
    assert frame["Unnamed: 0"].iloc[0] == "r0" and frame["safety"].tolist() == \
        pd.read_csv(io.BytesIO(CAR))["safety"].tolist()
    # A genuine table of 10,000 columns reads.
    wide = pd.DataFrame(np.arange(30_000).reshape(3, 10_000) % 7).add_prefix("c").to_csv(index=False).encode()
    assert read_table(wide).shape == (3, 10_000)


def test_a_stray_quote_is_refused_not_read_across_lines():
    lines = CAR.decode().splitlines()
    lines[10] = lines[10].replace(",", ',"', 1)  # opens a value that closes lines later, or never
    with pytest.raises(ValueError, match=r"^q\.csv: .*line 11"):
        read_table("\n".join(lines).encode(), name="q.csv")


def test_a_column_of_numbers_then_text_is_typed_as_a_whole():
    n = 300_000  # pandas types a long file block by block
    column = np.arange(n).astype(str).astype(object)
    column[-1] = "many"
    data = pd.DataFrame({"x": column, "y": np.arange(n) % 2}).to_csv(index=False).encode()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DtypeWarning reaches the user
        frame = read_table(data)
    assert frame["x"].map(type).eq(str).all() and frame["x"].iloc[-1] == "many"


def test_c45_comment_lines_are_skipped():
    frame = read_table(b"|1x3 Cross validator\n" + b"\n".join(CAR.splitlines()[1:10]))
    assert frame.shape == (9, 7)
    pipes = read_table(b"|a|b\n|1|2\n|3|4\n")  # a table whose every line starts with the delimiter
    assert pipes.shape == (2, 3)


def test_a_long_cell_does_not_exhaust_memory():
    lines = CAR.decode().splitlines()
    lines[3] += "x" * 3_000_000
    frame = read_table("\n".join(lines).encode())
    assert frame.iloc[2, -1] == "unacc" + "x" * 3_000_000


def test_an_arff_file_with_a_damaged_declaration_says_so():
    buffer = io.BytesIO()
    write_arff(load_dataset("car")[0].head(5), buffer, "car")
    damaged = buffer.getvalue().replace(b"@relation", "@rélation".encode("latin-1"))
    with pytest.raises(ValueError, match=r"^a\.arff, line 1: expected @relation, @attribute or @data"):
        read_table(damaged, name="a.arff")


def test_a_model_file_with_a_dataclass_stored_attribute_by_attribute_is_refused(tmp_path):
    import json
    import zipfile

    X, y = load_dataset("car")
    buffer = io.BytesIO()
    pybnc.save(pybnc.TAN().fit(X, y), buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    header = json.loads(members["model.json"])
    structure = header["estimator"]["attributes"]["structure_"]
    structure["type"], structure["attributes"] = "object", structure.pop("fields")
    members["model.json"] = json.dumps(header).encode()
    path = tmp_path / "m.pybnc"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match=r"TAN\.structure_: Structure is stored as a 'dataclass' node"):
        pybnc.load(path)


def test_an_ensemble_member_with_a_cycle_is_refused_naming_it(tmp_path):
    X, y = load_dataset("car")
    model = pybnc.ESKDB(n_estimators=2, hdp_iterations=10, random_state=0, verbose=0).fit(X, y)
    from pybnc.structure import Structure

    n = len(model.structures_[1].parents)
    model.structures_[1] = Structure(tuple((1,) if i == 0 else (0,) if i == 1 else () for i in range(n)))
    path = tmp_path / "e.pybnc"
    pybnc.save(model, path)
    with pytest.raises(ValueError, match=r"ESKDB\.structures_\[1\]: .*cycle"):
        pybnc.load(path)


def test_field_counts_on_bytes_and_through_csv_agree():
    """The two ways of counting fields (numpy on the bytes of a file without quotes; the
    csv module otherwise) give the same records on files they can both count."""
    from pybnc.io._fields import _count_bytes, _count_text
    from pybnc.io._sniff import sniff

    rng = np.random.default_rng(3)
    for trial in range(200):
        end = ["\n", "\r\n", "\r"][trial % 3]
        sep = [",", ";", "\t", r"\s+"][trial % 4]
        lines = []
        for _ in range(int(rng.integers(1, 12))):
            kind = rng.random()
            if kind < 0.1:
                lines.append(["", "   ", "\t "][int(rng.integers(3))])
            else:
                cells = ["".join(rng.choice(list("ab1 ?x"), int(rng.integers(0, 4)))).strip()
                         for _ in range(int(rng.integers(1, 5)))]
                if sep == r"\s+":
                    cells = [c.replace(" ", "") or "z" for c in cells]
                lines.append((" " * int(rng.integers(0, 3)) if sep == r"\s+" else "").join([""]) +
                             (" " if sep == r"\s+" else sep).join(cells))
        data = (end.join(lines) + (end if rng.random() < 0.5 else "")).encode()
        if not data.strip():
            continue
        sniffed = sniff(data)
        skip = int(rng.integers(0, 2))
        fast, slow = _count_bytes(sniffed, sep, skip), _count_text(sniffed, sep, skip)
        assert fast.widths.tolist() == slow.widths.tolist(), (data, sep)
        assert fast.lines.tolist() == slow.lines.tolist(), (data, sep)


def test_field_counts_of_quoted_files_on_bytes_agree_with_the_csv_module(monkeypatch):
    """numpy's count of a file with quotes gives the csv module's records wherever every
    quote opens or closes a quoted field (escaped quotes, delimiters and line ends inside
    quotes, spaces around them, blank lines, skipped lines); a quote anywhere else, or a
    file over the size held in memory, goes to the csv module."""
    from pybnc.io import _fields
    from pybnc.io._sniff import sniff

    rng = np.random.default_rng(7)
    counted = 0
    for trial in range(800):
        end, sep = ["\n", "\r\n", "\r"][trial % 3], [",", ";", "\t", "|"][(trial // 3) % 4]
        lines = []
        for _ in range(int(rng.integers(1, 9))):
            if rng.random() < 0.1:
                lines.append(["", "   ", "\t ", ' "" '][int(rng.integers(4))])
                continue
            cells = []
            for _ in range(int(rng.integers(1, 5))):
                cell, kind = "".join(rng.choice(list('ab1 ?x"\n' + sep), int(rng.integers(0, 5)))), rng.random()
                if kind < 0.5:  # quoted as a writer quotes, spaces around
                    cell = " " * int(rng.integers(0, 2)) + '"' + cell.replace('"', '""') + '"' + " " * int(rng.integers(0, 2))
                elif kind < 0.8:
                    cell = cell.replace('"', "").replace(sep, "").replace("\n", "")
                cells.append(cell)  # else as drawn: stray quotes, delimiters and line ends
            lines.append(sep.join(cells))
        data = (end.join(lines) + (end if rng.random() < 0.5 else "")).encode()
        if not data.strip():
            continue
        sniffed, skip = sniff(data), int(rng.integers(0, 2))
        try:
            slow = _fields._count_text(sniffed, sep, skip)
        except ValueError:
            continue
        fast = _fields._count_quoted_bytes(sniffed, sep, skip)
        if fast is not None:
            counted += 1
            assert (fast.widths.tolist(), fast.lines.tolist()) == (slow.widths.tolist(), slow.lines.tolist()), data
    assert counted > 250  # most files are counted on their bytes
    stray = sniff(b'a,b\n5"in,2\n"x" y,3\n')
    assert _fields._count_quoted_bytes(stray, ",", 0) is None
    assert _fields.count_fields(stray, ",", 0).widths.tolist() == [2, 2, 2]
    monkeypatch.setattr(_fields, "QUOTED_IN_MEMORY", 8)
    assert _fields._count_quoted_bytes(sniff(b'a,b\n"x,y",2\n'), ",", 0) is None


def test_a_line_longer_than_the_csv_modules_field_limit_reads():
    # 12,000 float columns: lines of 235,000 characters, over the csv module's 131,072
    rng = np.random.default_rng(0)
    wide = pd.DataFrame(rng.normal(size=(4, 12_000))).add_prefix("feature ")
    for sep in (",", " "):
        frame = read_table(wide.to_csv(index=False, sep=sep).encode())
        assert frame.shape == (4, 12_000) and np.allclose(frame.to_numpy(), wide.to_numpy())


def test_stray_quotes_in_a_whitespace_separated_file_are_refused_naming_the_line():
    lines = CAR.decode().replace(",", " ").splitlines()
    for i in (12, 20, 30):  # pandas read the rows below into such values (the fuzz: 1,035 of 1,728 rows)
        lines[i] = lines[i].replace(" ", ' "', 1)
    with pytest.raises(ValueError, match=r'^s\.data, line 13: a quote \(\"\) opens a value that does not close'):
        read_table("\n".join(lines).encode(), name="s.data")


def test_quoted_values_of_a_whitespace_separated_file_are_one_field_each():
    text = b'mpg cyl name\n18.0 8 "chevrolet chevelle malibu"\n15.0 8 "buick skylark 320"\n' \
           b'18.0 8 "plymouth ""satellite"""\n16.0 6 amc"rebel\n'
    frame = read_table(text, sep=r"\s+")
    assert frame["name"].tolist() == ["chevrolet chevelle malibu", "buick skylark 320", 'plymouth "satellite"',
                                      'amc"rebel']
    assert frame["mpg"].tolist() == [18.0, 15.0, 18.0, 16.0]


def test_numbers_as_people_write_them_are_read_exactly_or_refused():
    from fuzz_readers import check_number_case, number_cases

    pairs = number_cases(150, seed=46)
    outcomes = [check_number_case(case, meant) for case, meant in pairs]
    assert not _failures([case for case, _ in pairs], outcomes)
    assert sum(o.kind == "read" for o in outcomes) > 140
