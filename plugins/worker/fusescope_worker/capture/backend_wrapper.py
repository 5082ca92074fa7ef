"""The backend FuseScope hands to torch.compile: it records each Dynamo graph, then delegates to
the real backend exactly as torch.compile would have called it.

torch.compile(model, backend="inductor", mode=..., options=...) builds a
torch._TorchCompileInductorWrapper; any other name becomes a torch._TorchCompileWrapper around
torch._dynamo.lookup_backend(name). We build the same objects and call them, so mode and
options keep their meaning. For aot_eager the forward compiler is replaced by one that records
the AOTAutograd forward graph and then runs torch's own boxed_nop, which is what aot_eager
uses (torch/_dynamo/backends/debugging.py: aot_eager(gm, inputs, fw_compiler=...)).
"""
import functools

import torch
import torch._dynamo.exc
import torch.fx

_RESTART = getattr(torch._dynamo.exc, "RestartAnalysis", ())


def _delegate(backend: str, options: dict, session):
    mode = options.get("mode")
    dynamic = options.get("dynamic")
    if backend == "inductor":
        return torch._TorchCompileInductorWrapper(mode, options.get("inductor") or None, dynamic)
    if backend == "aot_eager":
        from torch._dynamo.backends.debugging import aot_eager, boxed_nop

        def recording_nop(gm, example_inputs):
            session.on_aot_forward(gm)
            return boxed_nop(gm, example_inputs)

        def recording_bw_nop(gm, example_inputs):  # training: the backward graph (capture/backward.py)
            if hasattr(session, "on_aot_backward"):
                session.on_aot_backward(gm)
            return boxed_nop(gm, example_inputs)
        kwargs = {"mode": mode} if mode and mode != "default" else {}
        return functools.partial(aot_eager, fw_compiler=recording_nop, bw_compiler=recording_bw_nop, **kwargs)
    if backend == "nvfuser":
        # Lightning Thunder as the torch.compile backend, fusing with nvFuser (backends.py checked
        # that both import and a GPU is there before we get here).
        from thunder.dynamo import ThunderCompiler
        from thunder.executors.nvfuserex import nvfuserex
        return ThunderCompiler(executors=[nvfuserex])
    return torch._TorchCompileWrapper(backend, mode, None, dynamic)


def keep_graph(record, gm, example_inputs) -> None:
    """For the accuracy bisect (accuracy_bisect.py), called before the backend sees `gm` (Inductor
    rewrites it in place): a copy of the graph (sharing gm's parameters) and the inputs of its
    first call. Here, not in accuracy_bisect.py, so the two modules do not import each other."""
    graph = torch.fx.Graph()
    output = graph.graph_copy(gm.graph, {})
    graph.output(output)
    record.bisect_graph = (torch.fx.GraphModule(gm, graph), list(example_inputs))


class CapturingBackend:
    def __init__(self, backend: str, options: dict, session):
        self.session = session
        self.delegate = _delegate(backend, options, session)
        self.__name__ = f"fusescope_{backend}"

    def __call__(self, gm, example_inputs):
        record = self.session.begin_graph(gm)
        if getattr(self.session, "keep_graphs", False):  # accuracy bisect asked for (accuracy_bisect.py)
            keep_graph(record, gm, example_inputs)
        try:
            compiled = self.delegate(gm, example_inputs)
        except _RESTART as exc:
            # Dynamo drops this graph and traces the frame again (e.g. to turn a Python scalar
            # into a tensor under dynamic shapes); the next call brings the graph it keeps.
            self.session.end_graph(record, restarted=True)
            raise exc
        except BaseException as exc:
            # Raised inside the backend: a compile failure, whatever torch wraps it in later.
            self.session.compile_error = exc
            self.session.end_graph(record, error=exc)
            raise
        self.session.end_graph(record)
        return compiled

    # torch.compile asks the backend for these (compiled autograd, torch._dynamo.reset()).
    def get_compiler_config(self):
        get = getattr(self.delegate, "get_compiler_config", None)
        return get() if get is not None else None

    def reset(self):
        reset = getattr(self.delegate, "reset", None)
        if reset is not None:
            reset()
