"""``assay view`` over the hostile tables of tests/robustness (NaN everywhere, one row, names
with markup and control characters, huge attributes...): an export is written or refused in
one line, and a table read with the table options (--map, --set, --scale) is viewed as mapped."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cli import main
from tests.robustness._tables import TABLES, write_csv


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_hostile_table_exports_or_refuses_in_one_line(name, tmp_path, capsys):
    records, scales = TABLES[name]()
    source = tmp_path / "table.csv"
    write_csv(records, source)
    out = tmp_path / "view.html"
    code, output = _run(["view", str(source), *[a for s in scales for a in ("--scale", s)],
                         "--export", str(out)], capsys)
    assert "Traceback" not in output and "internal error" not in output, output[-2000:]
    assert code == 0, output[-2000:]
    html = out.read_text(encoding="utf-8")
    assert html.count("</script>") == 2  # the data cannot close their element
    assert f"wrote {out} ({len(records):,} rows)" in output or "an export holds at most" in output


def test_a_table_is_viewed_through_the_table_options(tmp_path: Path, capsys):
    source = tmp_path / "mine.csv"
    source.write_text("question_id,model,quality\nq1,a,7\nq2,b,3\n", encoding="utf-8")
    out = tmp_path / "view.html"
    code, output = _run(["view", str(source), "--map", "question_id=item,model=arm,quality=score",
                         "--set", "judge=gpt-4o", "--filter", "judge=gpt-4o", "--export", str(out)],
                        capsys)
    assert code == 0 and f"wrote {out} (2 rows)" in output, output
    code, output = _run(["view", str(source), "--export", str(out)], capsys)
    assert code == 2 and "unknown column" in output and "--map question_id=COLUMN" in output
