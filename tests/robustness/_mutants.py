"""Mutated input files for every importer and every config reader, made deterministically.

A *seed* is a small valid input (the importers' fixtures cut to a few records, the bundled
example config) and the command that reads it; a *mutant* is the seed with its target file
replaced by a damaged copy: a byte flipped, the file cut, a value nested 5,000 deep, a huge
number, a value of the wrong type, another encoding, a NUL, a lone surrogate... Each
mutant is named ``SEED/MUTATION-N`` and is the same on every machine for the same seed of
the random generator (:func:`mutants`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "run"


@dataclass(frozen=True)
class Seed:
    """A valid input: its files (relative path -> bytes), the one to damage, the command."""

    name: str
    files: dict[str, bytes]
    target: str
    argv: Callable[[Path], list[str]]
    """The ``assay`` arguments reading the files written under the given folder."""
    kind: str
    """How the target is written: json, jsonl, csv, yaml or zip."""
    slow: bool = False
    """Whether its command is slow to start (inspect-ai's import): run with the slow tests."""
    extra: dict[str, str] = field(default_factory=dict)


def _lines(path: Path, n: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


def _jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _import(fmt: str, *names: str) -> Callable[[Path], list[str]]:
    return lambda root: ["import", fmt, *(str(root / n) for n in names), "-o",
                         str(root / "out" / "t.jsonl")]


def seeds() -> list[Seed]:
    """Every importer's input and every config's, each small and valid."""
    table_rows = [{"item": f"q{i}", "cluster": "d1", "arm": arm, "run": 1, "score": (i + j) % 2,
                   "judge": "j", "attributes": json.dumps({"topic": "x"})}
                  for i in range(3) for j, arm in enumerate("ab")]
    cols = list(table_rows[0])
    csv_text = (",".join(cols) + "\n" + "".join(
        ",".join('"' + r[c].replace('"', '""') + '"' if c == "attributes" else str(r[c])
                 for c in cols) + "\n"
        for r in table_rows)).encode()
    results = [{"benchmark_id": arm, "quiz_id": "quiz1", "question_id": f"q{i}", "run_number": 1,
                "metrics": [{"metric_name": "clarity", "metric_version": "v1", "score": 50 + i,
                             "evaluator_model": "gpt", "evaluated_at": "2026-01-01T00:00:00Z",
                             "raw_response": "fine"}]} for i in range(3) for arm in ("a", "b")]
    alpaca = [{"instruction": f"Say {i}", "output_1": "x", "generator_1": "base",
               "output_2": "y", "generator_2": "model", "annotator": "gpt4",
               "preference": 1.0 + (i % 2), "dataset": "helpful"} for i in range(4)]
    bench = (b"cluster,item,arm,run,correct\nd1,q1,short,1,1\nd1,q1,short,2,0\n"
             b"d2,q2,short,1,1\nd2,q2,short,2,1\nd1,q1,long,1,0\nd1,q1,long,2,1\n"
             b"d2,q2,long,1,1\nd2,q2,long,2,0\n")
    promptfoo = json.loads((FIXTURES / "promptfoo" / "results.json").read_text())
    promptfoo["results"]["results"] = promptfoo["results"]["results"][:3]
    lm_eval = next((FIXTURES / "lm_eval" / "EleutherAI__pythia-160m").glob("samples_arc*"))
    judgebench = next((FIXTURES / "judgebench" / "generated").glob("*.jsonl"))
    coeval = FIXTURES / "coeval" / "run-v1"
    coeval_files = {str(p.relative_to(coeval.parent)): p.read_bytes()
                    for p in sorted(coeval.rglob("*")) if p.is_file()}
    run_folder = {
        "run/datapoints.jsonl": _jsonl([{"id": f"d{i}", "task": "qa", "prompt": f"Q{i}?",
                                         "attributes": {"topic": "x"}} for i in range(3)]),
        "run/responses.jsonl": _jsonl([{"id": f"r{i}{a}", "datapoint_id": f"d{i}", "arm": a,
                                        "text": "answer"} for i in range(3) for a in "ab"]),
        "run/evaluations.jsonl": _jsonl([{"id": f"e{i}{a}", "response_id": f"r{i}{a}",
                                          "judge": "j", "scores": {"quality": 3 + i % 2}}
                                         for i in range(3) for a in "ab"]),
        "run/criteria.json": json.dumps({"criteria": {"quality": {"scale": "range:1,5"}},
                                         "judges": {"j": ["quality"]}}).encode(),
    }
    answers = {f"answers/{m}/health_answers.json": json.dumps(
        [{"question_id": f"q{i}", "question": f"Question {i}?", "answer": f"{m} {i}"}
         for i in range(2)]).encode() for m in ("short", "long")}
    judge_yaml = (b"version: 1\ninputs:\n  input_dir: answers\n  methods: [short, long]\n"
                  b"  question_sets: [health]\nllm:\n  model: judge-model\n"
                  b"  base_url: http://127.0.0.1:9/v1\n  api_key_env: null\n"
                  b"  prices: {judge-model: {input: 2.5, output: 10.0}}\njudges:\n"
                  b"  - kind: pairwise\n    base: short\n    others: [long]\n    trials: 2\n"
                  b"    criteria: [relevance, diversity]\n")
    example = (EXAMPLE / "eval.yaml").read_bytes().replace(
        b"${OPENAI_BASE_URL:-https://api.openai.com/v1}", b"http://127.0.0.1:9/v1")
    items = (EXAMPLE / "items.csv").read_bytes()
    qed_settings = (b"base:\n  name: vector_rag\n  answer_base_path: input/vector_rag\nothers:\n"
                    b"  - name: graph_rag\n    answer_base_path: input/graph_rag\n"
                    b"question_sets: [local]\ncriteria:\n  - name: comprehensiveness\n"
                    b"    description: How much detail does the answer provide?\ntrials: 2\n"
                    b"llm_config:\n  model: gpt-4.1\n  llm_provider: openai.chat\n"
                    b"  init_args: {api_base: \"http://127.0.0.1:9/v1\"}\n")
    qed_answers = {f"input/{m}/local.json": json.dumps(
        [{"question_id": f"l-{i}", "question_text": f"Q{i}?", "answer": f"{m} {i}"}
         for i in range(2)]).encode() for m in ("vector_rag", "graph_rag")}
    single = FIXTURES / "mt_bench" / "gpt-4_single.jsonl"
    return [
        Seed("table-csv", {"t.csv": csv_text}, "t.csv", _import("table", "t.csv"), "csv"),
        Seed("table-tsv", {"t.tsv": csv_text.replace(b",", b"\t")}, "t.tsv",
             _import("table", "t.tsv"), "csv"),
        Seed("table-jsonl", {"t.jsonl": _jsonl(table_rows)}, "t.jsonl",
             _import("table", "t.jsonl"), "jsonl"),
        Seed("table-json", {"t.json": json.dumps(table_rows, indent=1).encode()}, "t.json",
             _import("table", "t.json"), "json"),
        Seed("table-sidecar", {"t.csv": csv_text, "t.csv.assay.json": json.dumps(
            {"scales": {"score": "binary"}}).encode()}, "t.csv.assay.json",
             _import("table", "t.csv"), "json"),
        Seed("run-folder", run_folder, "run/evaluations.jsonl", _import("table", "run"),
             "jsonl"),
        Seed("run-folder-criteria", run_folder, "run/criteria.json", _import("table", "run"),
             "json"),
        Seed("results-json", {"results.json": json.dumps(results, indent=1).encode()},
             "results.json", _import("results-json", "results.json"), "json"),
        Seed("alpaca-eval", {"annotations.json": json.dumps(alpaca, indent=1).encode()},
             "annotations.json", _import("alpaca-eval", "annotations.json"), "json"),
        Seed("bench", {"bench.csv": bench}, "bench.csv", _import("bench", "bench.csv"), "csv"),
        Seed("arena-hard", {"m.jsonl": _lines(FIXTURES / "arena_hard" / "gpt-4-0613.jsonl", 4)},
             "m.jsonl", _import("arena-hard", "m.jsonl"), "jsonl"),
        Seed("qed-pairwise", {"win_rates.csv": _lines(FIXTURES / "qed" / "win_rates.csv", 6)},
             "win_rates.csv", _import("qed", "win_rates.csv"), "csv"),
        Seed("qed-reference", {"reference_scores-graph_rag.csv": _lines(
            FIXTURES / "qed" / "reference_scores-graph_rag.csv", 6)},
             "reference_scores-graph_rag.csv",
             _import("qed", "reference_scores-graph_rag.csv"), "csv"),
        Seed("lm-eval", {lm_eval.name: _lines(lm_eval, 3)}, lm_eval.name,
             _import("lm-eval", lm_eval.name), "jsonl"),
        Seed("judgebench", {judgebench.name: _lines(judgebench, 3)}, judgebench.name,
             _import("judgebench", judgebench.name), "jsonl"),
        Seed("mt-bench-single", {"gpt-4_single.jsonl": _lines(single, 3)},
             "gpt-4_single.jsonl", _import("mt-bench", "gpt-4_single.jsonl"), "jsonl"),
        Seed("mt-bench-pair", {"gpt-4_pair.jsonl": _lines(
            FIXTURES / "mt_bench" / "gpt-4_pair.jsonl", 3)}, "gpt-4_pair.jsonl",
             _import("mt-bench", "gpt-4_pair.jsonl"), "jsonl"),
        Seed("mt-bench-questions", {"gpt-4_single.jsonl": _lines(single, 3), "question.jsonl":
                                    _lines(FIXTURES / "mt_bench" / "question.jsonl", 3)},
             "question.jsonl", _import("mt-bench", "gpt-4_single.jsonl", "question.jsonl"),
             "jsonl"),
        Seed("promptfoo", {"results.json": json.dumps(promptfoo, indent=1).encode()},
             "results.json", _import("promptfoo", "results.json"), "json"),
        Seed("coeval-evaluations", coeval_files,
             "run-v1/phase5_evaluations/qa.teacher-x.judge-llm.evaluations.jsonl",
             _import("coeval", "run-v1"), "jsonl"),
        Seed("coeval-rubric", coeval_files, "run-v1/phase2_rubric/qa.rubric.json",
             _import("coeval", "run-v1"), "json"),
        Seed("inspect", {"toy.eval": (FIXTURES / "inspect" / "toy.eval").read_bytes()},
             "toy.eval", _import("inspect", "toy.eval"), "zip", slow=True),
        Seed("judge-config", {**answers, "judge.yaml": judge_yaml}, "judge.yaml",
             lambda root: ["judge", str(root / "judge.yaml"), "--out", str(root / "out"),
                           "--dry-run"], "yaml"),
        Seed("describe-config", {**answers, "judge.yaml": judge_yaml}, "judge.yaml",
             lambda root: ["describe", str(root / "judge.yaml")], "yaml"),
        Seed("run-config", {"eval.yaml": example, "items.csv": items}, "eval.yaml",
             lambda root: ["run", str(root / "eval.yaml"), "--out", str(root / "out"),
                           "--steps", "datapoints"], "yaml"),
        Seed("generate-config", {"eval.yaml": example, "items.csv": items}, "eval.yaml",
             lambda root: ["generate", str(root / "eval.yaml"), "--out", str(root / "out"),
                           "--dry-run"], "yaml"),
        Seed("datapoints-source", {"items.csv": items}, "items.csv",
             lambda root: ["datapoints", str(root / "items.csv"), "-o", str(root / "out"),
                           "--map", "qid=id,question=prompt,answer=reference",
                           "--attributes", "difficulty,domain", "--sample-size", "4"], "csv"),
        Seed("qed-config", {**qed_answers, "settings.yaml": qed_settings}, "settings.yaml",
             lambda root: ["import", "qed-config", str(root / "settings.yaml"), "-o",
                           str(root / "out" / "assay.yaml")], "yaml"),
    ]


# -- mutations: each takes the seed's bytes and a generator, returns the damaged bytes

_NUMBER = re.compile(rb"(?<=[:\[, ])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?=[,\]} \n\r])")
_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
_YAML_VALUE = re.compile(rb"(?<=: )[^\n{\[#]+(?=\n)")


def _pick(rng: random.Random, matches: list[re.Match[bytes]]) -> re.Match[bytes] | None:
    return rng.choice(matches) if matches else None


def _replace(data: bytes, match: re.Match[bytes] | None, new: bytes) -> bytes:
    if match is None:
        return data + new
    return data[:match.start()] + new + data[match.end():]


def _value_sites(data: bytes, kind: str) -> list[re.Match[bytes]]:
    """Where a value can be replaced: a number or string (JSON), a mapping value (YAML), a
    cell (CSV: between separators of a data line)."""
    if kind in ("json", "jsonl"):
        return list(_NUMBER.finditer(data)) + list(_STRING.finditer(data))
    if kind == "yaml":
        return list(_YAML_VALUE.finditer(data))
    if kind == "csv":
        first = data.find(b"\n") + 1
        return [m for m in re.finditer(rb"[^,\t\n]+", data) if m.start() >= first]
    return []


def flip(data: bytes, rng: random.Random, kind: str) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]


def flips(data: bytes, rng: random.Random, kind: str) -> bytes:
    for _ in range(rng.randint(2, 8)):
        data = flip(data, rng, kind)
    return data


def cut(data: bytes, rng: random.Random, kind: str) -> bytes:
    return data[:rng.randrange(1, len(data))]


def cut_at_line(data: bytes, rng: random.Random, kind: str) -> bytes:
    ends = [m.end() for m in re.finditer(rb"\n", data)] or [len(data)]
    return data[:rng.choice(ends)] if rng.random() < 0.5 else data[:rng.choice(ends) - 1]


def nested(data: bytes, rng: random.Random, kind: str) -> bytes:
    depth = rng.choice([70, 1000, 5000])
    deep = b"[" * depth + b"1" + b"]" * depth
    if kind == "yaml":
        return _replace(data, _pick(rng, _value_sites(data, kind)), deep)
    if kind == "csv":
        return _replace(data, _pick(rng, _value_sites(data, kind)), b'"' + deep + b'"')
    if rng.random() < 0.3:  # the whole file, padded past the containers' limit
        return deep + b" " * (depth * 12)
    padding = b" " * (depth * 12)  # enough text that the nesting, not the count, is refused
    return _replace(data, _pick(rng, _value_sites(data, kind)), deep + padding)


def huge_number(data: bytes, rng: random.Random, kind: str) -> bytes:
    big = rng.choice([b"9" * 5000, b"1e999", b"-1e400", b"1" + b"0" * 30, b"NaN", b"-Infinity",
                      b"0." + b"0" * 400 + b"1", b"12345678901234567890123"])
    sites = [m for m in _value_sites(data, kind) if not m.group().startswith(b'"')] or \
        _value_sites(data, kind)
    return _replace(data, _pick(rng, sites), big)


def wrong_type(data: bytes, rng: random.Random, kind: str) -> bytes:
    if kind == "yaml":
        new = rng.choice([b"[]", b"{}", b"[1, 2]", b"{a: 1}", b"null", b"true", b"-7", b"''",
                          b"!!binary aGVsbG8=", b"2026-01-01", b"&a [*a]", b"~", b"0x1F"])
    elif kind == "csv":
        new = rng.choice([b"", b"-1", b"abc", b"1e999", b"[]", b'"{""a"": 1}"', b" ", b"NaN",
                          b"=cmd|' /C calc'!A0", b"true"])
    else:
        new = rng.choice([b"[]", b"{}", b"null", b"true", b'""', b'"x"', b"-1", b"[[]]",
                          b'{"": null}', b"1.5", b'" "'])
    return _replace(data, _pick(rng, _value_sites(data, kind)), new)


def drop_key(data: bytes, rng: random.Random, kind: str) -> bytes:
    if kind in ("json", "jsonl"):
        keys = list(re.finditer(rb'"[^"\\\n]*"\s*:\s*(?:"(?:[^"\\\n]|\\.)*"|-?[\d.eE+-]+|true|'
                                rb'false|null)\s*,?', data))
        return _replace(data, _pick(rng, keys), b"")
    lines = data.splitlines(keepends=True)
    if len(lines) > 1:
        i = rng.randrange(len(lines))
        return b"".join(lines[:i] + lines[i + 1:])
    return b""


def encoding(data: bytes, rng: random.Random, kind: str) -> bytes:
    text = data.decode("utf-8", "replace")
    choice = rng.randrange(6)
    if choice == 0:
        return text.encode("utf-16")
    if choice == 1:
        return text.encode("utf-16-le")
    if choice == 2:
        return text.encode("utf-32")
    if choice == 3:
        return (text + "é").encode("latin-1", "replace")
    if choice == 4:
        return b"\xef\xbb\xbf" + data
    at = rng.randrange(len(data))
    return data[:at] + rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80", b"\xf4\x90"]) \
        + data[at:]


def nul(data: bytes, rng: random.Random, kind: str) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" * rng.choice([1, 1, 3]) + data[at:]


def surrogate(data: bytes, rng: random.Random, kind: str) -> bytes:
    escape = rng.choice([b"\\ud800", b"\\udfff", b"\\uDBFF", b"\\ud83d"])
    if kind in ("json", "jsonl", "yaml"):
        strings = list(_STRING.finditer(data))
        match = _pick(rng, strings)
        if match is None:
            return _replace(data, _pick(rng, _value_sites(data, kind)), b'"' + escape + b'"')
        at = rng.randrange(match.start() + 1, match.end())
        return data[:at] + escape + data[at:]
    return _replace(data, _pick(rng, _value_sites(data, kind)), b"\xed\xa0\x80")


def controls(data: bytes, rng: random.Random, kind: str) -> bytes:
    junk = rng.choice([b"\x1b[31m", b"\x07", b"\\u001b[2J", b"\r", b"\x0b", b"\\u2028",
                       b"\xe2\x80\xa8", b"\x7f"])
    sites = _value_sites(data, kind)
    match = _pick(rng, sites)
    if match is None:
        return data + junk
    at = rng.randrange(match.start(), match.end() + 1)
    return data[:at] + junk + data[at:]


def empty(data: bytes, rng: random.Random, kind: str) -> bytes:
    return rng.choice([b"", b"\n", b"   \n\t\n", b"\xef\xbb\xbf", b"null", b"[]", b"{}", b"0",
                       b"---\n", b"...\n"])


def duplicate(data: bytes, rng: random.Random, kind: str) -> bytes:
    lines = data.splitlines(keepends=True)
    if len(lines) < 2:
        return data + data
    i = rng.randrange(1, len(lines))
    return b"".join(lines[:i + 1] + [lines[i]] * rng.randint(1, 3) + lines[i + 1:])


def long_value(data: bytes, rng: random.Random, kind: str) -> bytes:
    long = rng.choice([b"x" * 200_000, "é".encode() * 50_000, b"a,b" * 20_000])
    if kind in ("json", "jsonl"):
        long = long.replace(b",", b"")
        long = b'"' + long + b'"'
    return _replace(data, _pick(rng, _value_sites(data, kind)), long)


def crlf(data: bytes, rng: random.Random, kind: str) -> bytes:
    return data.replace(b"\n", rng.choice([b"\r\n", b"\r"]))


MUTATIONS: dict[str, Callable[[bytes, random.Random, str], bytes]] = {
    "flip": flip, "flips": flips, "cut": cut, "cut_at_line": cut_at_line, "nested": nested,
    "huge_number": huge_number, "wrong_type": wrong_type, "drop_key": drop_key,
    "encoding": encoding, "nul": nul, "surrogate": surrogate, "controls": controls,
    "empty": empty, "duplicate": duplicate, "long_value": long_value, "crlf": crlf,
}
"""Each mutation's name and function."""


@dataclass(frozen=True)
class Mutant:
    """One damaged input: its seed, the mutation and the bytes of the damaged target."""

    seed: Seed
    name: str
    mutation: str
    data: bytes

    def write(self, root: Path) -> Path:
        """Write the seed's files with the damaged target under ``root``; the target's path."""
        for relative, content in self.seed.files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.data if relative == self.seed.target else content)
        return root / self.seed.target


def mutants(per_seed: int, *, seed: int = 22, slow: bool = True) -> Iterator[Mutant]:
    """``per_seed`` mutants of every seed (slow seeds only when ``slow``), the mutations in
    turn, from a generator seeded with ``seed``: the same list on every run."""
    names = list(MUTATIONS)
    for s in seeds():
        if s.slow and not slow:
            continue
        rng = random.Random(f"{seed}/{s.name}")
        original = s.files[s.target]
        for i in range(per_seed):
            mutation = names[i % len(names)]
            yield Mutant(s, f"{s.name}/{mutation}-{i}", mutation,
                         MUTATIONS[mutation](original, rng, s.kind))


@dataclass(frozen=True)
class Taken:
    """How ``assay`` took a mutant: ``read`` (exit 0), ``refused`` (exit 2, one ``error:`` line
    naming one of its files; configs excepted), ``refused_badly`` (exit 2 otherwise) or
    ``internal`` (any other exit, a traceback, an exception escaping ``main``)."""

    kind: str
    why: str
    """What is wrong with it, for ``refused_badly`` and ``internal``; empty otherwise."""
    output: str
    """What the command printed, stdout then stderr."""


def take(mutant: Mutant, folder: Path) -> Taken:
    """Write ``mutant`` into ``folder`` and run its command through ``assay.cli.main`` in this
    process, as the ``assay`` command's entry runs it; classify the outcome (:class:`Taken`)."""
    import contextlib
    import io

    from assay.cli import main

    mutant.write(folder)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(mutant.seed.argv(folder))
            code: int | str | None = 0
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:  # what escapes main is a finding too
            code = f"{type(exc).__name__} escaped main: {exc}"
    output = out.getvalue() + err.getvalue()
    if "Traceback" in output or "internal error" in output or code not in (0, 2):
        return Taken("internal", f"exit {code}: {output.strip()[-300:]}", output)
    if code == 2:
        errors = [line for line in output.splitlines() if line.startswith("error: ")]
        if len(errors) != 1:
            return Taken("refused_badly", f"{len(errors)} error lines: {output.strip()[-300:]}", output)
        if str(folder) not in output and mutant.seed.kind != "yaml":
            return Taken("refused_badly", f"the error names no file: {errors[0][:300]}", output)
        return Taken("refused", "", output)
    return Taken("read", "", output)
