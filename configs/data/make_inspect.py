"""Writes genuine Inspect AI eval logs for configs/llm_bench.yaml and the inspect reader's tests, offline.

Each model is Inspect's own mock provider (``mockllm/<name>``, no network) answering through a seeded
callable, so the logs are written by ``inspect_ai.eval`` itself: the header with Inspect's aggregated
results, one sample record per question and epoch, the reductions. Needs ``pip install inspect-ai``
(test-only; sigreport reads the logs with zipfile + json). Run from the repository:

    python configs/data/make_inspect.py

- configs/data/inspect/: task ``reading``, 40 questions (4-way multiple choice) over 10 passages of 4
  (``metadata.passage``: a cluster), 3 epochs, three models of rising ability; a question's passage makes it
  easier or harder for every model (correlated items, as in reading-comprehension benchmarks).
- tests/data/files/inspect/generated/: task ``mixed``, 6 questions, 2 epochs, one model, two scorers (``match``
  and a dict-valued one), question 6 raising an error on every epoch (``fail_on_error=False``: the log
  keeps the errored samples without scores); written once as .eval and once as .json.
"""

from __future__ import annotations

import hashlib
import math
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _uniform(*key: object) -> float:
    """A reproducible uniform number in [0, 1) from its key (no shared random state: Inspect may run samples
    in any order)."""
    return int(hashlib.sha256(repr(key).encode()).hexdigest()[:12], 16) / 16**12


def reading(folder: Path) -> None:
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    letters = "ABCD"
    samples = []
    for q in range(40):
        passage = q // 4 + 1
        samples.append(Sample(id=f"q{q + 1:02d}", input=f"Passage {passage}, question {q + 1}: which option is right? "
                              "Answer with one letter: A, B, C or D.", target=letters[(3 * q + 1) % 4],
                              metadata={"passage": f"passage{passage:02d}"}))
    target = {s.input: s.target for s in samples}
    passage_effect = {p: 2.4 * (_uniform("passage", p) - 0.5) for p in range(1, 11)}
    seen: dict[tuple[str, str], int] = {}

    for name, ability in (("mockllm/small", -0.2), ("mockllm/medium", 0.5), ("mockllm/large", 1.1)):
        def answer(messages, tools, tool_choice, config, name=name, ability=ability):
            text = messages[-1].text
            q = int(text.split("question ")[1].split(":")[0])
            passage = (q - 1) // 4 + 1
            k = seen[(name, text)] = seen.get((name, text), 0) + 1  # the k-th answer to this question
            logit = ability + passage_effect[passage] + 0.8 * (_uniform("item", q) - 0.5)
            right = _uniform(name, q, k) < 1 / (1 + math.exp(-logit))
            wrong = letters[(letters.index(target[text]) + 1 + int(3 * _uniform("wrong", name, q, k))) % 4]
            return ModelOutput.from_content(model=name.split("/")[1], content=target[text] if right else wrong,
                                            stop_reason="stop").model_copy(
                update={"usage": ModelUsage(input_tokens=20, output_tokens=1, total_tokens=21)})

        task = Task(name="reading", dataset=samples, solver=generate(), scorer=match())
        inspect_eval(task, model=get_model(name, custom_outputs=answer), epochs=3, log_dir=str(folder),
                     display="none", max_connections=1)


def mixed(folder: Path) -> None:
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, Target, match, mean, scorer
    from inspect_ai.solver import Generate, TaskState, generate, solver

    @scorer(metrics={"exact": [mean()], "length": [mean()]})
    def shape():
        async def score(state: TaskState, target: Target) -> Score:
            text = state.output.completion
            return Score(value={"exact": "C" if text == target.text else "I", "length": len(text)})
        return score

    @solver
    def fail_on_six():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            if state.sample_id == 6:
                raise RuntimeError("tool crashed on question 6")
            return await generate(state)
        return solve

    samples = [Sample(id=i, input=f"Say {'yes' if i % 2 else 'no'} ({i}).", target="yes" if i % 2 else "no")
               for i in range(1, 7)]
    calls: dict[str, int] = {}

    def answer(messages, tools, tool_choice, config):
        text = messages[-1].text
        k = calls[text] = calls.get(text, 0) + 1
        said = ("yes" if "yes" in text else "no") if _uniform("mixed", text, k) < 0.7 else "maybe"
        return ModelOutput.from_content(model="model", content=said, stop_reason="stop").model_copy(
            update={"usage": ModelUsage(input_tokens=8, output_tokens=1, total_tokens=9)})

    for log_format in ("eval", "json"):
        calls.clear()
        task = Task(name="mixed", dataset=samples, solver=[fail_on_six(), generate()], scorer=[match(), shape()])
        inspect_eval(task, model=get_model("mockllm/model", custom_outputs=answer), epochs=2, log_dir=str(folder),
                     display="none", max_connections=1, fail_on_error=False, log_format=log_format)


if __name__ == "__main__":
    targets = {"reading": (reading, HERE / "inspect"), "mixed": (mixed, ROOT / "tests" / "data" / "files" / "inspect"
                                                                 / "generated")}
    for key in sys.argv[1:] or list(targets):
        make, folder = targets[key]
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        make(folder)
