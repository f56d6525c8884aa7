# ruff: noqa: E501 (the pasted output lines)
"""The oracle of test_alpaca_eval_lc.py: AlpacaEval's own ``glm_winrate`` on the fixture.

Run once, outside the test suite, in a virtual environment with AlpacaEval installed
(``pip install alpaca-eval``; 0.6.6 was used, with scikit-learn 1.9.1 and numpy 2):

    python tests/data/importers/alpaca_eval_lc_oracle.py

AlpacaEval reads the instruction difficulty from a file on the Hugging Face hub
(``df_gamed.csv``); no network is used here: its download is replaced by the fixture's
``instruction_difficulty.csv`` in that file's layout. The model is AlpacaEval's
``length_controlled_noreg`` (``length_controlled_v1`` less the gamed-baseline rows, which
``df_gamed.csv`` alone provides). It is run twice: with AlpacaEval's settings as they are
(liblinear stops at tolerance 1e-4), and with the solver's tolerance tightened to 1e-10 (a
``kwargs`` entry of ``glm_info``, which AlpacaEval passes to scikit-learn), which finds the
exact optimum of the same penalised likelihood. The printed figures are pasted into the test.

Output of the run (2026-12-02):

    default tolerance  NullModel: length_controlled_winrate 86.1628903672979, lc_standard_error 1.9907001520347134, win_rate 81.72114937250001
    default tolerance  gpt-3.5-turbo-0301: length_controlled_winrate 3.8017537748311967, lc_standard_error 1.4825697736921017, win_rate 3.615357966
    tolerance 1e-10  NullModel: length_controlled_winrate 86.18932023184406, lc_standard_error 1.9897451909993333, win_rate 81.72114937250001
    tolerance 1e-10  gpt-3.5-turbo-0301: length_controlled_winrate 3.6759177379291725, lc_standard_error 1.4761534560388816, win_rate 3.615357966
"""

import json
import tempfile
from pathlib import Path
from unittest import mock

FIXTURE = Path(__file__).parents[2] / "fixtures" / "alpaca_eval"


def main() -> None:
    """Print AlpacaEval's figures (needs alpaca-eval installed; imported here, not at the top,
    so that the test suite's collection does not need it)."""
    import pandas as pd
    from alpaca_eval.metrics import glm_winrate

    difficulty = pd.read_csv(FIXTURE / "instruction_difficulty.csv", index_col=0).squeeze()
    runs = [(label, kwargs, model)
            for label, kwargs in (("default tolerance", {"n_splits": 5}),
                                  ("tolerance 1e-10", {"n_splits": 5, "tol": 1e-10,
                                                       "max_iter": 100_000}))
            for model in ("NullModel", "gpt-3.5-turbo-0301")]
    with tempfile.TemporaryDirectory() as tmp:
        gamed = Path(tmp) / "df_gamed.csv"
        pd.DataFrame({"index": difficulty.index, "instruction_difficulty": difficulty.to_numpy(),
                      "model": "none"}).to_csv(gamed, index=False)
        for label, kwargs, model in runs:
            file = FIXTURE / "results" / model / "weighted_alpaca_eval_gpt4_turbo" / "annotations.json"
            annotations = json.loads(file.read_text())
            with mock.patch.object(glm_winrate, "hf_hub_download", lambda **_: str(gamed)):
                m = glm_winrate.get_length_controlled_winrate(
                    annotations, save_weights_dir=None,
                    glm_info={**glm_winrate.GLM_INFO["length_controlled_noreg"], "kwargs": kwargs})
            print(f"{label}  {model}: length_controlled_winrate {float(m['length_controlled_winrate'])!r}, "
                  f"lc_standard_error {float(m['lc_standard_error'])!r}, win_rate {float(m['win_rate'])!r}")


if __name__ == "__main__":
    main()
