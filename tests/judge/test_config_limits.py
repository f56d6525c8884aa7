"""A judge config is read in bounded work: a YAML alias bomb or a huge file is refused at once
(issue item 21)."""

from __future__ import annotations

import itertools
import time

import pytest

from assay.errors import ConfigError
from assay.judge.config import load_config
from tests.cli._subprocess import one_error_line, run_assay


def _bomb(levels: int = 9) -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    names = "abcdefghijk"
    for previous, name in itertools.pairwise(names[:levels]):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    lines.append(f"judges: *{names[levels - 1]}")
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb())  # 9**9 = 387 million strings once expanded
    started = time.monotonic()
    with pytest.raises(ConfigError, match="expands to more than 100000 values"):
        load_config(path)
    assert time.monotonic() - started < 2
    result = run_assay("judge", str(path), "--out", str(tmp_path / "run"), "--dry-run", timeout=60)
    assert result.returncode == 2
    assert str(path) in one_error_line(result)


def test_shared_anchors_of_a_real_config_still_load(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("version: 1\nx-params: &p {temperature: 0}\n")
    with pytest.raises(ConfigError) as info:  # an unknown key, read: the anchors did not stop it
        load_config(path)
    assert "x-params" in str(info.value) and "expands" not in str(info.value)


def test_a_huge_config_is_refused(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("version: 1\n# " + "x" * 2_000_000 + "\n")
    with pytest.raises(ConfigError, match="a config has at most"):
        load_config(path)
