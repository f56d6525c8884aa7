"""assay.config: reading an evaluation's configuration, below the judges and the pipeline.

- :mod:`assay.config.steps`: the sections of a whole-evaluation config around the judges
  (datapoints, systems, the steps after judging); the judges' own sections and the config
  as a whole (:class:`~assay.judge.config.AssayConfig`) are in :mod:`assay.judge.config`,
  because they know the judge kinds.
- :mod:`assay.config.dotenv`: ``.env`` files with the endpoints' keys.
- ``read_config_text`` and ``safe_yaml``: a YAML file read within bounds (size, encoding,
  nesting, aliases), for every config assay reads.

It imports only the engine's endpoint types (:mod:`assay.llm`) and the base modules, so the
judges (:mod:`assay.judge`) and the whole-evaluation pipeline (:mod:`assay.pipeline`) both
build on it.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._file": ["read_config_text", "safe_yaml"],
    ".dotenv": ["DOTENV_NAME", "dotenv_paths", "load_dotenv", "parse_dotenv"],
    ".steps": ["Endpoint", "ExportStep", "FileDatapoints", "NativeScoresStep", "ReportStep",
               "SystemConfig", "TableDatapoints", "TeacherDatapoints", "TeacherTask"],
})
