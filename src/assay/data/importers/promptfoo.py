"""Import promptfoo's results export: ``promptfoo eval -o results.json``.

The file holds ``{"evalId", "results": {"version": 3, "prompts": [...], "results": [...],
"stats": {"successes", "failures", "errors", "tokenUsage"}}, "config", ...}``; each record
of ``results.results`` is one test case (``testIdx``) run on one prompt (``promptIdx``) by
one provider::

    {"testIdx", "promptIdx", "provider": {"id", "label"}, "success", "score",
     "namedScores": {metric: value}, "gradingResult": {"componentResults": [
         {"pass", "score", "reason", "assertion": {"type", "metric", "weight", ...}}]},
     "failureReason": 0 | 1 | 2, "error", "cost", "latencyMs",
     "response": {"output", "tokenUsage": {"prompt", "completion", "total"}},
     "testCase": {"description", ...}, "vars", ...}

Each record gives these rows, with ``arm`` = the provider's label, else its id (and
``#{promptIdx}``, promptfoo's column, after it when the file has several prompts), ``item`` = ``cluster`` =
``test-{testIdx}``, ``judge`` = ``promptfoo``, ``run`` 1:

* ``pass``: 1 when the test case passed, 0 when an assertion failed (``binary``); a record
  that ended in an error (``failureReason`` 2) is a failed judgment: no score,
  ``failure_kind`` ``api_error``, the error as ``reasoning``. These rows are promptfoo's
  ``stats``: successes, failures and errors.
* ``score``: the test case's weighted assertion score (``interval``).
* one row per named metric (``namedScores``): criterion = the metric's name.
* one row per assertion without a metric (``componentResults`` entries with an
  ``assertion``): criterion = ``assert:{type}`` (``#2``... when a type recurs in a test).

Cost (``cost``), latency (``latencyMs``) and the answer's tokens (``response.tokenUsage``)
go on every row of the record; ``outcome`` is a digest of the provider's output.

Older layouts (``results.version`` 1 from May 2023, 2 from June 2023 until promptfoo moved
its results to a database in October 2024) keep ``results`` as a list next to a ``table``, either at the
top of the file (promptfoo's node ``evaluate()``, and ``-o`` before 18 June 2023) or under
``results`` as above. Their records carry no ``testIdx`` or ``promptIdx``: the test is the
row of ``table.body`` whose ``vars`` are the record's, the column the entry of
``table.head.prompts`` whose prompt (and provider) is the record's. The provider is the
record's ``provider`` (version 2 from late 2023), else the ``[id]`` before the column's
prompt, else the only one the file's ``config`` names; a file that names none is read with
the column's prompt as the arm. These versions count an error as a failure (``stats`` has
no ``errors``); a record without a ``response`` or with ``response.error`` is still read as
a failed judgment, so assay's failures and failed judgments add up to promptfoo's failures.
Any other ``version`` is refused in one line naming the field and the versions read.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import RecordFields, build, is_number, source_files
from assay.data.lines import json_file
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import InputError, Problem

JUDGE = "promptfoo"
LAYOUT = "promptfoo's results.json (promptfoo eval -o results.json)"
_ERROR = 2
VERSIONS = (1, 2, 3)
"""The values of ``results.version`` read; 1 and 2 through ``table``, 3 by index."""


def _summary(document: object) -> dict[str, Any] | None:
    """The evaluate summary of a promptfoo export (``{"version", "results", "stats"}``):
    under ``results`` (``-o results.json``), or the document itself (versions 1 and 2)."""
    if not isinstance(document, dict):
        return None
    for summary in (document.get("results"), document):
        if isinstance(summary, dict) and isinstance(summary.get("results"), list) and \
                isinstance(summary.get("stats"), dict) and "version" in summary:
            return summary
    return None


def looks_like_promptfoo(document: object) -> bool:
    """Whether a parsed JSON document is a promptfoo results export (of any version: one
    assay does not read is refused when imported, naming its version)."""
    summary = _summary(document)
    return summary is not None and isinstance(summary["version"], int) and \
        not isinstance(summary["version"], bool)


def is_promptfoo_json(path: Path) -> bool:
    """Whether a ``.json`` file is a promptfoo results export (it is parsed whole)."""
    try:
        return looks_like_promptfoo(json_file(path))
    except (OSError, InputError):
        return False


def import_promptfoo(sources: Sequence[str | Path], *,
                     scales: Mapping[str, Scale] | None = None,
                     duplicates: str = "error",
                     fields: RecordFields | None = None) -> Judgments:
    """Read promptfoo ``results.json`` exports into one table; `fields` (``--map``,
    ``--set``) apply to each result record (``results.results[i]``) first."""
    files = source_files(sources, "*.json", LAYOUT)
    problems: list[Problem] = []
    fields = fields or RecordFields()
    seen: set[str] = set()
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    for file in files:
        document = json_file(file)
        summary = _read_summary(file, document)
        records = [fields.apply(r, seen) if isinstance(r, dict) else r
                   for r in summary["results"]]
        if summary["version"] < 3:
            records = _indexed(records, summary, document, file, problems)
            several = False  # the arm already names its column
        else:
            # promptIdx numbers promptfoo's columns (prompt x provider); promptId names it
            several = len({r.get("promptId", r.get("promptIdx")) for r in records
                           if isinstance(r, dict)}) > 1
        for number, rec in enumerate(records, start=1):
            if rec is None:
                continue  # an older record placed in no cell, already a problem
            if not isinstance(rec, dict):
                problems.append(Problem(str(file), number, None, "expected a JSON object"))
                continue
            made = _rows(rec, file, number, several, problems)
            rows += made
            numbers += [number] * len(made)
    problems += fields.unused(seen, ", ".join(map(str, files)))
    declared: dict[str, Scale] = {"pass": Scale.parse("binary")}
    values: dict[str, set[float]] = {}
    for row in rows:
        if row["score"] is not None and row["criterion"] != "pass":
            values.setdefault(row["criterion"], set()).add(row["score"])
    for criterion, seen in values.items():
        declared[criterion] = Scale.parse("binary" if seen <= {0.0, 1.0} and
                                          criterion != "score" else "interval")
    return build(rows, numbers, problems, files, {**declared, **(scales or {})},
                 duplicates=duplicates)


def _read_summary(file: Path, document: object) -> dict[str, Any]:
    summary = _summary(document)
    if summary is None:
        raise InputError(str(file), "not a promptfoo results export: expected "
                         "{\"results\": {\"version\", \"results\": [...], \"stats\"}} "
                         "(promptfoo eval -o results.json)")
    version = summary["version"]
    if version not in VERSIONS or isinstance(version, bool):
        raise InputError(str(file), f"promptfoo results version {version!r} is not read: "
                         f"expected the field results.version to be "
                         f"{', '.join(map(str, VERSIONS[:-1]))} or {VERSIONS[-1]}",
                         column="version")
    return summary


def _text(prompt: object) -> str | None:
    """A prompt's column text: its ``label`` (version 2 from 2024) or ``display``."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, dict):
        text = prompt.get("label", prompt.get("display"))
        return text if isinstance(text, str) else None
    return None


def _bracketed(text: str | None) -> str | None:
    """The provider id of a column headed ``[id] prompt`` (several providers, versions 1-2)."""
    if text and text.startswith("[") and "] " in text:
        return text[1:text.index("] ")]
    return None


def _cell(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _indexed(records: list[Any], summary: Mapping[str, Any], document: object, file: Path,
             problems: list[Problem]) -> list[Any]:
    """Version 1 and 2 records as version 3 ones: ``testIdx`` from the ``table.body`` row with
    the record's vars, the arm (its column) as ``provider.label``, ``failureReason`` 2 for a
    record without an answer."""
    table = summary.get("table") if isinstance(summary.get("table"), dict) else {}
    head = table.get("head") if isinstance(table.get("head"), dict) else {}
    columns = head.get("prompts") if isinstance(head.get("prompts"), list) else []
    names = [str(v) for v in head.get("vars") or []]
    rows = [tuple(map(_cell, b.get("vars") or [])) if isinstance(b, dict) else None
            for b in table.get("body") or []]
    prompts = {(_text(c) or "").removeprefix(f"[{_bracketed(_text(c))}] ") if
               _bracketed(_text(c)) else (c.get("raw") if isinstance(c, dict) else c)
               for c in columns}
    config = document.get("config") if isinstance(document, dict) else None
    listed = config.get("providers") if isinstance(config, dict) else None
    only = listed[0] if isinstance(listed, list) and len(listed) == 1 and \
        isinstance(listed[0], str) else listed if isinstance(listed, str) else None
    used: dict[tuple[str, tuple[str, ...]], int] = {}
    out: list[Any] = []
    for number, rec in enumerate(records, start=1):
        if not isinstance(rec, dict):
            out.append(rec)
            continue
        provider = rec.get("provider")
        ids = [provider.get("label"), provider.get("id")] if isinstance(provider, dict) \
            else [provider]
        pid = next((i for i in ids if isinstance(i, str) and i), None)
        text = _text(rec.get("prompt"))
        column = next((i for i, c in enumerate(columns) if _text(c) == text and (
            not isinstance(c, dict) or not c.get("provider") or c.get("provider") in ids)),
            None) if text is not None else None
        if column is None:
            problems.append(Problem(str(file), number, "prompt",
                                    "matches no column of table.head.prompts"))
            out.append(None)
            continue
        name = pid or _bracketed(text) or only
        arm = text if name is None else f"{name}#{column}" if len(prompts) > 1 else name
        variables = rec.get("vars") if isinstance(rec.get("vars"), dict) else {}
        key = tuple(_cell(variables.get(v, "")) for v in names)
        matching = [i for i, r in enumerate(rows) if r == key]
        if not matching:
            problems.append(Problem(str(file), number, "vars",
                                    "match no row of table.body"))
            out.append(None)
            continue
        seen = used[arm, key] = used.get((arm, key), -1) + 1
        test = matching[min(seen, len(matching) - 1)]  # a repeated test: the next such row
        body = table["body"][test]
        response = rec.get("response")
        failed = not isinstance(response, dict) or bool(response.get("error"))
        why = response.get("error") if isinstance(response, dict) else None
        out.append({**rec, "testIdx": test, "promptIdx": column, "error": why or rec.get("error"),
                    "provider": {"id": pid, "label": arm},
                    "testCase": body.get("test") if isinstance(body.get("test"), dict) else {},
                    "failureReason": _ERROR if failed else int(rec.get("success") is False)})
    return out


def _arm(rec: Mapping[str, Any], several: bool) -> str | None:
    provider = rec.get("provider")
    name = (provider.get("label") or provider.get("id")) if isinstance(provider, dict) \
        else provider
    if not isinstance(name, str) or not name.strip():
        return None
    return f"{name}#{rec.get('promptIdx')}" if several else name


def _usage(rec: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if is_number(rec.get("cost")):
        out["usd"], out["usd_provenance"] = float(rec["cost"]), "reported"
    if is_number(rec.get("latencyMs")):
        out["latency_s"] = float(rec["latencyMs"]) / 1000.0
    response = rec.get("response") if isinstance(rec.get("response"), dict) else {}
    usage = response.get("tokenUsage") if isinstance(response.get("tokenUsage"), dict) else {}
    for key, column in (("prompt", "tokens_in"), ("completion", "tokens_out")):
        if is_number(usage.get(key)):
            out[column] = float(usage[key])
    if "output" in response:
        out["outcome"] = hashlib.sha256(json.dumps(response["output"], sort_keys=True,
                                                   default=str).encode()).hexdigest()[:16]
    return out


def _rows(rec: dict[str, Any], file: Path, number: int, several: bool,
          problems: list[Problem]) -> list[dict[str, Any]]:
    arm = _arm(rec, several)
    test = rec.get("testIdx")
    if arm is None:
        problems.append(Problem(str(file), number, "provider", "expected a provider id"))
    if not (isinstance(test, int) and not isinstance(test, bool)):
        problems.append(Problem(str(file), number, "testIdx", f"expected a test index, got "
                                f"{test!r}"))
    if arm is None or not isinstance(test, int):
        return []
    item = f"test-{test}"
    description = (rec.get("testCase") or {}).get("description") if isinstance(
        rec.get("testCase"), dict) else None
    base = {"item": item, "cluster": item, "arm": arm, "run": 1, "judge": JUDGE,
            "task": description if isinstance(description, str) and description else None,
            **_usage(rec)}
    if rec.get("failureReason") == _ERROR:
        return [{**base, "criterion": "pass", "score": None, "failure_kind": "api_error",
                 "reasoning": str(rec.get("error") or "error")}]
    if not isinstance(rec.get("success"), bool):
        problems.append(Problem(str(file), number, "success",
                                f"expected true or false, got {rec.get('success')!r}"))
        return []
    grading = rec.get("gradingResult") if isinstance(rec.get("gradingResult"), dict) else {}
    rows = [{**base, "criterion": "pass", "score": float(rec["success"]),
             "reasoning": grading.get("reason")}]
    if _finite(rec.get("score")):
        rows.append({**base, "criterion": "score", "score": float(rec["score"])})
    named = rec.get("namedScores") if isinstance(rec.get("namedScores"), dict) else {}
    for metric, value in named.items():
        if not _finite(value):
            problems.append(Problem(str(file), number, f"namedScores.{metric}",
                                    f"expected a number, got {value!r}"))
            continue
        rows.append({**base, "criterion": str(metric), "score": float(value)})
    seen: dict[str, int] = {}
    for component in grading.get("componentResults") or []:
        assertion = component.get("assertion") if isinstance(component, dict) else None
        if not isinstance(assertion, dict) or assertion.get("metric") or \
                not isinstance(assertion.get("type"), str):
            continue  # an assert-set's summary, or a metric already read from namedScores
        name = f"assert:{assertion['type']}"
        seen[name] = seen.get(name, 0) + 1
        criterion = name if seen[name] == 1 else f"{name}#{seen[name]}"
        if not _finite(component.get("score")):
            problems.append(Problem(str(file), number, criterion, f"expected a score, got "
                                    f"{component.get('score')!r}"))
            continue
        rows.append({**base, "criterion": criterion, "score": float(component["score"]),
                     "reasoning": component.get("reason")})
    return rows


def _finite(value: object) -> bool:
    return is_number(value) and math.isfinite(float(value))  # type: ignore[arg-type]
