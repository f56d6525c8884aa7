"""BenchmarkQED's significance settings (``significance_alpha``, ``significance_correction``,
``detect_discovery``) are read by ``assay import qed-config`` and honoured by the run's
``significance_summary.csv`` (alpha of the flags, the correction within a family)."""

from __future__ import annotations

import pandas as pd
import pytest
from numpy.testing import assert_allclose
from statsmodels.stats.multitest import multipletests

from assay.analysis.assertions import assertion_significance
from assay.errors import ConfigError
from assay.judge.config import parse_config
from assay.judge.qed_config import qed_settings_to_config

ASSERTION_SETTINGS = {
    "generated": [{"name": "vector_rag", "answer_base_path": "input/vector_rag/data_local.json"}],
    "assertions": {"assertions_path": "input/assertions.json"},
    "llm_config": {"model": "gpt-4.1", "api_key": "${OPENAI_API_KEY}"},
}


def test_the_settings_become_the_significance_section(tmp_path):
    settings = {**ASSERTION_SETTINGS, "significance_alpha": 0.1, "significance_correction": "fdr_bh",
                "run_clustered_permutation": False, "permutation_seed": 7, "detect_discovery": False}
    config, notes = qed_settings_to_config(settings, folder=tmp_path)
    assert config["significance"] == {"alpha": 0.1, "correction": "fdr_bh", "permutations": 0, "seed": 7}
    assert any("detect_discovery" in n for n in notes)
    parsed = parse_config(config, base_dir=tmp_path, source="t")
    assert (parsed.significance.alpha, parsed.significance.correction) == (0.1, "fdr_bh")


def test_an_unknown_correction_is_refused(tmp_path):
    settings = {**ASSERTION_SETTINGS, "significance_correction": "sidak"}
    with pytest.raises(ConfigError, match="correction"):
        qed_settings_to_config(settings, folder=tmp_path)


def rows() -> pd.DataFrame:
    """Three arms, 10 questions, 4 assertions each: pass rates that differ by arm."""
    out = []
    for arm, passes in (("a", [4, 3, 4, 2, 3, 4, 4, 3, 2, 4]), ("b", [2, 1, 3, 1, 2, 2, 1, 2, 2, 1]),
                        ("c", [3, 3, 4, 2, 2, 4, 3, 3, 2, 3])):
        for q, k in enumerate(passes):
            for n in range(4):
                out.append({"item": f"q{q}#a{n}", "cluster": f"q{q}", "arm": arm, "run": 1, "judge": "j",
                            "criterion": "assertion", "score": float(n < k), "task": "s"})
    return pd.DataFrame(out)


@pytest.mark.parametrize("method", ["bonferroni", "fdr_bh"])
def test_the_correction_and_alpha_are_honoured(method):
    result = assertion_significance(rows(), method=method, alpha=0.01, n_resamples=0,
                                    correction="holm-per-group")
    pairs = result.tests[0].comparisons.pairs
    raw = [p.wilcoxon_p_value for p in pairs]
    assert_allclose([p.wilcoxon_p_adjusted for p in pairs], multipletests(raw, method=method)[1], rtol=1e-12)
    assert [p.significant_wilcoxon for p in pairs] == [bool(p.wilcoxon_p_adjusted < 0.01) for p in pairs]
