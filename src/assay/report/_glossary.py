"""The words a report uses: each term and abbreviation with a one-line meaning, and the
interval and test methods named in words.

One list serves every place a reader meets these words: the tooltip of an abbreviated table
header in the HTML pages, the glossary page of an HTML report, ``docs/glossary.md``
(:func:`glossary_markdown`; a test checks the committed file is current) and the method
names of the text and HTML reports (:func:`method_words`). The identifiers themselves
(``logit_cluster_robust_t``) stay in the JSON files, where programs read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["METHOD_WORDS", "TERMS", "Term", "abbreviation_of", "glossary_markdown",
           "method_words", "reader_label"]


@dataclass(frozen=True)
class Term:
    """One glossary entry: the word shown, its spelled-out name, what it means."""

    term: str
    meaning: str
    full: str = ""
    """The abbreviation spelled out; empty for a word that is not an abbreviation."""
    column: str = ""
    """The column or JSON key that holds it, when it has one."""


TERMS: tuple[Term, ...] = (
    # What is evaluated and how the data are laid out.
    Term("system", "The model, prompt or pipeline being evaluated: a row's arm.", column="arm"),
    Term("judge", "What scored an answer: an LLM judge, a metric or a person.", column="judge"),
    Term("criterion", "What a score measures (correct, helpfulness, clarity...).",
         column="criterion"),
    Term("item", "One question or prompt that every system answers.", column="item"),
    Term("question set", "A group of items reported apart: a task, a benchmark or a test set.",
         column="task"),
    Term("cluster", "Items that come together (the same document, topic or test set) and so are "
         "not independent; intervals treat clusters, not items, as the sampled units.",
         column="cluster"),
    Term("trial", "One repeated answer of a system to an item (a run); a pairwise judgment "
         "of two answers is also a trial.", column="run"),
    Term("opponent", "The other system of a pairwise comparison.", column="opponent"),
    # Intervals and tests.
    Term("CI", "The range of values the data support at the stated confidence level; "
         "every interval in assay respects the clusters.", full="confidence interval"),
    Term("SE", "The spread an estimate would have over repeated samples of clusters.",
         full="standard error"),
    Term("SD", "The spread of values around their mean.", full="standard deviation"),
    Term("p-value", "How often a difference at least this large would appear if there were "
         "none; shown as < 0.001 or to three significant digits."),
    Term("Holm", "Holm's step-down adjustment: p-values raised so that the chance of any "
         "false finding over the whole table stays at the stated level."),
    Term("CR2", "The cluster-robust variance with the Bell-McCaffrey small-sample "
         "correction, behind assay's t intervals.", full="bias-reduced cluster-robust variance"),
    Term("df", "The t distribution's degrees of freedom; with clusters, about their number "
         "minus one.", full="degrees of freedom"),
    Term("MDD", "The smallest difference the design would detect at the stated level and "
         "80% power.", full="minimum detectable difference"),
    Term("effective n", "The number of independent items the clustered items are worth "
         "(items divided by the design effect)."),
    Term("Tango", "Tango's score interval for a paired difference of proportions, used for "
         "non-inferiority at the item level."),
    # Accuracy and stability.
    Term("pass^k", "The chance that all k trials of an item are correct: reliability, not "
         "just accuracy."),
    Term("flip rate", "The share of items whose verdict changes from one trial to another."),
    Term("TARa", "The share of items whose k trials all give the same parsed answer.",
         full="total agreement rate of answers"),
    # Agreement between judges.
    Term("ICC(2,1)", "How closely judges' absolute scores agree (two-way random effects, "
         "one judge; 1 is perfect).", full="intraclass correlation coefficient"),
    Term("ICC", "How closely judges' absolute scores agree; 1 is perfect.",
         full="intraclass correlation coefficient"),
    Term("MAD", "The mean absolute difference between two judges' scores on the same answers.",
         full="mean absolute deviation"),
    Term("MAE", "The mean absolute difference between a judge's scores and the reference "
         "scores.", full="mean absolute error"),
    Term("Spearman rho", "How similarly two judges rank the same answers (-1 to 1)."),
    Term("Kendall tau-b", "How often two rankings order a pair the same way, ties allowed "
         "(-1 to 1)."),
    Term("Cohen kappa", "Agreement of two judges' verdicts beyond chance (1 perfect, 0 chance)."),
    Term("Fleiss kappa", "Agreement of three or more judges' verdicts beyond chance."),
    Term("alpha", "Krippendorff's alpha: agreement of any number of judges beyond chance, "
         "missing scores allowed."),
    Term("position bias", "A pairwise judge's preference for the answer shown first (or "
         "second), whatever it says."),
    # Coverage and the composite score.
    Term("ACR", "The share of the target attribute combinations the items cover.",
         full="attribute coverage ratio"),
    Term("RAR", "The share of rare attribute combinations the items cover.",
         full="rare-attribute recall"),
    Term("BLEU", "Word overlap between items, here a sign of surface bias (near-duplicate "
         "items).", full="bilingual evaluation understudy"),
    Term("Q", "The composite quality score: a system's criteria averaged (or weighted) into "
         "one number per item.", full="composite quality score"),
    Term("teacher", "The model that generated an item (wrote the question)."),
    Term("USD", "Cost in US dollars, as the judgments' usd column records it.",
         full="US dollars", column="usd"),
)

METHOD_WORDS: dict[str, str] = {
    "logit_cluster_robust_t": "cluster-robust t interval on the logit scale",
    "logit_cr2_t": "cluster-robust t interval (CR2) on the logit scale",
    "cluster_robust_t": "cluster-robust t interval",
    "cluster_t": "cluster-robust t",
    "studentised_cluster_bootstrap": "studentised cluster bootstrap",
    "bca_cluster_bootstrap": "bias-corrected cluster bootstrap",
    "percentile_bootstrap_over_run_means": "percentile bootstrap over the trial means",
    "korn_graubard_clopper_pearson": "Clopper-Pearson on the effective number of items",
    "korn_graubard_wilson": "Wilson score interval on the effective number of items",
    "korn_graubard_midp": "mid-p interval on the effective number of items",
    "korn_graubard_jeffreys": "Jeffreys interval on the effective number of items",
    "mover_korn_graubard_midp": ("MOVER from the two arms' intervals on the effective number "
                                 "of items (mid-p for a sparse arm)"),
    "beta_binomial_bayes": "beta-binomial Bayes (credible interval)",
    "cr2_bayes_hull": "the wider of the cluster-robust and Bayes intervals",
    "logit_cluster_robust_t_independent_df": ("cluster-robust t interval (CR2) on the logit "
                                              "scale, df of the independence working model"),
    "cluster_robust_t_independent_df": ("cluster-robust t interval (CR2), df of the "
                                        "independence working model"),
    "logit_cluster_run_t": ("cluster-robust t interval on the logit scale with the run "
                            "component added"),
    "cluster_run_t": "cluster-robust t interval with the run component added",
    "max_t_cluster_robust": "simultaneous cluster-robust t intervals (max-t)",
    "tango_items": "Tango's paired score interval over items",
    "wilcoxon_signed_rank": "Wilcoxon signed-rank test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "wilcox": "Wilcoxon signed-rank test",
    "holm": "Holm adjustment",
    "holm-per-group": "Holm adjustment within each group",
    "icc_a1_mcgraw_wong": "ICC(A,1) of McGraw and Wong",
    "mean_spearman": "mean Spearman rho",
    "mean_absolute_difference": "mean absolute difference",
    "identity_zero_variance": "no interval: every value is the same",
    "identity_constant_reference": "not calibrated: every reference score is the same",
    "undefined_no_cluster_variance": "no interval: the clusters do not vary",
    "too_few_clusters": "no interval: too few clusters",
    "descriptive": "no interval: descriptive report",
    "monte_carlo": "Monte Carlo",
    "exact": "exact",
    "bayes": "Bayes",
}
"""Method identifiers (as in the JSON files) -> the words a page shows."""


def method_words(identifier: str) -> str:
    """A method identifier in words; an unknown one with its underscores as spaces.

    >>> method_words("logit_cluster_robust_t")
    'cluster-robust t interval on the logit scale'
    >>> method_words("some_new_method")
    'some new method'
    """
    return METHOD_WORDS.get(identifier, identifier.replace("_", " "))


READER_LABELS: dict[str, str] = {
    "arm": "system", "arms": "systems", "arm 1": "system 1", "arm 2": "system 2",
    "task": "question set", "run": "trial", "runs": "trials", "failed runs": "failed trials",
    "wrong runs": "wrong trials", "run SD": "SD over trials", "usd": "USD",
    "usd per item": "USD per item", "within-item (runs)": "within items (trials)",
}
"""Table headers written with the data model's words -> the words readers use."""


def reader_label(label: str) -> str:
    """A header in the reader's words (``arm`` -> ``system``, ``task`` -> ``question set``).

    >>> reader_label("arm"), reader_label("task"), reader_label("accuracy")
    ('system', 'question set', 'accuracy')
    """
    return READER_LABELS.get(label, label)


_ABBREVIATED = {t.term: t for t in TERMS if t.full}
_PATTERN = re.compile("^(" + "|".join(re.escape(k) for k in sorted(_ABBREVIATED, key=len,
                                                                       reverse=True))
                      + r")(?=$|[\s(])")


def abbreviation_of(label: str) -> str | None:
    """The spelled-out name and meaning of the abbreviation a label starts with, if any.

    >>> abbreviation_of("MDD (design)").split(":")[0]
    'minimum detectable difference'
    >>> abbreviation_of("accuracy") is None
    True
    """
    found = _PATTERN.match(label)
    if found is None:
        return None
    term = _ABBREVIATED[found.group(1)]
    return f"{term.full}: {term.meaning}"


def glossary_markdown() -> str:
    """``docs/glossary.md``: every term with its spelled-out name and meaning."""
    lines = ["# Glossary", "",
             "The words assay's reports use, in the order a reader meets them. An abbreviated "
             "table header in an HTML page shows its line here as a tooltip; each HTML report "
             "has this list as its Glossary page. The JSON files keep the column names and "
             "method identifiers given in brackets.", "",
             "| term | in full | meaning |", "| --- | --- | --- |"]
    for t in TERMS:
        name = f"{t.term} (`{t.column}`)" if t.column else t.term
        lines.append(f"| {name} | {t.full} | {t.meaning} |")
    lines += ["", "## Methods", "",
              "How the pages name each interval and test method, and the identifier the JSON "
              "files carry.", "", "| identifier | shown as |", "| --- | --- |"]
    lines += [f"| `{k}` | {v} |" for k, v in METHOD_WORDS.items()]
    return "\n".join(lines) + "\n"
