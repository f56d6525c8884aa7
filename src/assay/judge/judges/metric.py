"""Offline metric judges: exact match, token F1, ROUGE-L and BLEU against a reference answer.

No model is called: the judge answers its own requests (:meth:`MetricJudge.answer`), and
the planner stores the replies like any judgment, so metric runs resume and export the
same way. The ``judge`` column is the metric's name and so is the ``criterion``.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import Field

from assay.data.schema import Scale
from assay.judge.judges._protocol import (
    JudgeContext,
    JudgeInputs,
    JudgeSettings,
    base_meta,
    item_key,
    judge_name,
    reply_row,
    settings_hash,
    shown_texts,
)
from assay.judge.judges.reference import reference_answer
from assay.judge.judges.verdicts import MetricVerdict
from assay.llm import ChatRequest, Reply, judgment_key

MetricName = Literal["exact_match", "token_f1", "rouge_l", "bleu"]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
_WORDS = re.compile(r"[a-z0-9]+")
_BLEU_TOKENS = re.compile(r"\w+|[^\w\s]")


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces.

    >>> normalize_answer("The  Eiffel Tower!")
    'eiffel tower'
    """
    text = text.lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, reference: str) -> float:
    """1.0 when the normalised texts are equal, else 0.0.

    >>> exact_match("Paris.", "paris"), exact_match("Paris, France", "Paris")
    (1.0, 0.0)
    """
    return float(normalize_answer(prediction) == normalize_answer(reference))


def token_f1(prediction: str, reference: str) -> float:
    r"""Token F1 of SQuAD: the harmonic mean of token precision and recall after normalisation.

    With c the size of the multiset intersection of the tokens, p the prediction's and r
    the reference's token counts,

    .. math:: F_1 = \frac{2 (c/p)(c/r)}{c/p + c/r} = \frac{2c}{p + r}

    and, as in SQuAD's script, 1.0 when both are empty and 0.0 when only one is.

    >>> token_f1("the cat sat on the mat", "a cat on a mat")   # c = 3, p = 4, r = 3
    0.8571428571428571
    """
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(reference).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    return 0.0 if common == 0 else 2.0 * common / (len(pred) + len(ref))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (dynamic programming).

    >>> lcs_length("a b c d".split(), "a c b d".split())
    3
    """
    if len(a) < len(b):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge_l(prediction: str, reference: str) -> float:
    r"""ROUGE-L F-measure: precision and recall of the longest common subsequence of tokens.

    Tokens are runs of lower-case letters and digits (rouge-score's default tokeniser,
    without stemming). With L the LCS length, m the reference's and n the prediction's
    token counts, P = L / n, R = L / m and F = 2PR / (P + R) (Lin 2004, beta = 1);
    0.0 when either text has no tokens.

    >>> rouge_l("the cat was found under the bed", "the cat was under the bed")  # L=6, n=7, m=6
    0.923076923076923
    """
    pred = _WORDS.findall(prediction.lower())
    ref = _WORDS.findall(reference.lower())
    if not pred or not ref:
        return 0.0
    common = lcs_length(pred, ref)
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def bleu(prediction: str, reference: str) -> float:
    """Sentence BLEU in [0, 1] (:func:`assay.stats.bleu.sentence_bleu`, floor smoothing) on
    lower-cased word and punctuation tokens.

    >>> round(bleu("the cat sat on the mat", "the cat sat on the mat"), 6)
    1.0
    """
    hyp = _BLEU_TOKENS.findall(prediction.lower())
    ref = _BLEU_TOKENS.findall(reference.lower())
    from assay.stats.bleu import sentence_bleu  # numpy: loaded when BLEU is asked for

    return float(sentence_bleu(hyp, [ref]).score)


METRICS: dict[str, tuple[Callable[[str, str], float], str]] = {
    "exact_match": (exact_match, "binary"),
    "token_f1": (token_f1, "range:0,1"),
    "rouge_l": (rouge_l, "range:0,1"),
    "bleu": (bleu, "range:0,1"),
}
"""metric -> (function(prediction, reference), scale)."""

METRIC_VERSION = "assay-metric-1"
"""Enters the judgment keys and ``metric_version``: bump it when a metric's definition changes."""


class MetricSettings(JudgeSettings):
    """The ``kind: metric`` section of a config."""

    kind: Literal["metric"] = "metric"
    metrics: list[MetricName] = Field(default_factory=lambda: ["exact_match", "token_f1"], min_length=1)
    """The metrics computed for each answer."""
    reference: str = "inputs"
    """``inputs``: the references read from the inputs; else the arm whose answers are the references."""
    arms: list[str] | None = None
    """The arms scored; None for every arm but the reference arm."""


@dataclass(frozen=True)
class MetricJudge:
    """Scores each answer against its reference with offline metrics; no model involved.

    Examples
    --------
    >>> from assay.judge.judges._protocol import Answer, JudgeContext, JudgeInputs
    >>> judge = MetricJudge.from_config(MetricSettings(metrics=["token_f1"], reference="gold"),
    ...                                 JudgeContext(model="metric"))
    >>> inputs = JudgeInputs(answers={"gold": {"q": Answer("q", "Q?", "a cat on a mat", "gold")},
    ...                               "rag": {"q": Answer("q", "Q?", "the cat sat on the mat", "rag")}})
    >>> [request] = judge.requests(inputs)
    >>> row = judge.rows(request, judge.answer(request))[0]
    >>> row["arm"], row["judge"], row["criterion"], round(row["score"], 4)
    ('rag', 'token_f1', 'token_f1', 0.8571)
    """

    settings: MetricSettings
    context: JudgeContext

    Settings = MetricSettings

    @classmethod
    def from_config(cls, settings: MetricSettings, context: JudgeContext) -> MetricJudge:
        return cls(settings=settings, context=context)

    @property
    def name(self) -> str:
        return judge_name("metric", self.settings.label)

    def scales(self) -> dict[str, Scale]:
        return {m: Scale.parse(METRICS[m][1]) for m in self.settings.metrics}

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        s = self.settings
        digest = settings_hash(s, self.context)
        arms = s.arms if s.arms is not None else [a for a in inputs.arms if a != s.reference]
        out = []
        for arm in arms:
            for answer in inputs.answers.get(arm, {}).values():
                if s.question_sets is not None and answer.task not in s.question_sets:
                    continue
                reference = reference_answer(inputs, s.reference, answer)
                if reference is None:
                    continue
                for metric in s.metrics:
                    payload = json.dumps({"prediction": answer.text, "reference": reference.text})
                    key = judgment_key(
                        digest,
                        item_key(answer, answer.text, reference.text),
                        (arm,),
                        metric,
                        1,
                        judge=metric,
                        prompt_hash=METRIC_VERSION,
                    )
                    meta = base_meta(answer, judge=metric, run=1)
                    meta["criterion"] = metric
                    out.append(
                        ChatRequest(
                            key=key,
                            messages=(("system", f"metric:{metric}"), ("user", payload)),
                            response_model=MetricVerdict,
                            model=metric,
                            prompt_hash=METRIC_VERSION,
                            meta=meta,
                            shown=shown_texts(answer.question, [answer], reference.text),
                        )
                    )
        return out

    def answer(self, request: ChatRequest) -> Reply:
        """Compute the metric a request names on the texts it carries."""
        metric = request.messages[0][1].removeprefix("metric:")
        texts = json.loads(request.messages[1][1])
        score = METRICS[metric][0](texts["prediction"], texts["reference"])
        return Reply(
            key=request.key,
            verdict=MetricVerdict(score=score),
            text=None,
            model=metric,
            evaluated_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        )

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        score = None if reply.verdict is None else float(reply.verdict.score)
        return [reply_row(request.meta, reply, score=score, reasoning=None, prompt_hash=request.prompt_hash)]
