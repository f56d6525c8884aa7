"""A folder of mixed result files: each file read by the importer of its format."""

import shutil
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.cli._app import main
from assay.data.importers import detect_format
from assay.data.io import import_folder
from assay.errors import InputError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def mixed(tmp_path):
    folder = tmp_path / "results"
    (folder / "mt").mkdir(parents=True)
    shutil.copy(FIXTURES / "mt_bench" / "gpt-4_single.jsonl", folder / "mt")
    shutil.copy(FIXTURES / "mt_bench" / "question.jsonl", folder / "mt")
    shutil.copy(FIXTURES / "arena_hard" / "gpt-4-0613.jsonl", folder)
    shutil.copy(FIXTURES / "qed" / "win_rates.csv", folder)
    (folder / "mine.csv").write_text("item,arm,score\nq1,a,1\nq2,a,0\nq3,a,1\n")
    return folder


def test_each_file_is_recognised(mixed):
    found = {p.name: detect_format(p) for p in mixed.rglob("*") if p.is_file()}
    assert found == {"gpt-4_single.jsonl": "mt-bench", "question.jsonl": "mt-bench",
                     "gpt-4-0613.jsonl": "arena-hard", "win_rates.csv": "qed",
                     "mine.csv": "table"}


def test_the_folder_gives_each_format_its_own_figures(mixed):
    rows = {(r.criterion, r.arm): r for r in score_summary(import_folder(mixed)).rows}
    # the figures each format's own tool prints (see test_mt_bench, test_arena_hard, test_qed)
    assert round(rows["rating", "granite-7b-lab"].estimate, 6) == 7.846154
    assert rows["preference", "gpt-4-0613"].estimate == pytest.approx(7.5 / 34)
    # read from the base's side: vector_rag's win rate is 1 - graph_rag's 0.6458333
    assert rows["diversity", "vector_rag"].estimate == pytest.approx(1 - 0.6458333333333334)
    assert rows["score", "a"].estimate == pytest.approx(2 / 3)


def test_report_says_which_importer_read_each_file(mixed, capsys):
    with pytest.raises(SystemExit) as info:
        main(["report", str(mixed), "--kind", "scores"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert f"read {mixed / 'gpt-4-0613.jsonl'} as arena-hard" in out
    assert f"read {mixed / 'mt' / 'question.jsonl'} as mt-bench" in out
    assert f"read {mixed / 'win_rates.csv'} as qed" in out
    assert f"read {mixed / 'mine.csv'} as table" in out
    assert "7.846" in out and "0.221" in out


def test_a_file_not_recognised_stops_the_report_naming_it(mixed, capsys):
    (mixed / "notes.txt").write_text("what we ran\n")
    with pytest.raises(InputError, match=r"not recognised: notes\.txt"):
        import_folder(mixed)
    with pytest.raises(SystemExit) as info:
        main(["report", str(mixed), "--kind", "scores"])
    captured = capsys.readouterr()
    assert info.value.code == 2
    assert "notes.txt" in captured.err + captured.out
    assert "Traceback" not in captured.err + captured.out
