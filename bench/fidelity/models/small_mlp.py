"""Fidelity benchmark, small: a 3-layer MLP on a 32x64 batch (well under a millisecond per call,
so the timer's own cost and the call overhead matter)."""
import torch
from torch import nn


def build_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 64))


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(32, 64),)
