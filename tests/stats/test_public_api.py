"""assay.stats exports exactly its public names, sorted, each documented with an example."""

from __future__ import annotations

import inspect

import assay.stats as api
from assay.stats import _distributions, bleu, calibration, correlation, expectation
from assay.stats.agreement import _rates, _reliability
from assay.stats.contrasts import _mover, _multiplicity, _noninferiority, _paired
from assay.stats.intervals import _analytic, _bayes, _bootstrap, _cr2, _passk, _resampling, _runs
from assay.stats.leaderboard import _alpaca_eval_glm, _bradley_terry, _length_controlled
from assay.stats.power import _size as _power_size
from assay.stats.power import _variance as _power_variance
from assay.stats.ppi import _mean as _ppi_mean
from assay.stats.significance import _paired as _paired_tests
from assay.stats.significance import _permutation, _ranks
from assay.stats.summaries import _bands, _bins, _diversity, _ensemble, _stability

# the modules whose __all__ lists their functions (each with a doctested example)
MODULES = (_distributions, _rates, bleu, calibration, correlation, expectation, _bootstrap, _analytic,
           _bayes, _cr2, _mover,
           _multiplicity,
           _noninferiority, _paired, _passk, _permutation, _reliability, _resampling, _paired_tests,
           _ranks,
           _alpaca_eval_glm, _bradley_terry, _length_controlled, _bands, _bins, _diversity,
           _ensemble, _stability, _ppi_mean, _runs, _power_size, _power_variance)


def test_all_is_sorted_and_complete() -> None:
    assert api.__all__ == sorted(api.__all__)
    expected = {name for module in MODULES for name in module.__all__}
    expected |= {"BayesResult", "BootstrapRatios", "CR2Estimate", "IntervalResult", "PPIResult",
                 "RatioEstimate", "RunComponent", "TwoWayVariance",
                 "AgreementRate", "AlphaResult", "CorrelationMatrix", "FlipRateResult", "KappaResult",
                 "BleuResult", "PairwiseBleuResult", "CalibrationFit", "PairwiseAgreement",
                 "ReliabilityResult", "FriedmanResult", "NormalityResult", "PairedTestResult",
                 "PairwiseTest", "PermutationResult", "BradleyTerryFit", "BradleyTerryIntervals",
                 "LengthControlledWinRate", "AlpacaEvalGLMWinRate", "CorrelationResult", "ScoreExpectation",
                 "Diversity", "EnsembleWeights", "PercentileBands",
                 "RankingStability", "STRATEGIES", "equal_allocation", "proportional_allocation",
                 "sample_indices", "DesignSize", "VarianceComponents", "cr2_weighted_means",
                 "korn_graubard_wilson_interval",
                 "korn_graubard_jeffreys_interval", "korn_graubard_midp_interval"}
    assert set(api.__all__) == expected
    for name in api.__all__:
        assert getattr(api, name) is not None


def test_every_public_function_has_a_doctested_example_and_references_or_notes() -> None:
    for module in MODULES:
        for name in module.__all__:
            doc = inspect.getdoc(getattr(module, name)) or ""
            assert "Examples\n--------" in doc and ">>>" in doc, name
            assert "Notes\n-----" in doc, name


def test_options_are_keyword_only() -> None:
    for module in MODULES:
        for name in module.__all__:
            params = inspect.signature(getattr(module, name)).parameters.values()
            for p in params:
                if p.name in {"conf", "alternative", "rng", "alpha", "power", "bounds",
                              "grid_size", "draws", "floor", "tol", "max_iter"}:
                    assert p.kind is inspect.Parameter.KEYWORD_ONLY, (name, p.name)
