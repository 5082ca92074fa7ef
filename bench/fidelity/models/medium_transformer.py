"""Fidelity benchmark, medium: a 2-block pre-norm transformer encoder, dim 128, 8x64 tokens
(a few milliseconds per call)."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class Encoder(nn.Module):
    def __init__(self, dim: int = 128, heads: int = 4, depth: int = 2):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(depth))
        self.ln = nn.LayerNorm(dim)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.ln(x)


def build_model():
    torch.manual_seed(0)
    return Encoder()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(8, 64, 128),)
