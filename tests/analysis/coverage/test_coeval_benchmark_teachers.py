"""Benchmark teachers on a real CoEval run: from the command line (``--benchmark-teachers``)
and from CoEval's ingest convention (``coeval ingest`` names the benchmark as the teacher and
adds it to the run's config.yaml with ``interface: benchmark``; CoEval's
``Code/runner/commands/ingest_cmd.py`` at commit e6ad005).

Fixture: ``tests/fixtures/coeval/medium-benchmark-summaries`` (real; see tests/fixtures/README.md). On
today's main the synthetic-versus-benchmark comparison had no benchmark side on an import, and
the teacher report failed on items carrying a subset of the attributes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from assay.analysis.coverage import teacher_report
from assay.cli import main
from assay.data.importers import import_coeval

RUN = Path(__file__).parents[2] / "fixtures" / "coeval" / "medium-benchmark-summaries"


def _kinds(report) -> dict[str, int]:
    return {k.kind: k.n_items for k in report.kinds}


def test_the_ingest_convention_makes_a_benchmark_teacher(tmp_path):
    run = tmp_path / "medium-benchmark"
    shutil.copytree(RUN, run)
    # as 'coeval ingest --benchmark gpt-3.5-turbo' would have declared its teacher
    (run / "config.yaml").write_text(
        "models:\n- interface: openai\n  name: gpt-4o-mini\n  roles: [teacher, student, judge]\n"
        "- interface: benchmark\n  name: gpt-3.5-turbo\n  roles: [teacher]\n")
    report = teacher_report(import_coeval([run]))
    assert _kinds(report) == {"synthetic": 8, "benchmark": 8}
    assert any("interface: benchmark" in n and "gpt-3.5-turbo" in n for n in report.notes)


def test_benchmark_teachers_from_the_command_line(tmp_path, capsys):
    table = tmp_path / "c.parquet"
    for argv in (["import", "coeval", str(RUN), "-o", str(table)],
                 ["report", str(table), "--kind", "teacher", "--benchmark-teachers",
                  "gpt-3.5-turbo"]):
        capsys.readouterr()
        try:
            main(argv)
        except SystemExit as done:
            assert done.code in (0, None)
    out = capsys.readouterr().out
    section = out[out.index("Synthetic vs benchmark"):]
    assert "benchmark  8" in section and "synthetic  8" in section
