"""The command line's conventions: --version, -h, python -m assay, readable usage lines, word
spellings of options with the old ones kept, case-insensitive formats and kinds, "did you
mean" for a near miss, YAML errors with line and column, shell completion."""

from __future__ import annotations

import pytest

from assay._version import __version__
from tests.cli._subprocess import one_error_line, run_assay


def _table(tmp_path):
    path = tmp_path / "t.csv"
    rows = [f"c{i // 4},q{i},{arm},{(i + j) % 3 == 0:d}" for i in range(24)
            for j, arm in enumerate("ab")]
    path.write_text("cluster,item,arm,score\n" + "\n".join(rows) + "\n")
    return path


def test_version_and_short_help_and_python_m_assay() -> None:
    version = run_assay("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"assay {__version__}"
    short = run_assay("report", "-h")
    assert short.returncode == 0 and short.stdout.startswith("Usage: assay report [OPTIONS] SRC...")
    top = run_assay("-h")
    assert top.returncode == 0 and "--install-completion" in top.stdout


@pytest.mark.parametrize("command", ["validate", "import", "report", "compare", "judge"])
def test_usage_lines_read_as_words(command: str) -> None:
    text = run_assay(command, "--help").stdout
    assert text.startswith(f"Usage: assay {command} [OPTIONS]")
    assert "{" not in text.splitlines()[0]
    for typed in ("<list[", "<str>", "<int>", "<path>", "<float>"):
        assert typed not in text, (typed, text)


def test_resamples_and_pass_k_are_words_and_the_old_spellings_still_work(tmp_path) -> None:
    table = _table(tmp_path)
    new = run_assay("report", str(table), "--kind", "scores", "--resamples", "50", "--pass-k", "1")
    old = run_assay("report", str(table), "--kind", "scores", "--B", "50", "--k", "1")
    assert new.returncode == old.returncode == 0, new.stderr + old.stderr
    assert new.stdout == old.stdout
    bad = run_assay("report", str(table), "--kind", "benchmark", "--scale", "score=binary",
                    "--resamples", "1")
    assert one_error_line(bad).startswith("error: --resamples 1: expected at least 2")


def test_formats_and_kinds_are_case_insensitive(tmp_path) -> None:
    table = _table(tmp_path)
    upper = run_assay("report", str(table), "--kind", "SCORES", "--format", "TEXT,Json",
                      "--out", str(tmp_path / "r"))
    assert upper.returncode == 0, upper.stderr
    assert (tmp_path / "r" / "scores.json").is_file()


@pytest.mark.parametrize(("args", "expected"), [
    (["--kind", "scroes"], "did you mean 'scores'?"),
    (["--format", "text,jsn"], "--format 'jsn': expected a comma-separated list of text, json, "
     "html, xlsx, latex, png; did you mean 'json'?"),
    (["--map", "cluster=clutser"], "'clutser' is not a column of the judgments table; did you "
     "mean 'cluster'?"),
    (["--set", "juge=x"], "did you mean 'judge'?"),
    (["--map", "clustr=cluster"], "named in the column mapping but not in the file; did you mean "
     "'cluster'?"),
])
def test_a_near_miss_gets_did_you_mean(tmp_path, args, expected) -> None:
    result = run_assay("report", str(_table(tmp_path)), *args)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "Traceback" not in result.stderr
    assert expected in result.stderr


def test_a_config_key_near_miss_and_a_yaml_error_name_what_and_where(tmp_path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("version: 1\ninputs:\n  answers_pth: x\njudges: []\n")
    assert "inputs.answers_pth: unknown key; did you mean 'answers_path'?" in one_error_line(
        run_assay("judge", str(config), "--dry-run"))
    config.write_text("version: 1\nllm:\n  model: [a\n  base_url: b\n")
    assert one_error_line(run_assay("judge", str(config), "--dry-run")).startswith(
        f"error: {config}, line 4, column 11: not valid YAML (expected ',' or ']'")


def test_show_completion_prints_a_script_for_the_shell() -> None:
    result = run_assay("--show-completion", "bash", _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1")
    assert result.returncode == 0 and "complete" in result.stdout and "assay" in result.stdout
