"""Coverage of item attributes over the declared strata: ACR, RAR and surface bias.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._report": [
        "CoverageReport", "coverage_ratio", "coverage_report", "read_datapoint_field", "read_prompts",
    ],
    "._interaction": ["InteractionMatrix", "interaction_matrix"],
    "._space": ["AttributeSpace", "read_attribute_space"],
    "._teachers": ["TeacherReport", "teacher_report"],
    "._sampling": ["SamplingAblation", "sampling_ablation"],
})
