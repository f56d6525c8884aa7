"""What ``assay judge --init`` writes: the commented config (:data:`EXAMPLE_CONFIG`) and,
beside it, a tiny example input set, so the config runs as written: two systems' answers
to three question sets of three questions each, in BenchmarkQED's layout
(``example_answers/{method}/{question_set}_answers.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.errors import ConfigError

__all__ = ["EXAMPLE_CONFIG", "EXAMPLE_FOLDER", "write_example_inputs"]

EXAMPLE_FOLDER = "example_answers"
"""The folder of the example answers, next to the config (its ``inputs.input_dir``)."""

_METHODS = ("vector_rag_short_context", "vector_rag_long_context")
_QUESTIONS = {
    "data_global": [
        ("g1", "report-1", "What are the main themes across the reports?",
         "Supply delays and rising costs.",
         "Three themes recur: supply delays, rising input costs and staff shortages, each "
         "named in most reports."),
        ("g2", "report-2", "Which regions are discussed most often?",
         "The north.",
         "The northern and coastal regions, which together account for two thirds of the "
         "mentions."),
        ("g3", "report-2", "How did the outlook change over the year?",
         "It improved.",
         "It moved from cautious in the first quarter to moderately optimistic by the fourth, "
         "as costs stabilised."),
    ],
    "data_local": [
        ("l1", "report-1", "What delay did the March shipment have?",
         "Two weeks.", "Two weeks, caused by a port closure."),
        ("l2", "report-3", "Who led the audit?", "The finance team.",
         "The finance team, led by its deputy director."),
        ("l3", "report-3", "What was the audit's main finding?", "Missing invoices.",
         "Forty-one invoices were missing for the second quarter."),
    ],
    "data_linked": [
        ("k1", "report-1", "Did the port closure affect the audit?", "No.",
         "Yes: the missing invoices were for the delayed shipments."),
        ("k2", "report-2", "Which region's costs rose after the closure?", "The north.",
         "The coastal region, whose shipments were rerouted by land."),
        ("k3", "report-3", "Who reported both the delay and the audit?", "Nobody.",
         "The finance team, in its quarterly summary."),
    ],
}


def write_example_inputs(folder: Path) -> list[Path]:
    """Write the example answers under ``folder/example_answers`` and return the files written.

    Each record has ``question_id``, ``question``, ``answer`` and ``document_id`` (the
    question's cluster); the short-context system answers tersely, the long-context one in full.

    Raises
    ------
    ConfigError
        ``folder/example_answers`` exists already (nothing is overwritten).
    """
    root = folder / EXAMPLE_FOLDER
    if root.exists():
        raise ConfigError(f"{root}: already exists; --init does not overwrite it")
    written = []
    for index, method in enumerate(_METHODS):
        (root / method).mkdir(parents=True)
        for question_set, rows in _QUESTIONS.items():
            records = [{"question_id": qid, "document_id": doc, "question": question,
                        "answer": (short, long)[index]}
                       for qid, doc, question, short, long in rows]
            path = root / method / f"{question_set}_answers.json"
            path.write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
            written.append(path)
    return written


EXAMPLE_CONFIG = """\
# assay judge config (version 1). Run: assay judge this.yaml --out runs/first --dry-run
# Every key with its default and meaning: docs/config.md.
# Strings may read environment variables: ${VAR} or ${VAR:-default}.
version: 1

llm:                                   # any OpenAI-compatible chat-completions endpoint
  model: gpt-4.1                       # the default judge model
  base_url: ${OPENAI_BASE_URL:-https://api.openai.com/v1}
                                       # Azure: https://NAME.openai.azure.com/openai/deployments/D?api-version=V
                                       # (credentials or a token in it are never stored or printed)
  api_key_env: OPENAI_API_KEY          # NAME of the variable holding the key (never the key)
  max_concurrency: 32                  # requests in flight at most
  timeout_s: 120                       # longest wait for one reply
  # transport: direct                  # direct (default: assay posts over aiohttp with the SDK's
                                       # headers), openai (through the OpenAI SDK's own post), or
                                       # batch (the Batch API: half price, replies within 24 h;
                                       # docs/batch.md)
  params: {temperature: 0.0, seed: 42} # chat-completions parameters of every call
  prices:                              # USD per million tokens, for cost and the cost limit
    gpt-4.1: {input: 2.0, output: 8.0}
  cost_limit_usd: 20.0                 # stop once this much is spent (exit 3; a rerun resumes);
                                       # needs a price for every model called

# Response cache: a reply already received for the same endpoint, model, prompt and
# parameters is not paid for again. run (default): responses.sqlite in the run folder;
# shared: one cache per user ($ASSAY_CACHE_DIR, else ~/.cache/assay) read by every run;
# off: none; or a file path. `assay judge --cache/--no-cache` overrides it;
# `assay cache info|clear RUN` shows or empties it.
cache: run

# Significance tests written after a run (assertion judges scoring two or more arms):
# Friedman, pairwise Wilcoxon and clustered permutation tests, Holm within a question set.
significance:
  enabled: true                        # false: no significance_summary.csv
  permutations: 10000                  # sign patterns per permutation test; 0: no permutation tests
  seed: 42

# Where the answers are (assay judge --init DIR writes this example set in DIR/example_answers).
# BenchmarkQED's layout: one file per method (system) and question set; the file may be a
# JSON list of records, JSON lines, CSV, TSV or Parquet (by its suffix).
inputs:
  input_dir: ./example_answers
  methods: [vector_rag_short_context, vector_rag_long_context]
  question_sets: [data_global, data_local, data_linked]
  answers_path: "{input_dir}/{method}/{question_set}_answers.json"   # e.g. .../{question_set}.csv
  question_id_key: question_id
  question_text_key: question
  answer_text_key: answer
  cluster_key: document_id             # questions from one document form a cluster
  # tables: [answers.csv]              # or assay's own table, any of those formats: item, arm,
                                       # question, answer (+ task, cluster, reference, usd...)
  # reference_method: vector_rag_long_context     # answers used as references
  # references_path: "{input_dir}/{question_set}_references.json"
  # assertions_path: "{input_dir}/{question_set}_assertions.json"   # assertion judges
  # retrieval_path: "{input_dir}/{method}/{question_set}_retrieval_results.json"   # chunk_assertion

judges:
  # Every judge may set prompt: FOLDER (system.md, user.md) replacing its packaged prompt.
  # Prompts are jinja2 templates ({{ question }}, {{ answer1 }}); a placeholder of another
  # syntax left in the text ({question}, ${question}, $question) is refused, naming the
  # file and line, never sent.
  - kind: pairwise                     # counterbalanced: trial t shows `base` first when t is odd
    base: vector_rag_short_context
    others: [vector_rag_long_context]  # add the base itself for an A/A test of the judge
    trials: 4                          # even
    criteria: [comprehensiveness, diversity, empowerment, relevance]
    joint: false                       # true: all criteria in one call

  - kind: reference                    # integer score against the reference, orders counterbalanced
    label: reference
    reference: vector_rag_long_context # an arm, or "inputs" for inputs.references_path
    generated: [vector_rag_short_context]
    trials: 2
    score_min: 1
    score_max: 10
    criteria: [correctness, completeness]

  - kind: rubric                       # pointwise score on a declared scale
    label: rubric
    criteria:
      - {name: clarity, description: "Is the answer easy to follow?", scale: "range:0,100"}
      - {name: helpfulness, description: "Does it help the asker?", scale: "ordinal:Low,Medium,High"}

  - kind: metric                       # offline, no model: exact_match, token_f1, rouge_l, bleu
    reference: vector_rag_long_context
    metrics: [token_f1, rouge_l]

  # Assertion judges (need inputs.assertions_path; chunk_assertion also inputs.retrieval_path):
  # - kind: assertion                  # standard: pass when the mean over trials > pass_threshold
  #   trials: 2
  #   pass_threshold: 0.5
  #   question_sets: [data_local, data_linked]
  # - kind: assertion_hierarchical     # global + supporting assertions and discovery
  #   mode: staged                     # staged: supporting only for passed globals; or joint
  #   question_sets: [data_global]
  # - kind: chunk_assertion            # grade retrieved chunks; coverage at each k
  #   k_list: [5, 10, 20, 50]
  #   max_chunks: 50
  # Differential pairwise: extract common / unique content, then judge the unique content
  # - kind: differential
  #   label: diff-joint
  #   base: vector_rag_short_context
  #   mode: joint                      # joint: all criteria in one call; separate: one call each
  #   trials: 4
"""
"""What ``assay judge --init`` writes: a commented config that validates."""
