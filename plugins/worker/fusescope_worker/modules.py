"""The submodule tree the `model` message lists (docs/protocol.md, "workload"): every named
submodule except the root, in definition order, with its class, its recursive parameter count
and its depth. Mixed runs assign backends to these names (mixed.py)."""
import torch

MAX_MODULES = 5000


def describe(module: torch.nn.Module, limit: int = MAX_MODULES) -> tuple[list[dict], int]:
    """([{name, class, parameters, depth}, ...] capped at `limit`, how many there are in all).

    `named_modules()` walks in registration order and lists a module shared under two names
    once, under the first. `parameters` counts the submodule's own parameters recursively (a
    parameter shared with another submodule counts in both)."""
    listed, total = [], 0
    for name, sub in module.named_modules():
        if not name:
            continue  # the root
        total += 1
        if len(listed) < limit:
            listed.append({"name": name, "class": type(sub).__name__,
                           "parameters": sum(p.numel() for p in sub.parameters()),
                           "depth": name.count(".") + 1})
    return listed, total


def top_level(module: torch.nn.Module) -> list[str]:
    return [name for name, _ in module.named_children()]
