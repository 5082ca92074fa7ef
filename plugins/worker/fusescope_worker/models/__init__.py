"""Model sources: built-in demos, transformers architectures, user .py files, TorchScript files
(docs/models.md). Every source yields a LoadedModel: an eval-mode module plus example inputs."""
import os
from dataclasses import dataclass, field

import torch
from torch.utils import _pytree as pytree

from ..errors import MODEL_INVALID, MODEL_NOT_FOUND, ModelExit, WorkerError


@dataclass
class LoadedModel:
    module: torch.nn.Module
    args: tuple
    kwargs: dict
    source: str            # the demo name or the absolute file path
    class_name: str
    file: str | None = None  # the file errors should name
    notes: list[str] = field(default_factory=list)
    parameters: int | None = None  # when the module run differs from the one the user gave
    calibration: object = None  # a model file's calibration_inputs(), for int8_static (quantize.py)

    def __call__(self, module=None):
        try:
            return (module if module is not None else self.module)(*self.args, **self.kwargs)
        except SystemExit as exc:  # every caller handles Exception: the model's error, not an exit
            raise ModelExit("forward()", exc.code) from exc

    def parameter_count(self) -> int:
        if self.parameters is not None:
            return self.parameters
        return sum(p.numel() for p in self.module.parameters())

    def input_description(self) -> list[dict]:
        described = [_describe(None, a) for a in self.args]
        described += [_describe(k, v) for k, v in self.kwargs.items()]
        return [d for d in described if d is not None]

    def to(self, device: torch.device) -> "LoadedModel":
        move = lambda v: v.to(device) if isinstance(v, torch.Tensor) else v  # noqa: E731
        self.module = self.module.to(device)
        self.args = tuple(pytree.tree_map(move, list(self.args)))
        self.kwargs = pytree.tree_map(move, self.kwargs)
        return self


def _describe(name, value) -> dict | None:
    if not isinstance(value, torch.Tensor):
        return None
    entry = {"shape": list(value.shape), "dtype": str(value.dtype).removeprefix("torch.")}
    if name is not None:
        entry["name"] = name
    return entry


def load_model(spec: str, inputs: list | None) -> LoadedModel:
    """Load `spec` on the CPU in eval mode; the caller moves it to the requested device."""
    if spec.startswith("demo:"):
        from . import demos
        loaded = demos.load(spec)
    elif spec.startswith("hf:"):
        from . import hf
        loaded = hf.load(spec)
    else:
        path = os.path.abspath(os.path.expanduser(spec))
        if not os.path.isfile(path):
            what = "is a directory, not a model file" if os.path.isdir(path) else "does not exist"
            raise WorkerError(MODEL_NOT_FOUND, f"model file {path} {what}", file=path)
        if path.endswith(".py"):
            from . import pyfile
            loaded = pyfile.load(path)
        elif path.endswith((".pt", ".pth", ".ts", ".torchscript")):
            from . import torchscript
            loaded = torchscript.load(path, inputs)
        else:
            raise WorkerError(MODEL_INVALID, f"model file {path}: unsupported file type "
                              "(expected a .py file or a TorchScript .pt)", file=path)
    try:
        loaded.module.eval()
    except NotImplementedError:
        pass  # modules from torch.export refuse eval(): their mode was fixed when exported
    return loaded
