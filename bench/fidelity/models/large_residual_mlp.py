"""Fidelity benchmark, large: the model of issue 13, a residual MLP block (LayerNorm, 4x
expansion, GELU) repeated 3 times on an 8x64x256 input (tens of milliseconds per call on one
core)."""
import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


class ResidualMLP(nn.Module):
    def __init__(self, dim: int = 256, blocks: int = 3):
        super().__init__()
        self.blocks = nn.Sequential(*(ResidualBlock(dim) for _ in range(blocks)))

    def forward(self, x):
        return self.blocks(x)


def build_model():
    torch.manual_seed(0)
    return ResidualMLP()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(8, 64, 256),)
