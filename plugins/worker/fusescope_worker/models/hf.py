"""transformers architectures built from their configs with seeded random weights.

No download happens: a config fully describes the architecture, and the weights are the
library's own random initialisation. Most are the default config; hf:llama and hf:t5 are shrunk
to a few layers of width 64 (the defaults are a 7B decoder and t5-small), so a CPU runs them in
well under a second. The models are called with return_dict=False (and use_cache=False for
GPT-2); Llama and T5 keep their cache, so their outputs carry a transformers Cache object
(DynamicCache, EncoderDecoderCache) beside the tensors, as these families return in use.
"""
import torch

from ..errors import MODEL_FAILED, MODEL_NOT_FOUND, WorkerError, describe
from . import LoadedModel

SEED = 0
TOKENS = 128
DECODER_TOKENS = 32  # encoder-decoder models: decoder_input_ids
IMAGE = 224

SMALL_LLAMA = {"vocab_size": 1024, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
               "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 256}
SMALL_T5 = {"vocab_size": 1024, "d_model": 64, "d_kv": 16, "d_ff": 128, "num_layers": 2,
            "num_decoder_layers": 2, "num_heads": 4}

# name -> (config class, model class, input kind, extra call arguments, config arguments)
ARCHITECTURES = {
    "hf:bert": ("BertConfig", "BertModel", "tokens", {}, {}),
    "hf:gpt2": ("GPT2Config", "GPT2Model", "tokens", {"use_cache": False}, {}),
    "hf:llama": ("LlamaConfig", "LlamaModel", "tokens", {}, SMALL_LLAMA),
    "hf:resnet": ("ResNetConfig", "ResNetModel", "image", {}, {}),
    "hf:t5": ("T5Config", "T5Model", "seq2seq", {}, SMALL_T5),
    "hf:vit": ("ViTConfig", "ViTModel", "image", {}, {}),
}


def load(name: str) -> LoadedModel:
    if name not in ARCHITECTURES:
        raise WorkerError(MODEL_NOT_FOUND, f"unknown model '{name}' (known: {', '.join(ARCHITECTURES)})")
    try:
        import transformers
    except ImportError as exc:
        raise WorkerError(MODEL_NOT_FOUND, f"{name} needs the transformers package, which this Python "
                          f"cannot import ({describe(exc)}); install it with pip install transformers") from exc
    config_name, model_name, kind, extra, config_args = ARCHITECTURES[name]
    which = "a small" if config_args else "its default"
    try:
        torch.manual_seed(SEED)
        config = getattr(transformers, config_name)(**config_args)
        module = getattr(transformers, model_name)(config)
    except Exception as exc:
        raise WorkerError(MODEL_FAILED, f"{name}: building transformers.{model_name} from {which} config "
                          f"failed: {describe(exc)}") from exc
    generator = torch.Generator().manual_seed(SEED)
    if kind in ("tokens", "seq2seq"):
        inputs = {"input_ids": torch.randint(0, config.vocab_size, (1, TOKENS), generator=generator)}
        if kind == "seq2seq":
            inputs["decoder_input_ids"] = torch.randint(0, config.vocab_size, (1, DECODER_TOKENS),
                                                        generator=generator)
    else:
        size = getattr(config, "image_size", IMAGE)
        inputs = {"pixel_values": torch.randn(1, config.num_channels, size, size, generator=generator)}
    shrunk = f" ({', '.join(f'{k}={v}' for k, v in config_args.items())})" if config_args else ""
    return LoadedModel(module=module, args=(), kwargs={**inputs, "return_dict": False, **extra},
                       source=name, class_name=f"transformers.{model_name}",
                       notes=[f"transformers {transformers.__version__}, {which.split()[-1]} {config_name}{shrunk}, "
                              "random weights"])
