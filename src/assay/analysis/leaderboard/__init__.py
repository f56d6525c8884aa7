"""Leaderboard statistics of pairwise judgments: Bradley-Terry ratings with rank intervals
(Chatbot Arena) and length-controlled win rates (AlpacaEval 2.0).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._report": ["LeaderboardReport", "LengthControlled", "Rating", "leaderboard"],
})
