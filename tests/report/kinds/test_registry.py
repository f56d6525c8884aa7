"""The registry of report kinds: names, groups, options and the renderers each report declares."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import assay
from assay.analysis.aggregate import AggregateReport
from assay.analysis.answer import Answer
from assay.analysis.assertions._significance import AssertionSignificance
from assay.analysis.benchmark import BenchmarkReport
from assay.analysis.composite import CompositeScores
from assay.analysis.cost import CostSummary
from assay.analysis.coverage import (
    CoverageReport,
    InteractionMatrix,
    SamplingAblation,
    TeacherReport,
)
from assay.analysis.human import HumanReport
from assay.analysis.judges import (
    CalibrationCurves,
    CalibrationReport,
    EnsembleReport,
    JudgeReport,
    RobustSummary,
)
from assay.analysis.leaderboard import LeaderboardReport
from assay.analysis.scores import ScoreSummary
from assay.analysis.systems import FactorBreakdown, SystemsReport
from assay.analysis.winrates import WinRateReport
from assay.cli import main
from assay.cli.report import report_command
from assay.errors import ConfigError
from assay.report import figures
from assay.report.kinds import (
    GROUPS,
    KINDS,
    REPORTS,
    RobustOptions,
    ScoresOptions,
    build_reports,
    options_from,
    resolve_kinds,
)
from assay.report.office import excel, latex

CLI = Path(__file__).resolve().parents[3] / "src" / "assay" / "cli"

RESULT_TYPES = {
    "answer": Answer, "scores": ScoreSummary, "benchmark": BenchmarkReport, "aggregate": AggregateReport,
    "agreement": JudgeReport, "composite": CompositeScores, "robust": RobustSummary,
    "coverage": CoverageReport, "systems": SystemsReport, "calibration": CalibrationReport,
    "winrates": WinRateReport, "assertions": AssertionSignificance,
    "leaderboard": LeaderboardReport, "cost": CostSummary, "teacher": TeacherReport,
    "calibration-curves": CalibrationCurves, "sampling": SamplingAblation,
    "ensemble": EnsembleReport, "factors": FactorBreakdown, "interaction": InteractionMatrix,
    "human": HumanReport,
}
"""What each report's builder returns, written out here, independently of the registry."""


def test_every_report_is_declared_once_with_its_result_type():
    assert set(KINDS) == set(RESULT_TYPES)
    assert len(REPORTS) == len(KINDS) == 21
    assert not set(GROUPS) & set(KINDS), "a group would hide the report of the same name"


@pytest.mark.parametrize("fmt, known", [("xlsx", excel._KNOWN), ("latex", latex._KNOWN),
                                        ("png", figures._KNOWN)])
def test_declared_renderers_are_the_writers_that_know_the_result(fmt, known):
    declared = {kind.name for kind in REPORTS if fmt in kind.formats}
    rendered = {name for name, cls in RESULT_TYPES.items() if issubclass(cls, known)}
    assert declared == rendered


def test_groups_and_names_resolve():
    # ``all`` is every report but the answer, which names them (``assay report``'s default)
    assert [k.name for k in resolve_kinds("all")] == [k.name for k in REPORTS
                                                      if not k.opt_in and k.name != "answer"]
    assert [k.name for k in resolve_kinds("judges")] == ["agreement", "composite", "robust",
                                                          "coverage", "systems"]
    assert [k.name for k in resolve_kinds("judges", opted_in={"--calibrate"})][-1] == "calibration"
    assert [k.name for k in resolve_kinds("winrate")] == ["winrates", "leaderboard", "assertions"]
    for name in KINDS:  # a report named alone is made even when a group needs a flag for it
        assert [k.name for k in resolve_kinds(name)] == [name]
    assert [k.name for k in resolve_kinds("systems, scores")] == ["scores", "systems"]
    with pytest.raises(ConfigError, match="--kind 'system': expected a report"):
        resolve_kinds("systems,system")


def test_coeval_report_names_are_aliases():
    def names(text):
        return [k.name for k in resolve_kinds(text)]

    assert names("teacher-report") == names("teacher_report") == ["teacher"]
    assert names("student-report") == ["composite", "systems", "factors"]
    assert names("judge-report") == ["agreement", "calibration-curves", "ensemble"]
    assert names("judge-report") != names("judges")
    assert names("robust-summary") == ["robust"] and names("coverage-summary") == ["coverage"]
    assert names("judge-consistency") == ["agreement"] and names("table7") == ["sampling"]
    assert names("complete-report") == names("all")
    with pytest.raises(ConfigError, match="did you mean"):
        resolve_kinds("teacher-reprt")


def test_help_lists_every_report_and_group_on_one_line(capsys):
    with pytest.raises(SystemExit) as info:
        main(["report", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    starts = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert set(KINDS) | set(GROUPS) <= starts
    assert "student-report = student" in out and "table7 = sampling" in out
    for kind in REPORTS:
        line = next(line for line in out.splitlines() if line.split()[:1] == [kind.name])
        assert kind.brief in line


def test_every_option_field_is_a_flag_of_assay_report():
    """options_from ignores names it does not know: a field no flag feeds would stay at its
    default whatever the user types."""
    flags = set(inspect.signature(report_command).parameters)
    for kind in REPORTS:
        fields = set(kind.options.__dataclass_fields__)
        assert fields <= flags, (kind.name, fields - flags)


def test_options_are_typed_and_checked():
    assert options_from(RobustOptions, {"trim": 0.2, "seed": None}) == RobustOptions(trim=0.2)
    with pytest.raises(ConfigError, match=r"--trim 0\.7"):
        RobustOptions(trim=0.7)
    with pytest.raises(ConfigError, match=r"--conf 1\.5"):
        ScoresOptions(conf=1.5)


def test_the_cli_imports_no_private_renderer_module():
    for path in CLI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module else
                     [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                if name.startswith("assay.report"):
                    assert not any(p.startswith("_") for p in name.split(".")), (path.name, name)


def test_one_failing_report_does_not_stop_the_others(tmp_path):
    (tmp_path / "t.csv").write_text("item,arm,judge,criterion,score\nq1,a,j,c,1\nq2,a,j,c,0\n"
                                    "q1,b,j,c,1\nq2,b,j,c,1\n")
    table = assay.load(tmp_path / "t.csv")
    outcome = build_reports(table, resolve_kinds("scores,coverage,winrates"),
                            {"scores": ScoresOptions(conf=0.9)})
    assert list(outcome.made) == ["scores"] and outcome.made["scores"].result.conf == 0.9
    assert set(outcome.skipped) == {"coverage", "winrates"}
    assert "attributes" in outcome.skipped["coverage"]
    with pytest.raises(TypeError, match="options of 'scores' must be ScoresOptions"):
        build_reports(table, [KINDS["scores"]], {"scores": RobustOptions()})
