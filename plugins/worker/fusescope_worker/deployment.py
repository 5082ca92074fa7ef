"""What the deployment view compares an exported artifact with (docs/libtorch.md, "Deployment"):
the size of the eager model as a user would ship it without a compiler, i.e. its state_dict
serialized by torch.save (parameters and buffers, with torch.save's zip container)."""
import io

import torch


def eager_model_bytes(module) -> int | None:
    """Bytes of torch.save(module.state_dict()); None when the module has no state_dict
    (a plain callable) or it cannot be serialized."""
    state_dict = getattr(module, "state_dict", None)
    if not callable(state_dict):
        return None
    buffer = io.BytesIO()
    try:
        torch.save(state_dict(), buffer)
    except Exception:  # a custom state_dict torch.save cannot pickle: no number rather than a guess
        return None
    return buffer.getbuffer().nbytes
