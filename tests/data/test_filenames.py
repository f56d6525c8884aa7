"""File names built from data (``assay.data.filenames``): inside the folder, valid, unique."""

from __future__ import annotations

import string
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.filenames import FileNames, safe_name, sheet_name

HOSTILE = ["../../ESCAPED", "/etc/passwd", "openai/gpt-4o", "a\x00b", "..", ".", "", " ",
           "C:\\x", "con", "NUL.txt", "x" * 300, "é/ü", "a\nb", "-rf", ".hidden", "A", "a"]


def test_plain_names_are_kept_as_they_are():
    for name in ("gpt-4o-mini", "vector_rag", "data_local", "all", "v1.2", "Model_7"):
        assert safe_name(name) == name


def test_hostile_names_become_one_component_inside_the_folder(tmp_path):
    for value in HOSTILE:
        name = safe_name(value)
        assert name and "/" not in name and "\\" not in name and "\x00" not in name
        assert not name.startswith(".") and len(name) <= 100
        assert (tmp_path / f"{name}.csv").resolve().parent == tmp_path.resolve()
        (tmp_path / f"{name}.csv").write_text("x")  # the file system takes it


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.text(max_size=40))
def test_two_different_values_never_share_a_name(a, b):
    if a != b:
        assert safe_name(a) != safe_name(b) or safe_name(a) == a == b


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=string.printable + "\x00é/", max_size=60))
def test_a_name_holds_only_safe_characters(value):
    name = safe_name(value)
    assert set(name) <= set(string.ascii_letters + string.digits + "._-")
    assert Path(name).name == name and name not in (".", "..")


def test_file_names_are_never_given_twice_even_by_case():
    names = FileNames({"win_rates.csv"})
    given_out = [names.claim("all_A--B", ".csv", tag="pairwise"),
                 names.claim("all_A--B", ".csv", tag="reference"),
                 names.claim("all_a--b", ".csv", tag="reference"),
                 names.claim("win_rates", ".csv")]
    assert given_out[:2] == ["all_A--B.csv", "all_A--B.reference.csv"]
    assert len({n.casefold() for n in given_out}) == 4
    assert "win_rates.csv" not in given_out


def test_sheet_names_follow_excels_rules():
    used: set[str] = set()
    names = [sheet_name(v, used) for v in [*HOSTILE, "Scores", "scores", "History", "x" * 40]]
    assert len({n.casefold() for n in names}) == len(names)
    for name in names:
        assert 1 <= len(name) <= 31 and not set(name) & set("[]:*?/\\")
        assert not name.startswith("'") and not name.endswith("'")
    assert sheet_name("Scores") == "Scores"
