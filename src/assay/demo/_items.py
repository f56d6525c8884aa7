"""Draw the simulated items: documents (clusters) of factoid questions and summaries about
invented entities, each with its difficulty logit and its teacher. SIMULATED DATA."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.demo import _texts as texts
from assay.demo._world import (
    DEV_FRACTION,
    DIFFICULTY_LOGIT,
    DIFFICULTY_P,
    DOCUMENT_SD,
    ITEM_SD,
    REFERENCE_SCORE_FRACTION,
    TEACHERS,
    _cap,
    _dp_id,
    _Fact,
    _Item,
    _pick,
    _sigmoid,
)


def _make_datapoints(
    rng: np.random.Generator, n_documents: int, n_questions: int
) -> tuple[list[dict[str, Any]], list[_Item]]:
    """The datapoint records and the items behind them."""
    sizes = _cluster_sizes(rng, n_documents, n_questions)
    width = max(2, len(str(n_documents)))
    name_order = rng.permutation(len(texts.NAMES))
    domains = sorted(texts.DOMAINS)
    dev = set(rng.choice(n_questions, size=round(DEV_FRACTION * n_questions), replace=False)
              .tolist())
    records: list[dict[str, Any]] = []
    items: list[_Item] = []
    for doc, size in enumerate(sizes):
        domain = _pick(rng, domains)
        spec = texts.DOMAINS[domain]
        name = texts.NAMES[int(name_order[doc % len(texts.NAMES)])]
        if doc >= len(texts.NAMES):
            name += f"-{doc // len(texts.NAMES) + 1}"
        kind = _pick(rng, spec["kinds"])
        entity = f"{name} {kind}" if domain == "finance" else f"the {name} {kind}"
        facts = _make_facts(rng, spec["facts"])
        teacher = _pick(rng, TEACHERS)
        doc_effect = rng.normal(0.0, DOCUMENT_SD)
        # a document has 6 factoid and 4 summarisation prompts; its items are a sample of them
        slots = rng.permutation(10)[:size]
        for slot in slots.tolist():
            index = len(items)
            item = (_Item(index, "factoid_qa", facts[slot].question.format(e=entity),
                          facts[slot].value, entity, [facts[slot]]) if slot < 6
                    else _summary_item(rng, index, entity, facts, slot - 6))
            difficulty = ("easy", "medium", "hard")[int(rng.choice(3, p=DIFFICULTY_P))]
            item.logit = (DIFFICULTY_LOGIT[difficulty] + doc_effect
                          + float(rng.normal(0.0, ITEM_SD)))
            item.teacher = teacher
            ref_score = None
            if rng.random() < REFERENCE_SCORE_FRACTION:
                ref_score = round(float(_sigmoid(0.4 * item.logit + rng.normal(0.0, 0.4))), 3)
            items.append(item)
            records.append({
                "id": _dp_id(index, n_questions), "task": item.task,
                "cluster": f"doc-{doc + 1:0{width}d}", "prompt": item.prompt,
                "reference": item.reference, "teacher": teacher,
                "split": "dev" if index in dev else "test",
                "attributes": {"difficulty": difficulty, "domain": domain},
                "reference_score": ref_score,
            })
    return records, items


def _cluster_sizes(rng: np.random.Generator, n_documents: int, n_questions: int) -> list[int]:
    """Uneven document sizes in [2, 9] (wider only when needed) summing to n_questions."""
    low = 2 if n_questions >= 2 * n_documents else 1
    high = 9 if n_questions <= 9 * n_documents else 10
    sizes = rng.integers(low, high + 1, size=n_documents)
    while (gap := int(sizes.sum()) - n_questions) != 0:
        movable = np.flatnonzero(sizes > low) if gap > 0 else np.flatnonzero(sizes < high)
        sizes[movable[int(rng.integers(len(movable)))]] -= 1 if gap > 0 else -1
    return sizes.tolist()


def _make_facts(rng: np.random.Generator, templates: Sequence[tuple[str, ...]]) -> list[_Fact]:
    values = [_draw_value(rng, kind) for _, kind, _, _ in templates]
    pairs = list(zip(templates, values, strict=True))
    years = sorted(int(v) for (_, kind, _, _), v in pairs if kind == "year")
    if len(years) > 1 and years[0] == years[-1]:
        years[-1] += 1
    year_iter = iter(str(y) for y in years)  # a document's events happen in template order
    return [_Fact(kind, question, clause, next(year_iter) if kind == "year" else value)
            for (_, kind, question, clause), value in pairs]


def _draw_value(rng: np.random.Generator, kind: str) -> str:
    if kind == "year":
        return str(int(rng.integers(1700, 1991)))
    if kind == "person":
        return f"{_pick(rng, texts.FIRST_NAMES)} {_pick(rng, texts.LAST_NAMES)}"
    if kind == "city":
        return _pick(rng, texts.CITIES)
    if kind.startswith("count:"):
        low, high = (int(x) for x in kind[6:].split(","))
        return str(int(rng.integers(low, high + 1)))
    return _pick(rng, texts.VOCAB[kind])


def _wrong_value(rng: np.random.Generator, fact: _Fact) -> str:
    """A plausible wrong value of the fact's kind (a near-miss year, a scaled count...)."""
    for _ in range(50):
        if fact.kind == "year":
            value = str(int(fact.value) + int(rng.choice([-1, 1])) * int(rng.integers(1, 40)))
        elif fact.kind.startswith("count:"):
            value = str(max(1, round(int(fact.value) * float(rng.uniform(0.4, 1.8)))))
        else:
            value = _draw_value(rng, fact.kind)
        if value != fact.value:
            return value
    return fact.value + " (approximately)"  # only for a vocabulary of one word


def _summary_item(rng: np.random.Generator, index: int, entity: str, facts: list[_Fact],
                  facet: int) -> _Item:
    chosen = [facts[j] for j in texts.SUMMARY_FACETS[facet]]
    sentences = [f"{_cap(entity) if j == 0 else 'It'} {f.clause.format(v=f.value)}."
                 for j, f in enumerate(chosen)]
    for filler in rng.choice(len(texts.FILLER_SENTENCES), size=2, replace=False).tolist():
        sentences.insert(int(rng.integers(1, len(sentences) + 1)),
                         texts.FILLER_SENTENCES[filler])
    prompt = texts.SUMMARY_PROMPTS[facet].format(e=entity) + "\n\n" + " ".join(sentences)
    return _Item(index, "summarisation", prompt,
                 _summary_text(entity, chosen, [f.value for f in chosen]), entity, chosen)


def _summary_text(entity: str, facts: Sequence[_Fact], values: Sequence[str],
                  opener: str = "") -> str:
    clauses = [f.clause.format(v=v) for f, v in zip(facts, values, strict=True)]
    subject = entity if opener else _cap(entity)
    return f"{opener}{subject} {', '.join(clauses[:-1])} and {clauses[-1]}."



