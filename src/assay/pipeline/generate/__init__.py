"""The whole evaluation before judging: datapoints from a table or a teacher model, and the
answers of the systems under test (``assay generate``), through the engine (:mod:`assay.llm`).
Their config models are :mod:`assay.config.steps`."""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    ".answers": ["ANSWERS_FILE", "GENERATION_FOLDER", "Generation", "generate_answers",
                 "generated_inputs", "system_credentials", "system_problems"],
    ".datapoints": ["BuiltDatapoints", "build_datapoints", "read_datapoints"],
    ".teacher": ["TEACHER_FOLDER", "TeacherOutcome", "teacher_datapoints"],
})
