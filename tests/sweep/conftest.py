"""The sweep driver's tests (no torch): app/sweep on the path, as `fusescope-cli sweep` puts it."""
import pathlib
import sys

SWEEP_DIR = pathlib.Path(__file__).resolve().parents[2] / "app" / "sweep"
if str(SWEEP_DIR) not in sys.path:
    sys.path.insert(0, str(SWEEP_DIR))
