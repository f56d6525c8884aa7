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


def _cli(argv: list[str], capsys) -> str:
    capsys.readouterr()
    try:
        main(argv)
    except SystemExit as done:
        assert done.code in (0, None), capsys.readouterr()
    return capsys.readouterr().out


def _ingested(tmp_path: Path, *, config: bool, log: bool) -> Path:
    """The real run as 'coeval ingest --benchmark gpt-3.5-turbo' would have left it: the
    benchmark in config.yaml (interface: benchmark) and/or in meta.json's ingest_log."""
    import json

    run = tmp_path / "medium-benchmark"
    shutil.copytree(RUN, run)
    if config:
        (run / "config.yaml").write_text(
            "models:\n- interface: openai\n  name: gpt-4o-mini\n  roles: [teacher, student, "
            "judge]\n- interface: benchmark\n  name: gpt-3.5-turbo\n  roles: [teacher]\n")
    if log:
        meta = json.loads((run / "meta.json").read_text())
        meta["ingest_log"] = [{"benchmark": "gpt-3.5-turbo", "teacher_id": "gpt-3.5-turbo",
                               "task_name": "text_summarization", "n_written": 8}]
        (run / "meta.json").write_text(json.dumps(meta))
    return run


def test_the_ingest_convention_survives_the_import_to_a_table_file(tmp_path, capsys):
    """``assay import coeval RUN -o c.parquet`` then ``assay report c.parquet --kind teacher``
    reported every item synthetic ("no benchmark side"): the convention was read from the run
    folder at report time, which a table file no longer names. The import now keeps it."""
    for config, log in ((True, False), (False, True)):
        run = _ingested(tmp_path / f"{config}-{log}", config=config, log=log)
        table = run.parent / "c.parquet"
        printed = _cli(["import", "coeval", str(run), "-o", str(table)], capsys)
        assert "gpt-3.5-turbo from " + ("config.yaml" if config else "meta.json") in printed
        out = _cli(["report", str(table), "--kind", "teacher"], capsys)
        section = out[out.index("Synthetic vs benchmark"):]
        assert "benchmark  8" in section and "synthetic  8" in section, out
        assert "no benchmark side" not in out
        assert "gpt-3.5-turbo  benchmark" in out


def test_a_run_without_an_ingested_benchmark_lists_none(tmp_path):
    table = import_coeval([RUN])
    assert table.benchmark_teachers == ()
    saved = tmp_path / "c.parquet"
    table.save(saved)
    from assay import load

    assert load(saved).benchmark_teachers == ()


def test_each_teachers_acr_counts_pairs_as_the_coverage_report_does():
    """The real run's items carry 1-2 of 5 attributes, so coverage counts (attribute, value)
    pairs; the teacher report printed ACR 0.000 for both teachers (it looked for full
    combinations). Each teacher's ACR is now the coverage report's own per-teacher figure."""
    from assay.analysis.coverage import coverage_report

    table = import_coeval([RUN])
    (row,) = coverage_report(table).rows
    report = teacher_report(table)
    assert {r.teacher: r.acr for r in report.teachers} == row.acr_by_teacher
    assert all(0 < r.acr <= 1 for r in report.teachers)
