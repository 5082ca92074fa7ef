"""The report-open benchmark's model (docs/performance.md, "The report"): a 3-block residual MLP,
each block LayerNorm, Linear 128->512, GELU, Linear 512->128 and a residual add, then a Linear
head. `fusescope-cli compare bench/gui/resmlp.py -b eager,aot_eager,inductor --trace --out
resmlp.fscope`, then `../shared/tools/scale_report.py resmlp.fscope resmlp-10k.fscope 124`."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int = 128, hidden: int = 512):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class ResidualMLP(nn.Module):
    def __init__(self, blocks: int = 3, width: int = 128):
        super().__init__()
        self.blocks = nn.Sequential(*(Block(width) for _ in range(blocks)))
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        return self.head(self.blocks(x))


def build_model():
    torch.manual_seed(0)
    return ResidualMLP()


def example_inputs():
    return (torch.randn(32, 128),)
