"""assay.pipeline: the whole evaluation around the judges.

What ``assay run`` chains and what each of its commands does on its own:

- :mod:`assay.pipeline.generate`: datapoints from a table or a teacher model, and the
  systems' answers (``assay datapoints``, ``assay generate``);
- :mod:`assay.pipeline.native_scores`: each answer's benchmark-native score against its
  reference (``assay native-scores``);
- :mod:`assay.pipeline.baselines` and :mod:`assay.pipeline.geval`: BERTScore and G-Eval
  beside the judges (``assay baselines``);
- :mod:`assay.pipeline.describe`: the plan before money, for every phase (``assay describe``).

It builds on the judges (:mod:`assay.judge`), the engine they all call (:mod:`assay.llm`)
and the config readers (:mod:`assay.config`); nothing below it imports it.
"""
