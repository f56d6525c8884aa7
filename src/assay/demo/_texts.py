"""Word lists and sentence templates for :mod:`assay.demo.simulate` (simulated data only).

Everything here is invented: the treaties, bridges, species, banks and rivers, the people
and the cities do not exist. The lists are small on purpose; the generator combines them.
"""

from __future__ import annotations

NAMES: tuple[str, ...] = (
    "Meridian", "Halvorsen", "Kestrel", "Orrin", "Talbot", "Verity", "Ashgrove", "Corran",
    "Wexley", "Lunden", "Brackmoor", "Emberly", "Fairholm", "Gresham", "Hollis", "Iverne",
    "Jorvale", "Kilmory", "Larkspur", "Morrow", "Norcombe", "Osric", "Pellam", "Quillon",
    "Redvale", "Sorrel", "Thistlewood", "Ulverton", "Vantor", "Whitcombe", "Yarrow", "Zennor",
    "Amberley", "Blackwater", "Calloway", "Dunmere", "Eskdale", "Farrow", "Glenary", "Harwick",
    "Islay", "Juniper", "Kelso", "Lindqvist", "Marlow", "Nethercott", "Oakhurst", "Penrose",
)
"""Proper names the simulated documents are about."""

FIRST_NAMES: tuple[str, ...] = (
    "Ada", "Bertram", "Clara", "Dmitri", "Elin", "Farouk", "Greta", "Hugo", "Ines", "Jonas",
    "Katya", "Lionel", "Mirela", "Nils", "Odile", "Pavel", "Rosalind", "Soren", "Theda", "Viktor",
)
LAST_NAMES: tuple[str, ...] = (
    "Lorne", "Abernethy", "Castellan", "Dravic", "Eriksen", "Fenwick", "Grau", "Hallam",
    "Ivers", "Jessop", "Kovacs", "Lindgren", "Maddox", "Novak", "Okafor", "Pryce", "Quint",
    "Rask", "Strand", "Tolliver",
)
CITIES: tuple[str, ...] = (
    "Vessington", "Port Alder", "Caldmouth", "Brennick", "Ostholm", "Lark Harbour", "Temsford",
    "Mirrowdale", "Saint Aubry", "Kettleby", "Norhaven", "Dunstable Cross", "Elmsworth",
    "Queensferry Vale", "Ravensholt", "Tarrow", "Wyndmere", "Ashby Marsh", "Coldbrook",
    "Halden Reach",
)

VOCAB: dict[str, tuple[str, ...]] = {
    "language": ("Latin", "French", "Old Norse", "Dutch", "Portuguese", "Low German"),
    "material": ("granite", "cast iron", "reinforced concrete", "sandstone", "steel", "timber"),
    "habitat": ("peat bogs", "limestone caves", "alpine meadows", "tidal flats", "beech forest",
                "river gravel"),
    "sector": ("shipping", "textiles", "rail freight", "insurance", "grain trading", "mining"),
    "rock": ("basalt", "chalk", "slate", "gneiss", "limestone", "shale"),
    "colour": ("pale yellow", "deep violet", "rust red", "olive green", "white", "slate blue"),
}
"""Vocabularies for facts that are a word rather than a number, a person or a city."""

# A fact template: (key, kind, question, clause). ``kind`` is "year", "person", "city",
# "count:LOW,HIGH" or a key of VOCAB. The question mentions the entity as {e}; the clause is
# a predicate about the entity with the value as {v} ("took effect in 1847").
FactTemplate = tuple[str, str, str, str]

DOMAINS: dict[str, dict[str, tuple]] = {
    "history": {
        "kinds": ("Treaty", "Accord", "Charter", "Compact", "Convention"),
        "facts": (
            ("effective", "year", "What year did {e} take effect?", "took effect in {v}"),
            ("drafter", "person", "Who drafted {e}?", "was drafted by {v}"),
            ("signed_in", "city", "In which city was {e} signed?", "was signed in {v}"),
            ("delegations", "count:3,41", "How many delegations signed {e}?",
             "was signed by {v} delegations"),
            ("language", "language", "In which language was {e} originally written?",
             "was originally written in {v}"),
            ("revoked", "year", "In what year was {e} revoked?", "was revoked in {v}"),
        ),
    },
    "engineering": {
        "kinds": ("Bridge", "Dam", "Tunnel", "Viaduct", "Lighthouse"),
        "facts": (
            ("completed", "year", "In what year was {e} completed?", "was completed in {v}"),
            ("engineer", "person", "Who was the chief engineer of {e}?",
             "was designed by chief engineer {v}"),
            ("near", "city", "Which city is {e} closest to?", "stands close to {v}"),
            ("length", "count:120,2400", "How many metres long is {e}?", "is {v} metres long"),
            ("material", "material", "What is the main building material of {e}?",
             "is built mainly of {v}"),
            ("restored", "year", "In what year was {e} last restored?", "was last restored in {v}"),
        ),
    },
    "biology": {
        "kinds": ("salamander", "orchid", "finch", "beetle", "sedge"),
        "facts": (
            ("described", "year", "In what year was {e} first described?",
             "was first described in {v}"),
            ("describer", "person", "Who first described {e}?", "was first described by {v}"),
            ("collected", "city", "Near which city was {e} first collected?",
             "was first collected near {v}"),
            ("specimens", "count:2,60", "How many specimens made up the type series of {e}?",
             "was described from {v} specimens"),
            ("habitat", "habitat", "In what habitat is {e} usually found?",
             "is usually found in {v}"),
            ("colour", "colour", "What colour is {e} in its breeding season?",
             "turns {v} in its breeding season"),
        ),
    },
    "finance": {
        "kinds": ("Savings Bank", "Holdings", "Mutual Society", "Trading Company", "Exchange"),
        "facts": (
            ("founded", "year", "In what year was {e} founded?", "was founded in {v}"),
            ("chair", "person", "Who was the first chair of {e}?", "was first chaired by {v}"),
            ("hq", "city", "In which city is {e} headquartered?", "is headquartered in {v}"),
            ("branches", "count:4,380", "How many branches did {e} have at its peak?",
             "had {v} branches at its peak"),
            ("sector", "sector", "Which sector did {e} mainly serve?", "mainly served {v}"),
            ("listed", "year", "In what year was {e} first listed?", "was first listed in {v}"),
        ),
    },
    "geography": {
        "kinds": ("River", "Glacier", "Plateau", "Fjord", "Lake"),
        "facts": (
            ("surveyed", "year", "In what year was {e} first surveyed?",
             "was first surveyed in {v}"),
            ("surveyor", "person", "Who led the first survey of {e}?",
             "was first surveyed by {v}"),
            ("nearest", "city", "Which city lies nearest to {e}?", "lies nearest to {v}"),
            ("extent", "count:8,640", "How many kilometres long is {e}?",
             "is {v} kilometres long"),
            ("bedrock", "rock", "What is the main bedrock under {e}?", "lies mainly on {v}"),
            ("protected", "year", "In what year was {e} first protected by law?",
             "was first protected by law in {v}"),
        ),
    },
}
"""Per domain: the kinds of thing a document is about, and six fact templates."""

SUMMARY_PROMPTS: tuple[str, ...] = (
    "Summarise the following passage about {e} in one sentence.",
    "Write a one-sentence summary of the passage below for a general reader.",
    "In a single sentence, give the key facts the passage states about {e}.",
    "Condense this passage about {e} into one sentence, keeping every number and name.",
)
"""Instructions of the summarisation items; each covers a different subset of the facts."""
SUMMARY_FACETS: tuple[tuple[int, int, int], ...] = ((0, 1, 2), (2, 3, 4), (0, 3, 5), (1, 4, 5))
"""The facts (indices into a domain's six) the passage of each summary prompt states."""

FILLER_SENTENCES: tuple[str, ...] = (
    "Its wider significance is still debated.",
    "Local records from the period are incomplete.",
    "Several later accounts repeat these details with small differences.",
    "It is mentioned only briefly in most general histories.",
    "A short notice about it appeared in the regional press at the time.",
    "Much of the original correspondence has since been lost.",
)
"""Sentences that pad a passage without stating a fact a summary must keep."""

FACTOID_CORRECT_FORMS: tuple[str, ...] = ("{v}", "{v}.", "The answer is {v}.", "{E} {c}.")
"""Ways a system states a factoid answer; {v} value, {E} entity, {c} the filled clause."""

SUMMARY_OPENERS: tuple[str, ...] = ("", "In short, ", "The passage says that ", "Briefly, ")

REFUSALS: tuple[str, ...] = (
    "I'm sorry, but I can't help with that request.",
    "I can't provide an answer to this question.",
    "I'm not able to assist with that.",
)
GARBLED: tuple[str, ...] = (
    '{"answer": "',
    "<|endoftext|>Answer: Answer: Answer:",
    "```json\n{\"answer\": ",
    "ANSWER ANSWER \ufffd\ufffd\ufffd",
    "[[[[ ]]] null null",
)
"""Texts of responses whose output could not be parsed."""

REASONS_HIGH: tuple[str, ...] = (
    "Accurate and complete; agrees with the reference.",
    "Correct, clearly stated and appropriately concise.",
    "Matches the reference on every key fact.",
)
REASONS_MID: tuple[str, ...] = (
    "Partly right, but one detail is vague or missing.",
    "Mostly reasonable; the key fact is stated without much support.",
    "Acceptable, though the wording is imprecise.",
)
REASONS_LOW: tuple[str, ...] = (
    "The key fact contradicts the reference.",
    "States a specific detail that the source does not support.",
    "Confident but wrong on the main point.",
)
REASONS_PAIRWISE: tuple[str, ...] = (
    "Response {w} states the facts more accurately.",
    "Response {w} is more faithful to the source.",
    "Response {w} answers the question directly and correctly.",
)
REASONS_TIE: tuple[str, ...] = (
    "Both responses are about equally good.",
    "Neither response is clearly better.",
)

README = """# Simulated evaluation (SIMULATED DATA)

Every record in this folder is **simulated**: no language model or person produced it.
It was written by `assay.demo.simulate.simulate_evaluation` with seed {s.seed}
({n_questions} questions in {n_documents} documents, arms {arms},
{s.runs} runs). The same call writes the same bytes. The statistical model is described
in the docstring of `assay.demo.simulate`.

## Files

- `datapoints.jsonl` ({s.n_datapoints} lines): one question each: `id`, `task`
  (factoid_qa or summarisation), `cluster` (its document), `prompt`, `reference`,
  `teacher` (the model that wrote it), `split` (test, or dev for 10%), `attributes`
  (difficulty, domain), `reference_score` (a benchmark-native score in [0, 1], or null).
- `responses.jsonl` ({s.n_responses} lines): one answer of one arm in one run: `id`,
  `datapoint_id`, `arm`, `run`, `text` (null for timeout and api_error), `usd`,
  `usd_provenance` (reported, or estimated when no usage came back), `tokens_in`,
  `tokens_out`, `latency_s`, `failure_kind` (null, timeout, api_error, refusal,
  parse_error). Failures: {fails}.
- `evaluations.jsonl` ({s.n_evaluations} lines): one judgment of one response by one
  judge: `id`, `response_id`, `judge`, `scores` ({{criterion: value}}),
  `opponent_response_id`, `position`, `trial` (pairwise only; otherwise null, null, 1),
  `reasoning`, `failure_kind`, `evaluated_at`.
- `criteria.json`: the scale of each criterion, the criteria each judge scores and the
  criteria each task is judged on (`rubrics`).

| judge | criteria | records |
|---|---|---|
{judges}

Both tasks are judged on correct, quality and helpfulness; arms are compared pairwise
on preference. An evaluation of a failed response has every score null and the
response's `failure_kind`: a failure counts as wrong (in a pairwise record, when only
the opponent failed, the record's arm wins). Pairwise judgments use run 1 only; a record
is written for the earlier arm of each pair in the order listed above, whose answer was
shown first (position 1) in trial 1 and second (position 2) in trial 2; its score is 1
for a win, 0.5 for a tie, 0 for a loss.

## The truth

True accuracy (mean over the questions of P(correct), failures counting as wrong):

| arm | true accuracy |
|---|---|
{acc}

Judge leniency: judge-lenient {lenient:+g}, judge-strict {strict:+g} points on quality.
Pairwise position bias: {position:+g} on the logit scale for the answer shown first.
Self-teaching: {self_teach:+g} on the logit scale when an arm answers questions it wrote
(its name is the item's `teacher`).

## Human labels and a biased judge

`judge-biased` scores `acceptable` on run 1 of every arm: a right answer acceptable with
probability {accept_right:g}, a wrong one {accept_wrong:g}, except {favoured}'s answers,
which it accepts with {fav_right:g} and {fav_wrong:g} (it favours that system, as a judge of
the system's own model family would). Simulated humans label a random {human_pct:.0%} of the
questions ({n_labelled} of {n_questions}): `human:annotator-1` marks run 1's answers
`acceptable` when right (8% of its labels flipped), `human:annotator-2` gives a preference
on each pair of them from their quality (no position bias; the order shown is not
recorded). So the judge's own acceptability overstates {favoured} and the human-calibrated
estimates (`assay report --kind human`, and "What humans would say" in the default
report) correct it from the few labels.

## Planted invalid records

| validity class | evaluations |
|---|---|
{planted}

MISSING_RESPONSE: the response it scores is not in responses.jsonl. MISSING_DATAPOINT:
the response it scores answers a datapoint that is not in datapoints.jsonl (responses
{orphans}).
INCOMPLETE_SCORES: `scores` lacks the criterion its judge scores. INVALID_SCORE_VALUE: a
score off its criterion's scale ("Excellent" for helpfulness, 140 for quality).
"""
"""The README.md of a simulated run folder (a str.format template)."""
