"""Every path a config names for ``assay run``'s output stays inside the run folder (issue 22,
item 6): ``report.out`` and each ``export[].out`` that is absolute, leads out with ``..`` or
goes out through a link in the run folder is refused with one line, before the first call;
an absolute path is for a command-line flag (``assay export --out``)."""

from __future__ import annotations

import pytest
import yaml

from tests.cli._judge_helpers import run, write_config

RUBRIC = {"kind": "rubric", "criteria": [{"name": "accuracy", "description": "Is it right?"}]}


def _config(folder, url, **sections):
    config = write_config(folder, url, judges=[RUBRIC])
    data = yaml.safe_load(config.read_text())
    data.update(sections)
    data["report"] = {"formats": ["json"], **data.get("report", {})}
    config.write_text(yaml.safe_dump(data))
    return config


def _refused(argv, capsys, server) -> str:
    capsys.readouterr()
    code = run(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert server.stats.requests == 0
    return lines[0]


def _escapes(tmp_path):
    """Paths that lead from tmp_path/work/run to tmp_path/outside/x.json (or to /tmp)."""
    return ["../../outside/x.json", "a/../../../outside/x.json", str(tmp_path / "outside" / "x.json"),
            "..", "~/x.json", ""]


@pytest.mark.parametrize("index", range(6))
def test_an_export_path_out_of_the_run_folder_is_refused_before_any_call(
        server, tmp_path, capsys, index):
    out = _escapes(tmp_path)[index]
    work = tmp_path / "work"
    work.mkdir()
    config = _config(work, server.url, export=[{"format": "leaderboard-json", "out": out}])
    line = _refused(["run", str(config), "--out", str(work / "run")], capsys, server)
    assert "export" in line and "out" in line and "run folder" in line, line
    assert not (tmp_path / "outside").exists()
    assert not (work / "run" / "judgments.sqlite").exists()
    # the same config is refused by every command that reads it, at load time
    _refused(["judge", str(config), "--out", str(work / "run"), "--dry-run"], capsys, server)


@pytest.mark.parametrize("index", range(4))
def test_a_report_folder_out_of_the_run_folder_is_refused_before_any_call(
        server, tmp_path, capsys, index):
    out = _escapes(tmp_path)[index]
    work = tmp_path / "work"
    work.mkdir()
    config = _config(work, server.url, report={"out": out})
    line = _refused(["run", str(config), "--out", str(work / "run")], capsys, server)
    assert "report" in line and "run folder" in line, line
    assert not (tmp_path / "outside").exists()


def test_a_link_in_the_run_folder_that_leads_out_is_refused_before_any_call(server, tmp_path, capsys):
    work = tmp_path / "work"
    (work / "run").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (work / "run" / "exports").symlink_to(tmp_path / "outside")
    config = _config(work, server.url,
                     export=[{"format": "leaderboard-json", "out": "exports/x.json"}])
    line = _refused(["run", str(config), "--out", str(work / "run")], capsys, server)
    assert "export[0].out" in line and "outside the run folder" in line, line
    assert list((tmp_path / "outside").iterdir()) == []


def test_paths_inside_the_run_folder_are_written_there(server, tmp_path, capsys):
    work = tmp_path / "work"
    work.mkdir()
    config = _config(work, server.url, report={"out": "reports/../main-report"},
                     export=[{"format": "leaderboard-json", "out": "exports/standings.json"}])
    code = run(["run", str(config), "--out", str(work / "run")])
    assert code == 0, capsys.readouterr().err
    assert (work / "run" / "exports" / "standings.json").is_file()
    assert (work / "run" / "main-report").is_dir()
    # an absolute path is still one flag away
    elsewhere = tmp_path / "elsewhere.json"
    assert run(["export", str(work / "run"), "--format", "leaderboard-json", "--out", str(elsewhere)]) == 0
    assert elsewhere.is_file()
