"""``transport: batch``: the pending judgments of a run as OpenAI Batch API jobs.

:func:`run_batch` is what :func:`~assay.judge.run_requests` runs for a client whose config
says ``transport: batch``; :mod:`._api` holds the HTTP calls (files and batches), :mod:`._lines`
the JSONL in and out, :mod:`._adapter` the client's side (a request's body, a result's reply).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._adapter": ["batch_body", "batch_reply"],
    "._api": ["BatchAPI", "BatchStatus"],
    "._lines": ["batch_input", "read_results"],
    ".runner": ["run_batch"],
})
