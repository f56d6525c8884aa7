"""The plan's check that a report can read every judgment it will store (issue 22, item 5),
on judges whose rows carry what no config of today's judges lets through: what the report's
reader refuses is refused by the plan, before any call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from assay.data.schema import Scale
from assay.errors import ConfigError
from assay.judge import ChatRequest


@dataclass(frozen=True)
class RowsJudge:
    """A judge whose rows for a request are the request's meta with a failure."""

    name: str = "m/rows"
    declared: dict[str, Scale] = field(default_factory=lambda: {"c": Scale("binary")})

    def scales(self) -> dict[str, Scale]:
        return self.declared

    def rows(self, request: ChatRequest, reply: Any) -> list[dict[str, Any]]:
        assert not reply.ok  # the check builds the rows of a failed call
        return [{**request.meta, "score": None, "failure_kind": reply.failure_kind}]


def _plan(*metas: dict[str, Any], judge: RowsJudge | None = None):
    from assay.judge.plan import JudgePlan, Plan

    requests = [ChatRequest(key=f"k{n}", messages=(("user", "x"),),
                            meta={"item": f"q{n}", "arm": "a", "run": 1, "judge": "m/rows",
                                  "criterion": "c", **meta})
                for n, meta in enumerate(metas)]
    return Plan(judges=[JudgePlan(judge=judge or RowsJudge(), kind="rubric", requests=requests)],
                config=None)  # type: ignore[arg-type]


def _refusal(plan) -> str:
    from assay.judge.plan import check_readable

    with pytest.raises(ConfigError) as caught:
        check_readable(plan)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_readable_rows_pass():
    from assay.judge.plan import check_readable

    check_readable(_plan({}, {"usd": 0.5, "attributes": '{"domain": "x"}'}, {"arm": " b"}))


def test_two_rows_a_report_takes_as_one_are_refused():
    line = _refusal(_plan({"item": "q1"}, {"item": "q1"}))
    assert "duplicate" in line and "'q1'" in line


@pytest.mark.parametrize(("meta", "words"), [
    ({"usd": "a lot"}, ("column 'usd'", "expected a number")),
    ({"position": 3, "opponent": "b"}, ("column 'position'", "expected 1 or 2")),
    ({"run": -1}, ("column 'run'", "run number >= 1")),  # a whole numbering from 0 reads as 1..R
    ({"split": "holdout"}, ("column 'split'",)),
    ({"attributes": {"domain": "x"}}, ("column 'attributes'", "expected text")),
    ({"arm": None}, ("column 'arm'",)),
    ({"arm": "  "}, ("column 'arm'", "blank")),
    ({"judge": ""}, ("column 'judge'", "blank")),
    ({"opponent": "\t", "position": 1}, ("column 'opponent'", "blank")),
])
def test_a_value_the_report_refuses_is_refused(meta, words):
    line = _refusal(_plan({}, meta))
    for word in words:
        assert word in line, line


def test_a_scale_that_does_not_read_back_is_refused():
    judge = RowsJudge(declared={"c": Scale("ordinal", levels=("low, really", "high"))})
    line = _refusal(_plan({}, judge=judge))
    assert "criterion 'c'" in line and "read back" in line



def test_a_plan_the_reader_accepted_is_not_read_again_until_the_reader_changes(tmp_path, monkeypatch):
    """With a memo file the reader's verdict on a plan's row shapes is remembered; a refusal
    never is, and a change to the reader's source checks again. Without one every plan is read."""
    import assay.data.validate as validate
    from assay.judge import _readable
    from assay.judge.plan import check_readable

    calls = []
    real = validate.build_table
    monkeypatch.setattr(validate, "build_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    memo = tmp_path / _readable.MEMO_NAME
    check_readable(_plan({}, {"usd": 0.5}), memo=memo)
    check_readable(_plan({}, {"usd": 0.5}), memo=memo)  # the same shapes, other items: remembered
    assert len(calls) == 1 and len(memo.read_text().split()) == 1
    check_readable(_plan({}, {"usd": 0.5}))  # no memo: read
    assert len(calls) == 2
    for _ in range(2):
        with pytest.raises(ConfigError):
            check_readable(_plan({"run": "first"}), memo=memo)  # refused: read each time
    assert len(calls) == 4 and len(memo.read_text().split()) == 1
    monkeypatch.setattr(_readable, "_READER_SOURCES", (*_readable._READER_SOURCES, "data/io.py"))
    check_readable(_plan({}, {"usd": 0.5}), memo=memo)  # the reader changed: read again
    assert len(calls) == 5


def test_the_memo_is_kept_beside_a_named_or_shared_cache_only(tmp_path):
    from assay.judge._readable import MEMO_NAME, memo_path

    assert memo_path("run", tmp_path / "run" / "responses.sqlite") is None
    assert memo_path("off", None) is None
    assert memo_path("shared", tmp_path / "assay" / "responses.sqlite") == tmp_path / "assay" / MEMO_NAME
    assert memo_path("my.sqlite", tmp_path / "my.sqlite") == tmp_path / MEMO_NAME
