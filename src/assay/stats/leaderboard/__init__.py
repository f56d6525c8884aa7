"""Leaderboard statistics: Bradley-Terry ratings (Chatbot Arena) and the length-controlled win
rate (AlpacaEval 2.0).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._alpaca_eval_glm": ["AlpacaEvalGLMWinRate", "alpaca_eval_glm_win_rate"],
    "._bradley_terry": ["BradleyTerryFit", "BradleyTerryIntervals", "bradley_terry",
                        "bradley_terry_bootstrap"],
    "._length_controlled": ["LengthControlledWinRate", "length_controlled_win_rate"],
})
