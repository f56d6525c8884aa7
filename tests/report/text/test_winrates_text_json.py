"""The win-rate text and winrates.json say the same thing (issue 11, item 12): every number the
text prints is in the JSON record it belongs to (win rate, interval, clustered SE, counts, p;
flip rate and direction; agreement of judges on shared trials), and both name the same method
for the same quantity.

The text is read back as a user reads it (``assay report --format text,json``), not from the
report object, so a column printed from another field than the JSON's shows up here.
"""

from __future__ import annotations

import csv
import json
import random
import re
from pathlib import Path

import pytest

from tests.cli._judge_helpers import run


def _table(path: Path) -> Path:
    """Two judges, both orders, two tasks; A beats D in every trial (no variance between
    clusters, so that record gets another interval and test than the others)."""
    rng = random.Random(3)
    rows = []
    for c in range(8):
        for i in range(4):
            for judge in ("gpt-4o", "claude"):
                for position in (1, 2):
                    for opponent, levels in (("B", [0, 0.5, 1, 1, 1]), ("C", [0, 0, 0.5, 1]),
                                             ("D", [1])):
                        rows.append({"item": f"c{c}q{i}", "cluster": f"c{c}", "arm": "A",
                                     "opponent": opponent, "position": position, "judge": judge,
                                     "criterion": "pref", "score": rng.choice(levels),
                                     "task": "t1" if i % 2 else "t2"})
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _blocks(text: str) -> dict[str, list[dict[str, str]]]:
    """Each table of the text under its title line: rows as {column header: cell}."""
    out: dict[str, list[dict[str, str]]] = {}
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if k + 1 < len(lines) and lines[k + 1].startswith("  ") and not line.startswith(" ") \
                and line.strip() and not line.startswith("Notes"):
            header = re.split(r"\s{2,}", lines[k + 1].strip())
            rows = []
            for row in lines[k + 2:]:
                if not row.startswith("  "):
                    break
                cells = re.split(r"\s{2,}", row.strip())
                rows.append(dict(zip(header, cells, strict=False)))
            out[line] = rows
    return out


def _num(cell: str) -> float:
    return float(cell)


def _interval(cell: str) -> tuple[float, float]:
    low, high = cell.strip("[]").split(", ")
    return float(low), float(high)


def _close(printed: float, stored: float) -> bool:
    return abs(printed - stored) <= 0.0005 + 1e-12


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> tuple[str, list[dict]]:
    folder = tmp_path_factory.mktemp("winrates")
    table = _table(folder / "pairs.csv")
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = run(["report", str(table), "--kind", "winrates", "--scale", "pref=range:0,1",
                    "--format", "text,json", "--out", str(folder / "out")])
    assert code == 0, buffer.getvalue()
    records = json.loads((folder / "out" / "winrates.json").read_text(encoding="utf-8"))
    return buffer.getvalue(), records


def test_every_printed_win_rate_row_is_its_json_record(outputs) -> None:
    text, records = outputs
    blocks = _blocks(text)
    checked = 0
    for record in records:
        rows = blocks[f"{record['judge']} / {record['criterion']}"]
        (row,) = [r for r in rows if (r["arm"], r["opponent"], r["task"])
                  == (record["arm"], record["opponent"], record["task"] or "all")]
        assert _close(_num(row["win rate"]), record["win_rate"])
        low, high = _interval(row["interval"])
        assert _close(low, record["lower"]) and _close(high, record["upper"])
        # the SE printed is the clustered one the interval rests on, not the i.i.d. one
        assert _close(_num(row["SE (clusters)"]), record["standard_error_clustered"])
        assert row["n"] == str(record["n"])
        assert row["W/T/L/fail"] == (f"{record['n_wins']}/{record['n_ties']}/"
                                     f"{record['n_losses']}/{record['n_failed']}")
        for column, key in (("p", "p_value"), ("p adj", "p_adjusted")):
            printed = row[column]
            assert (record[key] < 0.001 if printed == "<0.001"
                    else _close(_num(printed), record[key])), (column, printed, record[key])
        checked += 1
    assert checked == len(records) == 18


def test_flip_rate_direction_and_judges_agreement_are_in_the_records(outputs) -> None:
    text, records = outputs
    blocks = _blocks(text)
    flips = blocks["Positional flip rate (verdict changes when the order is swapped)"]
    directions = blocks["Direction of the flips (net share towards the answer shown first; "
                        "0 = no bias)"]
    agreement = blocks["Judges on the same trials (agreement; win rate a - b)"]
    assert len(flips) == len(directions) == 2 and len(agreement) == 3
    for record in records:
        position = record["position"]
        (flip,) = [r for r in flips if r["judge"] == record["judge"]]
        assert _close(_num(flip["flip rate"]), position["flip_rate"])
        assert all(_close(a, b) for a, b in zip(_interval(flip["interval"]),
                                                (position["lower"], position["upper"]),
                                                strict=True))
        assert flip["pairs"] == str(position["n"])
        assert _close(_num(flip["first shown wins"]), position["first_shown_preference"])
        (direction,) = [r for r in directions if r["judge"] == record["judge"]]
        assert direction["to first"] == str(position["direction_n_toward_first"])
        assert direction["to second"] == str(position["direction_n_toward_second"])
        assert _close(_num(direction["net"]), position["direction_net_toward_first"])
        assert _close(_num(direction["p"]), position["direction_p_value"])
        if record["task"] is not None:
            assert record["judges"] == []  # the comparison of judges is over all tasks
            continue
        (compared,) = record["judges"]
        (row,) = [r for r in agreement if (r["arm"], r["opponent"]) == (record["arm"],
                                                                          record["opponent"])]
        assert (row["judge a"], row["judge b"]) == (compared["judge_a"], compared["judge_b"])
        assert _close(_num(row["agreement"]), compared["agreement_rate"])
        assert row["trials"] == str(compared["n_trials"])
        assert _close(_num(row["difference"]), compared["difference"])


def test_text_and_json_name_the_same_methods(outputs) -> None:
    # The text said "test: cluster_t" and "logit CR2 t" for every row where the JSON records
    # said cluster_robust_t / logit_cluster_robust_t, and a record with no variance between
    # clusters (Korn-Graubard interval, exact sign-flip test) was printed under that header.
    text, records = outputs
    header = next(line for line in text.splitlines() if line.startswith("Win rates ("))
    common = [r for r in records if r["interval_method"] == "logit_cluster_robust_t"]
    other = [r for r in records if r["interval_method"] != "logit_cluster_robust_t"]
    assert common and other  # the table has both kinds
    assert "intervals: logit_cluster_robust_t (CR2)" in header
    assert "test: cluster_robust_t;" in header
    notes = text[text.index("\nNotes\n"):].splitlines()
    for record in other:
        label = (f"win rate {record['judge']} / {record['criterion']} / {record['arm']} vs "
                 f"{record['opponent']}" + (f" / task {record['task']}" if record["task"] else ""))
        lines = " ".join(n for n in notes if n.strip().startswith(f"- {label}:"))
        assert f"({record['interval_method']})" in lines and f"({record['test']})" in lines, label
