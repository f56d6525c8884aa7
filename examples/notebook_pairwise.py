"""Judge two RAG methods' answers from Python, as in BenchmarkQED's notebook: frames in, frames out.

Run (any OpenAI-compatible endpoint; the key may sit in a .env file in this folder):

    OPENAI_API_KEY=sk-... python examples/notebook_pairwise.py notebook_run

OPENAI_BASE_URL and ASSAY_JUDGE_MODEL choose another endpoint and model. The run folder
(notebook_run) keeps every judgment: run the script again and nothing is asked twice.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd

import assay

QUESTIONS = {
    "q1": "What drove the rise in urban flooding across the region?",
    "q2": "How did battery recycling programmes change after the new policy?",
    "q3": "Which groups were most exposed during the heat waves?",
}


def answers(style: str) -> pd.DataFrame:
    """One method's answers: one row per question (BenchmarkQED's answer files, as a frame)."""
    return pd.DataFrame([{"question_id": q, "question": text, "answer": f"{style} answer: {text}"}
                         for q, text in QUESTIONS.items()])


def main(out: Path) -> None:
    llm = assay.LLM(base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
                    model=os.environ.get("ASSAY_JUDGE_MODEL", "gpt-4.1"), max_concurrency=8, cache="run")
    scores = assay.judge_pairwise(answers("A short"), answers("A long, sourced"), base_name="vector_rag",
                                  other_name="graph_rag", criteria=["comprehensiveness", "relevance"],
                                  trials=2, question_set="data_local", llm=llm, store=out)
    print(f"{len(scores)} pairwise scores (win_rates.csv's columns) in {out}")
    summary = assay.winrate_summary(scores)
    print(summary[["question_set", "criteria", "base_name", "other_name", "base_mean", "other_mean",
                   "formatted_corrected_p_value"]].to_string(index=False))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "notebook_run"))
