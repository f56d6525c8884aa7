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
    """A digest remembered in the cache file after a run spares the next run of the same row
    shapes the reader; a refusal gives none to remember, and a change to the reader's source
    reads again. Without a memo, or before the cache file exists, every plan is read."""
    import assay.data.validate as validate
    from assay.judge import _readable
    from assay.judge.plan import check_readable
    from assay.llm import ResponseCache

    calls = []
    real = validate.build_table
    monkeypatch.setattr(validate, "build_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    cache = tmp_path / "cache.sqlite"
    digest = check_readable(_plan({}, {"usd": 0.5}), memo=cache)  # no cache file yet: read
    assert digest is not None and len(calls) == 1 and not cache.exists()
    ResponseCache(cache).close()  # the run makes the cache file, then the CLI remembers
    _readable.remember_readable(cache, digest)
    assert check_readable(_plan({}, {"usd": 0.5}), memo=cache) is None  # other items, same shapes
    assert len(calls) == 1
    assert check_readable(_plan({}, {"usd": 0.5})) == digest  # no memo: read
    assert len(calls) == 2
    with pytest.raises(ConfigError):
        check_readable(_plan({"run": "first"}), memo=cache)  # refused: read, nothing to remember
    assert len(calls) == 3
    monkeypatch.setattr(_readable, "_READER_SOURCES", (*_readable._READER_SOURCES, "data/io.py"))
    assert check_readable(_plan({}, {"usd": 0.5}), memo=cache) not in (None, digest)  # reader changed
    assert len(calls) == 4
    with ResponseCache(cache) as opened:  # the memo's table leaves the replies alone
        assert len(opened) == 0


def test_the_memo_is_in_the_cache_file_and_none_without_a_cache(tmp_path):
    from assay.judge._readable import memo_path

    assert memo_path("run", tmp_path / "run" / "responses.sqlite") == tmp_path / "run" / "responses.sqlite"
    assert memo_path("my.sqlite", tmp_path / "my.sqlite") == tmp_path / "my.sqlite"
    assert memo_path("off", None) is None
