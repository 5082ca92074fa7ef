"""transformers architectures built from their default configs with seeded random weights.

No download happens: a default config fully describes the architecture, and the weights are
the library's own random initialisation. The models are called with return_dict=False (and
use_cache=False for GPT-2) so outputs are plain tuples of tensors.
"""
import torch

from ..errors import MODEL_FAILED, MODEL_NOT_FOUND, WorkerError, describe
from . import LoadedModel

SEED = 0
TOKENS = 128
IMAGE = 224

# name -> (config class, model class, input kind, extra call arguments)
ARCHITECTURES = {
    "hf:bert": ("BertConfig", "BertModel", "tokens", {}),
    "hf:gpt2": ("GPT2Config", "GPT2Model", "tokens", {"use_cache": False}),
    "hf:resnet": ("ResNetConfig", "ResNetModel", "image", {}),
    "hf:vit": ("ViTConfig", "ViTModel", "image", {}),
}


def load(name: str) -> LoadedModel:
    if name not in ARCHITECTURES:
        raise WorkerError(MODEL_NOT_FOUND, f"unknown model '{name}' (known: {', '.join(ARCHITECTURES)})")
    try:
        import transformers
    except ImportError as exc:
        raise WorkerError(MODEL_NOT_FOUND, f"{name} needs the transformers package, which this Python "
                          f"cannot import ({describe(exc)}); install it with pip install transformers") from exc
    config_name, model_name, kind, extra = ARCHITECTURES[name]
    try:
        torch.manual_seed(SEED)
        config = getattr(transformers, config_name)()
        module = getattr(transformers, model_name)(config)
    except Exception as exc:
        raise WorkerError(MODEL_FAILED, f"{name}: building transformers.{model_name} from its default config "
                          f"failed: {describe(exc)}") from exc
    generator = torch.Generator().manual_seed(SEED)
    if kind == "tokens":
        inputs = {"input_ids": torch.randint(0, config.vocab_size, (1, TOKENS), generator=generator)}
    else:
        size = getattr(config, "image_size", IMAGE)
        inputs = {"pixel_values": torch.randn(1, config.num_channels, size, size, generator=generator)}
    return LoadedModel(module=module, args=(), kwargs={**inputs, "return_dict": False, **extra},
                       source=name, class_name=f"transformers.{model_name}",
                       notes=[f"transformers {transformers.__version__}, default {config_name}, random weights"])
