"""bench/fidelity/fidelity.py --replay: the tables of docs/measurement.md come back from the raw
numbers committed beside them (bench/fidelity/results/), with the median's 95 % interval from
six rounds on. No torch, no FuseScope run: only the arithmetic of the tables."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "fidelity" / "results"


def replay(name: str) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "fidelity" / "fidelity.py"), "--replay",
                           str(RESULTS / name)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_ten_pairs_give_the_medians_interval():
    out = replay("2026-12-04-0319-small-mlp-compile-pairs.json")
    # docs/measurement.md, "The small MLP's compile time in ten alternating pairs"
    assert "| 1.012 (0.874–1.135) [0.947, 1.109] |" in out
    assert "median over 10 rounds (min–max) [95 % confidence interval" in out
    assert "Control," not in out  # that run had --no-control


def test_three_rounds_give_no_interval_and_the_controls_verdict():
    out = replay("2026-12-04-0304-control.json")
    assert ("| small_mlp.py (0.132 ms inductor) | 0.995 (0.868–1.011) | 1.056 (0.859–1.057) "
            "| 1.076 (0.933–1.168) |") in out
    assert "[" not in out.split("Ratios:")[0]  # under six rounds an interval would be a guess
    assert "differ by up to 63.2 %, NOT well inside the ±3 % target" in out
    assert "differ by up to 20.4 %, NOT well inside the ±5 % target" in out
    assert "torchscript row's eager" in out


def test_thirty_pairs_on_the_issues_model():
    out = replay("2026-12-04-0331-residual-mlp-pairs.json")
    # docs/measurement.md, "The issue's residual MLP in thirty alternating pairs"
    assert ("| 0.975 (0.836–1.268) [0.933, 1.026] | 0.999 (0.819–1.311) [0.957, 1.051] "
            "| 1.009 (0.851–1.364) [0.973, 1.070] |") in out


def test_twenty_default_pairs_on_the_transformer():
    out = replay("2026-12-04-0403-transformer-pairs-default.json")
    # docs/measurement.md, "The transformer in twenty pairs, FuseScope at its defaults"
    assert ("| 0.966 (0.654–1.340) [0.876, 1.083] | 0.961 (0.793–1.192) [0.889, 1.089] "
            "| 1.039 (0.823–1.331) [0.945, 1.095] |") in out
