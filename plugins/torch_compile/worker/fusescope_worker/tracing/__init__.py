"""Kernel tracing for the worker: FuseScope's CUPTI tracer on CUDA (cupti.py).

Modules here must not import torch at import time (see the package docstring)."""
