"""Relax modules as stage graphs (docs/graph-schema.json, docs/tvm.md).

Nodes are the parameters and bindings of the module's `main` function (id = the Relax var name,
which is unique within `main`), plus one `output` node for what `main` returns. Edges are var
uses (`relax.analysis.free_vars` of each bound value). Constants (the model's weights after
from_exported_program with keep_params_as_input=False) are not nodes.

After-fusion stages keep the nodes and edges of the stage FuseOps received (`relax_folded`) and
add one group per kernel launch in the fused `main`. How a launch is linked to the bindings it
covers is described in `link_groups`.
"""
import re

from ..capture import categories

# Relax op base names the FX tables do not know (categories.base_name strips "relax.nn.").
_RELAX_CATEGORIES = {
    "permute_dims": "view", "strided_slice": "view", "dynamic_strided_slice": "view",
    "broadcast_to": "view", "concat": "view", "stack": "view", "take": "view", "repeat": "view",
    "tile": "view", "flip": "view", "collapse_sum_to": "reduction", "astype": "pointwise",
    "multiply": "pointwise", "subtract": "pointwise", "divide": "pointwise", "power": "pointwise",
    "negative": "pointwise", "floor_divide": "pointwise", "erf": "pointwise", "zeros": "pointwise",
    "ones": "pointwise", "full": "pointwise", "gelu_tanh": "pointwise", "attention": "attention",
    "conv2d": "conv", "conv1d": "conv", "conv3d": "conv", "max_pool2d": "reduction",
    "avg_pool2d": "reduction", "adaptive_avg_pool2d": "reduction", "batch_norm": "norm",
    "layer_norm": "norm", "group_norm": "norm", "rms_norm": "norm", "transpose": "view",
    "expand_dims": "view", "reshape": "view", "squeeze": "view", "split": "view",
    "T_add": "pointwise", "compute": "pointwise",
}
# Legalized PrimFuncs carry TVM's op pattern (relax/op_attr_types.h OpPatternKind).
_PATTERN_CATEGORIES = {0: "pointwise", 1: "pointwise", 2: "view", 3: "reduction"}
_TRAILING_DIGITS = re.compile(r"\d+$")


def _constant_types() -> tuple:
    """Constant expression classes: relax.Constant up to 0.2x, ir.Constant / ir.GenericConst in 0.27."""
    from tvm import ir, relax
    found = tuple(c for c in (getattr(relax, "Constant", None), getattr(ir, "Constant", None),
                              getattr(ir, "GenericConst", None)) if isinstance(c, type))
    return found or (type(None),)


def var_name(var) -> str:
    return getattr(var, "name", None) or getattr(var, "name_hint", None) or str(var)


def _type_of(var):
    """The var's type: `ty` in TVM 0.27, `struct_info` in earlier 0.2x releases."""
    for attr in ("ty", "struct_info"):
        try:
            value = getattr(var, attr)
        except Exception:
            continue
        if value is not None:
            return value
    return None


def _dim(value):
    """A static extent (IntImm) as an int, a symbolic one as its expression text."""
    static = getattr(value, "value", None)
    if isinstance(static, int) and not isinstance(static, bool):
        return static
    text = str(value)
    return int(text) if text.lstrip("-").isdigit() else text


def shapes_and_dtypes(var) -> tuple[list, list]:
    shapes, dtypes = [], []

    def visit(ty):
        if ty is None:
            return
        fields = getattr(ty, "fields", None)
        if fields is not None:
            for field in fields:
                visit(field)
            return
        dtype = getattr(ty, "dtype", None)
        if dtype is None:
            return
        shape = getattr(ty, "shape", None)
        values = getattr(shape, "values", None) if shape is not None else None
        if values is None:  # unknown shape: rank only
            ndim = getattr(ty, "ndim", -1)
            values = ["?"] * ndim if isinstance(ndim, int) and ndim >= 0 else []
        shapes.append([_dim(v) for v in values])
        dtypes.append(str(dtype))
    visit(_type_of(var))
    return shapes, dtypes


def _category_for_name(name: str) -> str | None:
    base = categories.base_name(name)
    for key in (base, _TRAILING_DIGITS.sub("", base)):
        if key in _RELAX_CATEGORIES:
            return _RELAX_CATEGORIES[key]
        category = categories.for_op(key)
        if category != "other":
            return category
    return None


def describe_value(value, mod) -> tuple[str, str, str]:
    """(op, kind, category) of a bound value.

    kind: `call_op` (a Relax operator), `call_tir` (a TIR PrimFunc), `call_function` (a Relax
    function of the module, e.g. a fused primitive function), `tuple`, `getitem`, `alias`, `other`."""
    from tvm import ir, relax
    if isinstance(value, relax.Call):
        op = value.op
        if isinstance(op, ir.Op):
            if op.name in ("relax.call_tir", "relax.call_tir_inplace", "relax.call_dps_packed"):
                callee = value.args[0]
                name = callee.name_hint if isinstance(callee, ir.GlobalVar) else str(callee)
                category = _category_for_name(name)
                if category is None and isinstance(callee, ir.GlobalVar) and callee in mod.functions:
                    attrs = mod[callee].attrs
                    pattern = attrs.get("op_pattern") if attrs is not None else None
                    category = _PATTERN_CATEGORIES.get(int(pattern)) if pattern is not None else None
                kind = "call_tir" if op.name != "relax.call_dps_packed" else "call_packed"
                return name, kind, category or ("other" if not name.startswith("fused_") else "pointwise")
            return op.name, "call_op", _category_for_name(op.name) or "other"
        if isinstance(op, ir.GlobalVar):
            return op.name_hint, "call_function", _category_for_name(op.name_hint) or "other"
        return str(op), "call_other", "other"
    if isinstance(value, relax.Tuple):
        return "tuple", "tuple", "view"
    if isinstance(value, relax.TupleGetItem):
        return f"getitem[{value.index}]", "getitem", "view"
    if isinstance(value, relax.Var):
        return "alias", "alias", "view"
    if isinstance(value, _constant_types()):
        return "constant", "constant", "constant"
    return type(value).__name__, "other", "other"


def _bindings(func):
    for block in func.body.blocks:
        yield from block.bindings


def _node(id_, op, kind, category, var) -> dict:
    shapes, dtypes = shapes_and_dtypes(var) if var is not None else ([], [])
    return {"id": id_, "name": id_, "op": op, "kind": kind, "category": category, "shapes": shapes,
            "dtypes": dtypes, "module": "", "module_type": "", "source": None, "group": None, "origins": []}


def nodes_and_edges(mod) -> tuple[list, list]:
    """The `main` function of `mod` as stage nodes and edges."""
    from tvm import relax
    main = mod["main"]
    nodes, edges = [], []
    for param in main.params:
        nodes.append(_node(var_name(param), "placeholder", "placeholder", "input", param))
    for binding in _bindings(main):
        name = var_name(binding.var)
        value = getattr(binding, "value", None)
        if value is None:  # a MatchCast without value: keep the var, no op
            nodes.append(_node(name, "match_cast", "other", "other", binding.var))
            continue
        op, kind, category = describe_value(value, mod)
        nodes.append(_node(name, op, kind, category, binding.var))
        for used in relax.analysis.free_vars(value):
            edges.append({"src": var_name(used), "dst": name})
    output = main.body.body
    nodes.append(_node("output", "output", "output", "output", None))
    for used in relax.analysis.free_vars(output):
        edges.append({"src": var_name(used), "dst": "output"})
    ids = {n["id"] for n in nodes}
    edges = [e for e in edges if e["src"] in ids]  # vars bound outside main's bindings (none expected)
    return nodes, edges


def compute_node_count(nodes: list) -> int:
    return sum(1 for n in nodes if n["kind"] in ("call_op", "call_tir", "call_function", "call_packed"))


# -- linking the fused module to the module FuseOps received --------------------------------

def _callee_key(value):
    """What a call computes, independent of variable names: the called op or function name."""
    from tvm import ir, relax
    if not isinstance(value, relax.Call):
        return None, []
    op = value.op
    if isinstance(op, ir.Op) and op.name in ("relax.call_tir", "relax.call_tir_inplace"):
        callee = value.args[0]
        args = list(value.args[1].fields) if isinstance(value.args[1], relax.Tuple) else [value.args[1]]
        extra = [str(a) for a in value.args[2:]]  # symbolic shape args, if any
        return ("call_tir", callee.name_hint if isinstance(callee, ir.GlobalVar) else str(callee), *extra), args
    if isinstance(op, ir.Op):
        return ("op", op.name, str(value.attrs) if value.attrs is not None else ""), list(value.args)
    if isinstance(op, ir.GlobalVar):
        return ("function", op.name_hint), list(value.args)
    return None, []


def _arg_key(arg, env):
    """An argument as a comparable key: a var by the pre-fusion binding it stands for, a constant
    by its structural hash (FoldConstant leaves the same constants in both modules)."""
    from tvm import relax
    if isinstance(arg, relax.Var):
        bound = env.get(var_name(arg), ("unknown", var_name(arg)))
        if isinstance(bound, tuple) and bound and bound[0] in ("const", "expr"):
            return bound  # a fused function's parameter that received a constant at the call site
        return ("var", bound)
    if isinstance(arg, _constant_types()):
        return ("const", _object_identity(arg))
    return ("expr", str(arg))


def _freeze(value):
    return value if not isinstance(value, list) else tuple(value)


def _object_identity(obj):
    """The constant's object handle: FuseOps passes the very constants of its input module on to
    the fused module (checked on TVM 0.27), so identity links them without hashing weights."""
    for attr in ("__chandle__", "_chandle"):
        handle = getattr(obj, attr, None)
        if handle is not None:
            return handle() if callable(handle) else handle
    import tvm_ffi
    return tvm_ffi.structural_hash(obj)


def _resolve(value, env, name):
    """What a non-call value stands for, by the same rules on both modules, so that argument keys
    agree: a tuple is ("multi", its fields), a getitem of such a tuple is that field, a getitem
    of a call result is ("item", the call, index), an alias is what it aliases."""
    from tvm import relax
    if isinstance(value, relax.Tuple):
        return ("multi", tuple(env.get(var_name(f), ("unknown", var_name(f))) if isinstance(f, relax.Var)
                               else _arg_key(f, env) for f in value.fields))
    if isinstance(value, relax.TupleGetItem) and isinstance(value.tuple_value, relax.Var):
        outer = env.get(var_name(value.tuple_value), ("unknown", var_name(value.tuple_value)))
        index = int(value.index)
        if isinstance(outer, tuple) and outer and outer[0] == "multi" and index < len(outer[1]):
            return outer[1][index]
        return ("item", outer, index)
    if isinstance(value, relax.Var):
        return env.get(var_name(value), ("unknown", var_name(value)))
    return ("unknown", name)


def _pre_fusion_index(mod) -> tuple[dict, dict]:
    """(callee, argument keys) -> pre-fusion var names, for every call binding in main; and
    (tuple var, index) -> the var a TupleGetItem binding of main bound it to."""
    env = {var_name(p): var_name(p) for p in mod["main"].params}
    index, items = {}, {}
    for binding in _bindings(mod["main"]):
        name = var_name(binding.var)
        value = getattr(binding, "value", None)
        key, args = _callee_key(value)
        if key is not None:
            index.setdefault((key, tuple(_arg_key(a, env) for a in args)), []).append(name)
            env[name] = name
        else:
            env[name] = _resolve(value, env, name)
            items.setdefault(_freeze(env[name]), name)
    return index, items


def link_groups(pre_mod, fused_mod) -> tuple[list, dict, list]:
    """Groups of the fused module over the nodes of the pre-fusion module.

    Replays the dataflow: walking the fused `main` in order, each call is matched to the
    pre-fusion binding with the same callee (op / PrimFunc name) and the same arguments, where
    an argument is a pre-fusion var (by what it was matched to) or a constant (by object
    identity). A call to a fused primitive function is matched by replaying the function's own
    body with its parameters bound to the call-site arguments: each inner binding matched is
    a member of the group. TupleGetItem bindings are followed through (a getitem of a matched
    tuple is the pre-fusion getitem of the same tuple and index). Returns (groups, fused var ->
    pre-fusion var(s), warnings)."""
    from tvm import ir, relax
    index, items = _pre_fusion_index(pre_mod)
    used: set[str] = set()
    warnings: list[str] = []

    def match(value, env):
        key, args = _callee_key(value)
        if key is None:
            return None
        candidates = [n for n in index.get((key, tuple(_arg_key(a, env) for a in args)), []) if n not in used]
        if not candidates:
            return None
        used.add(candidates[0])
        return candidates[0]

    def follow(name, value, env) -> str | None:
        """Bind a non-call value (tuple, getitem, alias) in env; the pre-fusion binding that is the
        same value (e.g. the getitem `lv4 = lv3[0]`), if there is one."""
        env[name] = _resolve(value, env, name)
        return items.get(_freeze(env[name]))

    env = {var_name(p): var_name(p) for p in fused_mod["main"].params}
    groups = []
    for binding in _bindings(fused_mod["main"]):
        name = var_name(binding.var)
        value = getattr(binding, "value", None)
        if not isinstance(value, relax.Call):
            follow(name, value, env)
            continue
        op, kind, _ = describe_value(value, fused_mod)
        callee = value.op
        primitive = (isinstance(callee, ir.GlobalVar) and callee in fused_mod.functions
                     and isinstance(fused_mod[callee], relax.Function))
        members: list[str] = []
        if primitive:
            func = fused_mod[callee]
            inner = {}
            for param, arg in zip(func.params, value.args):
                if isinstance(arg, relax.Var):
                    inner[var_name(param)] = env.get(var_name(arg), ("unknown", var_name(arg)))
                else:
                    inner[var_name(param)] = _arg_key(arg, env)  # ("const", id): as the pre-fusion call had it
            for inner_binding in _bindings(func):
                inner_value = inner_binding.value
                inner_name = var_name(inner_binding.var)
                if not isinstance(inner_value, relax.Call):
                    found = follow(inner_name, inner_value, inner)
                    if found is not None:
                        members.append(found)
                    continue
                found = match(inner_value, inner)
                if found is None:
                    warnings.append(f"{op}: inner binding {inner_name} ({describe_value(inner_value, fused_mod)[0]}) "
                                    f"matches no binding of the pre-fusion module")
                    inner[inner_name] = ("unknown", inner_name)
                    continue
                members.append(found)
                inner[inner_name] = found
            result = func.body.body
            if isinstance(result, relax.Var):
                env[name] = inner.get(var_name(result), ("unknown", name))
            elif isinstance(result, relax.Tuple):
                env[name] = ("multi", tuple(inner.get(var_name(f), ("unknown", name)) if isinstance(f, relax.Var)
                                            else ("unknown", name) for f in result.fields))
        else:
            found = match(value, env)
            if found is None:
                if kind in ("call_tir", "call_op", "call_packed"):
                    warnings.append(f"{op} (bound to {name}) matches no binding of the pre-fusion module")
                env[name] = ("unknown", name)
            else:
                env[name] = found
                members.append(found)
            if kind not in ("call_tir", "call_packed"):
                continue  # not a kernel launch (a Relax op FuseOps left alone): no group
        groups.append({"id": f"{op}:{name}", "name": op, "kind": "kernel", "nodes": members,
                       "provenance": list(members), "code": None, "binding": name,
                       "fused": bool(primitive) or op.startswith("fused_")})
    return groups, env, warnings


def groups_after_fuse_tir(fused_groups: list, fuse_tir_mod) -> tuple[list, list]:
    """FuseTIR turns each fused Relax function into one PrimFunc of the same name and keeps the
    var names of main's bindings: a call_tir of `fused_x` bound to `lv` is the group of
    `fused_x:lv` on relax_fused."""
    by_id = {g["id"]: g for g in fused_groups}
    groups, warnings = [], []
    for binding in _bindings(fuse_tir_mod["main"]):
        value = getattr(binding, "value", None)
        if value is None:
            continue
        op, kind, _ = describe_value(value, fuse_tir_mod)
        if kind not in ("call_tir", "call_packed"):
            continue
        name = var_name(binding.var)
        previous = by_id.get(f"{op}:{name}")
        if previous is None:
            warnings.append(f"{op} (bound to {name}) has no counterpart on relax_fused: its nodes are unknown")
            members = []
        else:
            members = list(previous["nodes"])
        groups.append({"id": f"{op}:{name}", "name": op, "kind": "kernel", "nodes": members,
                       "provenance": list(members), "code": None, "binding": name,
                       "fused": op.startswith("fused_")})
    return groups, warnings
