"""Coarse op families used to colour nodes (graph-schema.json, node.category).

The family comes from the operator's base name, so `aten.addmm.default`, `torch._C._nn.linear`
and the module type `torch.nn.modules.linear.Linear` all read as matmul. For aten operators
not in the tables, torch's own `pointwise` tag decides.
"""
import re

import torch

MATMUL = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "einsum", "addbmm", "addmv", "mv", "dot",
          "_int_mm", "tensordot", "bilinear", "_weight_int8pack_mm", "_weight_int4pack_mm", "conv1x1"}
CONV = {"convolution", "_convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
        "conv_transpose3d", "mkldnn_convolution", "convtranspose1d", "convtranspose2d", "convtranspose3d"}
ATTENTION = {"scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
             "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_efficient_attention",
             "_scaled_dot_product_cudnn_attention", "_scaled_dot_product_attention_math",
             "multiheadattention", "multi_head_attention_forward", "flex_attention"}
NORM = {"layer_norm", "native_layer_norm", "batch_norm", "native_batch_norm", "_native_batch_norm_legit",
        "_native_batch_norm_legit_no_training", "_native_batch_norm_legit_functional", "group_norm",
        "native_group_norm", "instance_norm", "rms_norm", "_fused_rms_norm", "layernorm", "batchnorm1d",
        "batchnorm2d", "batchnorm3d", "groupnorm", "rmsnorm", "instancenorm2d", "local_response_norm"}
REDUCTION = {"sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "var", "var_mean", "std",
             "std_mean", "prod", "softmax", "_softmax", "log_softmax", "_log_softmax", "logsumexp", "cumsum",
             "cumprod", "norm", "linalg_vector_norm", "all", "any", "topk", "sort", "avg_pool2d",
             "max_pool2d", "max_pool2d_with_indices", "adaptive_avg_pool2d", "_adaptive_avg_pool2d",
             "maxpool2d", "avgpool2d", "adaptiveavgpool2d"}
VIEW = {"view", "reshape", "_unsafe_view", "permute", "transpose", "t", "expand", "squeeze", "unsqueeze",
        "slice", "select", "split", "split_with_sizes", "chunk", "unbind", "flatten", "unflatten", "narrow",
        "as_strided", "alias", "contiguous", "getitem", "size", "getattr", "detach", "_reshape_alias",
        "view_as", "expand_as", "movedim", "swapaxes", "unfold", "flatten_", "dim", "identity"}
POINTWISE = {"add", "sub", "mul", "div", "truediv", "floordiv", "mod", "pow", "neg", "abs", "exp", "log",
             "sqrt", "rsqrt", "erf", "tanh", "sigmoid", "relu", "relu_", "gelu", "silu", "mish", "hardtanh",
             "leaky_relu", "elu", "where", "clamp", "clamp_min", "clamp_max", "dropout", "masked_fill",
             "_to_copy", "to", "type_as", "float", "half", "iadd", "imul", "softplus", "reciprocal",
             "scalar_tensor", "fill", "full", "zeros", "ones", "ones_like", "zeros_like", "full_like",
             "clone", "copy", "copy_", "lt", "gt", "le", "ge", "eq", "ne", "logical_not", "bitwise_and",
             "sin", "cos", "maximum", "minimum", "sign", "square", "tanh_", "gelu_", "silu_", "add_", "mul_",
             "hardswish", "hardsigmoid", "dropout1d", "dropout2d"}
_TABLES = (("attention", ATTENTION), ("matmul", MATMUL), ("conv", CONV), ("norm", NORM),
           ("reduction", REDUCTION), ("view", VIEW), ("pointwise", POINTWISE))
_OVERLOAD_SUFFIX = re.compile(r"\.(default|Tensor|Scalar|int|dim|correction|using_ints|self|out|input|"
                              r"IntList|dim_IntList|Tensor_Scalar|Scalar_Tensor|Tensor_Tensor|memory_format|"
                              r"dtype|other|names|start|float|List|low_dtype|bool|str|vec)$")


def base_name(op: str) -> str:
    """`aten.addmm.default` -> addmm, `torch._C._nn.linear` -> linear, `...linear.Linear` -> linear."""
    op = _OVERLOAD_SUFFIX.sub("", op)
    return op.rsplit(".", 1)[-1].lower()


def for_op(op: str, target=None) -> str:
    name = base_name(op)
    for category, table in _TABLES:
        if name in table:
            return category
    if isinstance(target, torch._ops.OpOverload) and torch.Tag.pointwise in target.tags:
        return "pointwise"
    return "other"


def for_fx_kind(kind: str) -> str | None:
    return {"placeholder": "input", "output": "output", "get_attr": "constant"}.get(kind)
