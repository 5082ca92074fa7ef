"""FuseScope capture worker: compiles one model with one torch.compile backend and reports
the IR stages, latency, memory and accuracy over the JSON-lines protocol (docs/protocol.md).

This package must not import torch at import time: `__main__` sets the Inductor cache
directory before torch is loaded so that compile time is measured cold.
"""

__version__ = "0.1.0"
