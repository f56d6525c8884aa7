"""Teacher datapoints: one prompt per task and attribute stratum through the engine; the items
carry their stratum and ``source: teacher:<model>``; a malformed reply is a counted failure
named in the output, not a crash."""

from __future__ import annotations

import json

from assay.judge.config import parse_config
from assay.pipeline.generate import teacher_datapoints


def teacher_config(url, tmp_path, **llm):
    return parse_config({
        "version": 1,
        "llm": {"model": "judge-model", "base_url": url, "api_key_env": None, "max_concurrency": 1,
                "backoff_base_s": 0.01, **llm},
        "datapoints": {"kind": "teacher", "model": "teacher-model", "base_url": url, "api_key_env": None,
                       "items_per_stratum": 2,
                       "tasks": [{"name": "qa", "description": "Short factual questions.",
                                  "attributes": {"level": ["easy", "hard"], "topic": ["maths"]}},
                                 {"name": "summaries", "description": "Summarise a paragraph."}]},
        "judges": []}, base_dir=tmp_path)


def test_one_prompt_per_stratum_and_items_carry_their_stratum(server, tmp_path):
    server.configure(record_bodies=True)
    outcome = teacher_datapoints(teacher_config(server.url, tmp_path), tmp_path / "run")
    assert server.stats.requests == 3 and outcome.strata == 3 and outcome.failed == 0
    prompts = [body["messages"][-1]["content"] for body in server.stats.bodies]
    assert sum("- level: easy\n- topic: maths" in p for p in prompts) == 1
    assert sum("- level: hard\n- topic: maths" in p for p in prompts) == 1
    assert all(body["model"] == "teacher-model" for body in server.stats.bodies)
    written = [json.loads(line) for line in (tmp_path / "run" / "datapoints.jsonl").read_text().splitlines()]
    assert written == outcome.datapoints and written
    per_stratum: dict[str, int] = {}
    for point in written:
        assert point["source"] == "teacher:teacher-model" and point["teacher"] == "teacher-model"
        assert point["prompt"].strip()
        label = json.dumps([point["task"], point["attributes"]], sort_keys=True)
        per_stratum[label] = per_stratum.get(label, 0) + 1
    assert sorted(per_stratum) == sorted(json.dumps(x, sort_keys=True) for x in [
        ["qa", {"level": "easy", "topic": "maths"}], ["qa", {"level": "hard", "topic": "maths"}],
        ["summaries", {}]])
    assert all(1 <= n <= 2 for n in per_stratum.values())
    assert len({p["id"] for p in written}) == len(written)
    space = json.loads((tmp_path / "run" / "attribute_space.json").read_text())
    assert space == {"task_attributes": {"qa": {"level": ["easy", "hard"], "topic": ["maths"]},
                                         "summaries": {}}}
    again = teacher_datapoints(teacher_config(server.url, tmp_path), tmp_path / "run")
    assert server.stats.requests == 3 and again.datapoints == outcome.datapoints  # resumed: no call


def test_a_malformed_reply_is_a_counted_failure_named_in_the_output(server, tmp_path):
    # the first stratum's reply is cut in half on every attempt (1 + 2 parse retries), in
    # whatever order the limiter lets the three strata's requests go (first come, first served:
    # a retry queues behind the other strata's first requests)
    server.configure(fault_by={"- level: easy\n- topic: maths": "truncated"})
    outcome = teacher_datapoints(teacher_config(server.url, tmp_path, max_parse_retries=2), tmp_path / "run")
    assert server.stats.requests == 5
    assert outcome.failed == 1
    assert outcome.failures[0].startswith("qa (level=easy topic=maths): parse_error")
    lines = outcome.lines(tmp_path / "run")
    assert "teacher: 1 of 3 strata failed (no items from them):" in lines
    assert {(p["task"], p["attributes"].get("level")) for p in outcome.datapoints} == {
        ("qa", "hard"), ("summaries", None)}
