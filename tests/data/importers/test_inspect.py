"""inspect-ai eval logs: the values inspect itself stores in ``results.scores``.

The fixture ``tests/fixtures/inspect/toy.eval`` is a real log written by inspect-ai 0.3.285
running ``tests/fixtures/inspect/toy_task.py`` on its mockllm model (8 questions x 2 epochs,
``includes()``; no network). inspect stored, and prints, ``accuracy 0.6875`` and ``stderr
0.09149063183892497`` (``results.scores[0].metrics``): the mean and standard error of the
per-sample means over the two epochs. The tests that read the log need inspect-ai (the
``assay[inspect]`` extra, not installed by CI) and skip without it; the mapping from inspect's
log objects to rows is tested on stand-in objects with the same attributes.
"""

import json
from pathlib import Path
from types import SimpleNamespace as NS

import numpy as np
import pytest

from assay.analysis.scores import score_summary
from assay.data.importers import detect_format, import_inspect
from assay.data.importers.inspect_logs import logs_table
from assay.errors import ConfigError, InputError, ValidationError
from assay.stats.intervals import ratio_estimate

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "inspect"
LOG = FIXTURE / "toy.eval"
# inspect's own figures, as stored in the fixture's results.scores[0].metrics
ACCURACY, STDERR = 0.6875, 0.09149063183892497
# the mock model's answers (toy_task.py): correct (1) or not (0) per question and epoch
CORRECT = {1: (1, 1), 2: (1, 0), 3: (1, 1), 4: (1, 0), 5: (1, 0), 6: (1, 1), 7: (1, 0), 8: (1, 0)}


def _stand_in(error_sample=False):
    samples = [NS(id=f"q{q}", epoch=e + 1, error=None, total_time=0.5,
                  model_usage={"mockllm/model": NS(input_tokens=10, output_tokens=2)},
                  scores={"includes": NS(value="C" if ok else "I", answer="a", explanation=None)})
               for q, oks in CORRECT.items() for e, ok in enumerate(oks)]
    if error_sample:
        samples.append(NS(id="q9", epoch=1, error=NS(message="boom"), total_time=None,
                          model_usage={}, scores=None))
    return NS(status="success", eval=NS(task="toy", model="mockllm/model"),
              results=NS(scores=[NS(name="includes")]), samples=samples)


def _figures(judgments):
    f = judgments.frame
    f = f[f["score"].notna()]
    item = f.groupby("item")["score"].mean()
    return ratio_estimate(item.to_numpy(), np.ones(len(item)))


def test_stand_in_log_maps_epochs_to_runs_and_letters_to_scores():
    t = logs_table([_stand_in()], [Path("toy.eval")])
    f = t.frame
    assert len(f) == 16 and sorted(f["run"].unique()) == [1, 2]
    assert set(f["item"]) == {f"toy/q{q}" for q in CORRECT} and set(f["arm"]) == {"mockllm/model"}
    assert t.scale("includes").kind == "binary"
    est = _figures(t)
    assert (est.estimate, round(est.standard_error, 12)) == (ACCURACY, round(STDERR, 12))
    assert f["tokens_out"].sum() == 32


def test_a_sample_with_an_error_and_no_score_is_a_failed_judgment():
    f = logs_table([_stand_in(error_sample=True)], [Path("toy.eval")]).frame
    failed = f[f["item"] == "toy/q9"]
    assert len(failed) == 1 and failed["score"].isna().all()
    assert failed["failure_kind"].tolist() == ["api_error"]


def test_a_score_without_a_numeric_reading_names_the_sample():
    log = _stand_in()
    log.samples[3].scores["includes"].value = "maybe"
    with pytest.raises(ValidationError) as info:
        logs_table([log], [Path("toy.eval")])
    assert "q2" in str(info.value) and "maybe" in str(info.value)


def test_detects_eval_archives_and_json_logs(tmp_path):
    assert detect_format(LOG) == "inspect"
    head = tmp_path / "log.json"
    head.write_text(json.dumps({"version": 2, "status": "success", "eval": {"task": "t"}}))
    assert detect_format(head) == "inspect"
    other = tmp_path / "other.eval"
    other.write_text("not a zip")
    assert detect_format(other) is None


def test_without_inspect_ai_the_error_says_what_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    with pytest.raises(ConfigError, match=r"assay\[inspect\]"):
        import_inspect([LOG])


def test_a_file_of_another_kind_is_refused_by_name(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("a\n")
    with pytest.raises(InputError, match=r"x\.csv"):
        import_inspect([path])


@pytest.mark.slow
def test_reproduces_inspects_accuracy_and_stderr_from_its_own_log(tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(LOG))
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    assert metrics == {"accuracy": ACCURACY, "stderr": STDERR}
    as_json = tmp_path / "toy.json"
    write_eval_log(log, str(as_json), format="json")
    for source in (LOG, as_json):
        t = import_inspect([source])
        summary = score_summary(t)
        assert [f"{r.estimate:.4f}" for r in summary.rows] == ["0.6875"]
        est = _figures(t)
        assert est.standard_error == pytest.approx(STDERR, rel=1e-12)
