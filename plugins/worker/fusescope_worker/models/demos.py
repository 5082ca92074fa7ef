"""Built-in demo models: small, seeded random weights, no downloads.

demo:transformer is written with plain modules (blocks.0.attn.qkv, blocks.0.mlp.fc1, ...) and
hand-written attention (matmul, scaled softmax, matmul) next to LayerNorm and GELU, so the
graph has both matmuls Inductor leaves to a library and pointwise/reduction chains it fuses.
It is sized to compile with Inductor in seconds on two CPU cores.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from ..errors import MODEL_NOT_FOUND, WorkerError
from . import LoadedModel

SEED = 0


class MLP(nn.Module):
    def __init__(self, width: int = 64, hidden: int = 256, classes: int = 10):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        x = F.gelu(self.fc1(x))
        x = self.norm(F.relu(self.fc2(x)) + x)
        return self.head(x)


class CNN(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        return self.head(x.mean(dim=(2, 3)))


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, tokens, dim = x.shape
        head_dim = dim // self.heads
        q, k, v = self.qkv(x).split(dim, dim=-1)
        q, k, v = (t.view(batch, tokens, self.heads, head_dim).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(head_dim)
        y = scores.softmax(dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(batch, tokens, dim))


class FeedForward(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = FeedForward(dim)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Transformer(nn.Module):
    def __init__(self, vocab: int = 256, dim: int = 64, heads: int = 4, depth: int = 2, context: int = 32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(context, dim) * 0.02)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(depth))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def _mlp():
    return MLP(), (torch.randn(32, 64),)


def _cnn():
    return CNN(), (torch.randn(4, 3, 32, 32),)


def _transformer():
    return Transformer(), (torch.randint(0, 256, (2, 32)),)


DEMOS = {"demo:mlp": _mlp, "demo:cnn": _cnn, "demo:transformer": _transformer}


def load(name: str) -> LoadedModel:
    build = DEMOS.get(name)
    if build is None:
        raise WorkerError(MODEL_NOT_FOUND, f"unknown demo model '{name}' (known: {', '.join(DEMOS)})")
    torch.manual_seed(SEED)
    module, args = build()
    return LoadedModel(module=module, args=args, kwargs={}, source=name, class_name=type(module).__name__)
