"""An example model file for FuseScope (docs/models.md).

    fusescope-cli compare resources/examples/tiny_model.py --backends eager,inductor

FuseScope imports this file in its capture worker, calls build_model() once, and feeds the
result of example_inputs() to it: a tuple of positional tensors.
"""
import torch
from torch import nn


class TinyBlock(nn.Module):
    def __init__(self, width: int = 64):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def build_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(TinyBlock(), TinyBlock()).eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(8, 64),)
