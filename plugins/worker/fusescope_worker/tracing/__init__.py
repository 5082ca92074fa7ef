"""Kernel tracing for the worker, one module per tracer (cupti.py: FuseScope's CUPTI tracer on CUDA).

Modules here must not import torch at import time (see the package docstring)."""
