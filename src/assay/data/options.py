"""The table options as the command line spells them: ``--map``, ``--set`` and ``--missing``.

Each option takes ``KEY=VALUE`` parts separated by commas, and may be repeated. The parsers
raise ``ValueError`` with the part at fault; the CLI turns that into one line and exit 2.
"""

from __future__ import annotations

from assay.data.schema import COLUMN_BY_NAME
from assay.errors import did_you_mean

DROP = "-"
"""Mapping target that drops a column (``--map notes=-``)."""


def _pairs(option: str, flag: str, example: str, *, continued: bool) -> list[tuple[str, str]]:
    """``KEY=VALUE[,KEY=VALUE...]`` split on commas; with ``continued``, a part without ``=``
    continues the value before it (``--set judge=a,b`` sets judge to ``a,b``)."""
    pairs: list[tuple[str, str]] = []
    for part in option.split(","):
        key, sep, value = part.partition("=")
        if not sep and continued and pairs:
            pairs[-1] = (pairs[-1][0], pairs[-1][1] + "," + part)
            continue
        if not part.strip() and not continued:
            continue
        if not sep or not key.strip():
            raise ValueError(f"{flag} {part!r}: expected {example}")
        pairs.append((key.strip(), value))
    return pairs


def parse_mapping(options: list[str] | None, *, fields: bool = False) -> dict[str, str]:
    """Read ``--map SRC=DST[,SRC=DST...]`` options into a dict (DST ``-`` drops SRC).

    A source may name a field inside a JSON object with dots (``scores.quality=score``).
    With ``fields`` the targets are an importer's record fields (``question_id=uid``),
    any name, rather than judgments columns.

    >>> parse_mapping(["question_id=item,model=arm", "notes=-"])
    {'question_id': 'item', 'model': 'arm', 'notes': '-'}
    """
    mapping: dict[str, str] = {}
    for option in options or []:
        for source, target in _pairs(option, "--map", "SOURCE=COLUMN, e.g. question_id=item",
                                     continued=False):
            target = target.strip()
            if not target:
                raise ValueError(f"--map {source}=: expected SOURCE=COLUMN, e.g. question_id=item")
            if target != DROP and target not in COLUMN_BY_NAME and not fields:
                raise ValueError(f"--map {source}={target}: {target!r} is not a column of the "
                                 f"judgments table{did_you_mean(target, COLUMN_BY_NAME)} "
                                 f"(columns: {', '.join(COLUMN_BY_NAME)}; or - to drop)")
            mapping[source] = target
    return mapping


def parse_assignments(options: list[str] | None, *, fields: bool = False) -> dict[str, str]:
    """Read ``--set COLUMN=VALUE[,COLUMN=VALUE...]`` options: constants for columns the file lacks.

    Split on commas like ``--map``; a part without ``=`` belongs to the value before it.
    With ``fields`` the names are an importer's record fields (``baseline=gpt-4-0314``).

    >>> parse_assignments(["judge=a,criterion=b", "task=x,y"])
    {'judge': 'a', 'criterion': 'b', 'task': 'x,y'}
    """
    values: dict[str, str] = {}
    for option in options or []:
        for column, value in _pairs(option, "--set", "COLUMN=VALUE, e.g. judge=gpt-4o",
                                    continued=True):
            if column not in COLUMN_BY_NAME and not fields:
                raise ValueError(f"--set {column}={value}: {column!r} is not a column of the "
                                 f"judgments table{did_you_mean(column, COLUMN_BY_NAME)} "
                                 f"(columns: {', '.join(COLUMN_BY_NAME)})")
            values[column] = value
    return values


def parse_missing(options: list[str] | None) -> dict[str, tuple[str, ...]]:
    """Read ``--missing COLUMN=VALUE[,VALUE...]``: values that mean "no value" in a column.

    A part without ``=`` adds a value to the column before it.

    >>> parse_missing(["score=-1,-2", "usd=-1"])
    {'score': ('-1', '-2'), 'usd': ('-1',)}
    """
    missing: dict[str, tuple[str, ...]] = {}
    for option in options or []:
        pairs = _pairs(option, "--missing", "COLUMN=VALUE, e.g. score=-1", continued=True)
        for column, values in pairs:
            if column not in COLUMN_BY_NAME or (COLUMN_BY_NAME[column].required and column != "score"):
                raise ValueError(f"--missing {column}={values}: expected a column of the judgments "
                                 "table that may be missing (score, usd, ...), e.g. score=-1"
                                 f"{did_you_mean(column, COLUMN_BY_NAME)}")
            listed = tuple(v.strip() for v in values.split(",") if v.strip())
            if not listed:
                raise ValueError(f"--missing {column}=: name the value that means missing, e.g. "
                                 f"{column}=-1")
            missing[column] = missing.get(column, ()) + listed
    return missing
