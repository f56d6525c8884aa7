"""One judgment of a viewer: everything known of one row's judgment, its counterbalanced
partners, and one item's judgments side by side (:class:`OneJudgment`, which
:class:`~assay.view._index.JudgmentIndex` answers them with).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from assay.data.run_store import RAW_MARKER
from assay.view._columns import FilterColumns
from assay.view._compare import compare_item
from assay.view._detail import judgment_sections, store_judged, table_judged, table_sections
from assay.view._pages import LIST_COLUMNS
from assay.view._query import Query

_STORE_FIELDS = ("key", "config_hash", "failed", "failure_kind", "error", "rows", "verdict",
                 "raw_response", "model", "prompt_hash", "tokens_in", "tokens_out", "usd",
                 "usd_provenance", "latency_s", "attempts", "cached", "evaluated_at", "tries")


class OneJudgment:
    """One judgment of :class:`~assay.view._index.JudgmentIndex` (read through the index's
    ``_all``, from its rows and the store)."""

    kind: str
    _columns: FilterColumns
    _prompts: bool
    _shown: bool

    def detail(self, row_id: int) -> dict[str, Any] | None:
        """Everything known of one row's judgment, as titled sections of labelled fields
        (see :mod:`assay.view._detail`); None when there is no such row."""
        found = self._all(f"SELECT {', '.join(LIST_COLUMNS)}, record, part, detail FROM rows "
                          "WHERE id = ?", (row_id,))
        if not found:
            return None
        *values, record, part, detail = found[0]
        listed = dict(zip(LIST_COLUMNS, values, strict=True))
        partners = self._partners(listed)
        if self.kind == "table":
            table_row = json.loads(detail)
            sections = table_sections(table_row)
            judged = table_judged(table_row)
            siblings: list[int] = []
        else:
            stored = self._all(f"SELECT {', '.join(_STORE_FIELDS)} FROM s.judgments WHERE rowid = ?",
                               (record,))
            fields = dict(zip(_STORE_FIELDS, stored[0], strict=True))
            prompt = self._all("SELECT messages FROM s.prompts WHERE key = ?",
                               (fields["key"],)) if self._prompts else []
            fields["messages"] = prompt[0][0] if prompt else None
            rows = json.loads(fields.pop("rows"))
            for stored_row in rows:
                if stored_row.pop(RAW_MARKER, None):
                    stored_row["raw_response"] = fields["raw_response"]
            sections = judgment_sections(rows[part], fields)
            judged = store_judged(rows[part], self._shown_of([fields["key"]]).get(fields["key"]),
                                  fields["messages"])
            first = row_id - part  # a judgment's rows are indexed one after another
            siblings = [first + i for i in range(len(rows)) if first + i != row_id]
        return {"id": row_id, "row": listed, "judged": judged, "sections": sections,
                "partners": partners, "same_call": siblings}

    def _shown_of(self, keys: list[str]) -> dict[str, str]:
        """Judgment key -> its ``shown`` record (JSON) in the store, for those that have one."""
        if not self._shown or not keys:
            return {}
        found = self._all(f"SELECT key, shown FROM s.shown WHERE key IN ({', '.join('?' * len(keys))})",
                          keys)
        return {str(k): str(v) for k, v in found}

    def compare(self, item: str, run: int | None = None) -> dict[str, Any] | None:
        """One item's judgments side by side: the question, the reference, and per system its
        answer and its scores in ``run`` (default: the first run judged); None when no row has
        that item (:func:`assay.view._compare.compare_item`)."""
        keep = self._columns.mask(Query({"item": (item,)}))
        ids = [] if keep is None else [int(i) + 1 for i in np.flatnonzero(keep)]
        if not ids:
            return None
        found = self._all(f"SELECT {', '.join(LIST_COLUMNS)}, record, detail FROM rows WHERE id IN "
                          f"(SELECT value FROM json_each(?)) ORDER BY id", (json.dumps(ids),))
        rows = [dict(zip(LIST_COLUMNS, values[:-2], strict=True)) for values in found]
        if self.kind == "table":
            judged = [table_judged(json.loads(values[-1])) for values in found]
        else:
            records = sorted({int(values[-2]) for values in found})
            keys = dict(self._all("SELECT rowid, key FROM s.judgments WHERE rowid IN "
                                  "(SELECT value FROM json_each(?))", (json.dumps(records),)))
            shown = self._shown_of(sorted({str(k) for k in keys.values()}))
            judged = [store_judged(row, shown.get(str(keys.get(values[-2]))), None)
                      for row, values in zip(rows, found, strict=True)]
        return compare_item(item, rows, judged, run)

    def _partners(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """The counterbalanced partners of a pairwise row: the same pair judged with the
        arms shown the other way round."""
        if row["opponent"] is None or row["position"] is None:
            return []
        found = self._all(
            "SELECT id, position, run, score, failure_kind FROM rows WHERE item IS ? AND arm IS ? "
            "AND opponent IS ? AND judge IS ? AND criterion IS ? AND position IS NOT ? "
            "ORDER BY abs(coalesce(run, 0) - ?), id LIMIT 20",
            (row["item"], row["arm"], row["opponent"], row["judge"], row["criterion"],
             row["position"], row["run"] or 0))
        names = ("id", "position", "run", "score", "failure_kind")
        return [dict(zip(names, f, strict=True)) for f in found]
