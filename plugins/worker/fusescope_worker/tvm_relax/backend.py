"""Compile one loaded model with TVM Relax, capturing a stage after each fusion-related pass
(docs/tvm.md). The `tvm` compiler of pipelines.py (TvmRelax) calls it in place of torch.compile;
everything after the compile (latency, accuracy) uses the callable returned here exactly as other
backends'. What it measures goes to the run through run.record() and run.use_session()."""
import ctypes
import os
import time

import torch
from torch.utils import _pytree as pytree

from ..errors import BACKEND_UNAVAILABLE, BAD_REQUEST, COMPILE_FAILED, RUN_FAILED, WorkerError, describe
from . import deploy, graph, tuning

TARGET = "llvm"

# name: (label, fusion position)
STAGES = {
    "relax_imported": ("Relax module from torch.export (from_exported_program)", "before"),
    "relax_legalized": ("Relax after LegalizeOps: one TIR PrimFunc per op", "before"),
    "relax_folded": ("Relax after AnnotateTIROpPattern + FoldConstant: what FuseOps receives", "before"),
    "relax_fused": ("Relax after FuseOps: fused primitive functions", "after"),
    "relax_fuse_tir": ("Relax after FuseTIR: one PrimFunc per kernel", "after"),
}
# Where each capture falls within the compile phase, between the compile steps' own progress.
CAPTURE_FRACTION = {"relax_imported": 0.3, "relax_legalized": 0.45, "relax_folded": 0.55, "relax_fused": 0.65,
                    "relax_fuse_tir": 0.75}
MEMORY_METHOD = "tvm-vm-storage-peak"
MEMORY_NOTE = ("peak bytes of Relax VM storage (vm.builtin.alloc_storage) live during one call, observed "
               "at run time with the VM instrument; frees seen through the storages' reference counts. "
               "Counts intermediates and outputs (not weights/inputs), like the eager figure; does NOT "
               "count scratch buffers allocated inside a kernel (TIR alloc_buffer of fused PrimFuncs)")


def _stage(name: str, *, nodes=(), edges=(), groups=(), status="ok", reason=None, **extra) -> dict:
    label, fusion = STAGES[name]
    stage = {"name": name, "graph": 0, "label": label, "level": "relax", "fusion": fusion,
             "status": status, "reason": reason, "nodes": list(nodes), "edges": list(edges),
             "groups": list(groups)}
    stage.update(extra)
    return stage


class TvmCompiled:
    """Calls the Relax VM like the original module: flattens (args, kwargs) into the exported
    program's tensor inputs, passes them by DLPack (zero copy), and rebuilds the module's
    output structure from the exported program's out_spec, again by DLPack."""

    def __init__(self, vm, out_spec, input_count: int):
        self.vm = vm
        self.main = vm["main"]
        self.out_spec = out_spec
        self.input_count = input_count

    def __call__(self, *args, **kwargs):
        import tvm
        leaves = [leaf for leaf in pytree.tree_leaves((args, kwargs)) if isinstance(leaf, torch.Tensor)]
        if len(leaves) != self.input_count:
            raise RuntimeError(f"the compiled main takes {self.input_count} tensors, got {len(leaves)}")
        inputs = [tvm.runtime.from_dlpack(t.detach().contiguous()) for t in leaves]
        out = self.main(*inputs)
        flat = list(out) if _is_sequence(out) else [out]
        tensors = [torch.from_dlpack(o) for o in flat]
        if self.out_spec is not None:
            try:
                return pytree.tree_unflatten(tensors, self.out_spec)
            except Exception:
                pass
        return tensors[0] if len(tensors) == 1 else tuple(tensors)


def _is_sequence(value) -> bool:
    return not hasattr(value, "__dlpack__") and hasattr(value, "__len__") and hasattr(value, "__getitem__")


class Compiler:
    def __init__(self, run, sync):
        self.run = run
        self.sync = sync
        self.channel = run.channel
        capture = run.request.capture
        self.stages_wanted = bool(capture.get("stages", True))
        self.code_wanted = bool(capture.get("code", True))
        self.overhead_ns = 0
        self.sent: set[str] = set()
        self.fused_groups: list = []
        self.timings: dict[str, float] = {}

    def _emit(self, name: str, mod, *, groups_from=None) -> None:
        """Stage and code for module `mod` after the pass of `name`; timed as capture overhead."""
        start = time.perf_counter_ns()
        try:
            self.run.progress("capture", CAPTURE_FRACTION[name], f"capturing stage {name}")
            if self.stages_wanted:
                try:
                    self.channel.send("stage", stage=self._build_stage(name, mod, groups_from))
                except Exception as exc:  # our conversion failing is a failed stage, not a failed compile
                    self.channel.send("stage", stage=_stage(name, status="failed",
                                                            reason=f"stage capture failed: {describe(exc)}"))
            if self.code_wanted:
                try:
                    text = mod.script()
                except Exception as exc:
                    text = f"# mod.script() failed: {describe(exc)}\n"
                self.channel.send("code", name=f"{name}.py", language="python", text=text, stage=name, graph=0)
            self.sent.add(name)
        finally:
            self.overhead_ns += time.perf_counter_ns() - start

    def _build_stage(self, name, mod, groups_from):
        if groups_from is None:
            nodes, edges = graph.nodes_and_edges(mod)
            stage = _stage(name, nodes=nodes, edges=edges, compute_nodes=graph.compute_node_count(nodes))
            if name == "relax_folded":
                self.pre_nodes, self.pre_edges = nodes, edges
            return stage
        pre_mod, kind = groups_from
        if kind == "fuse_ops":
            groups, _, warnings = graph.link_groups(pre_mod, mod)
            self.fused_groups = groups
        else:
            groups, warnings = graph.groups_after_fuse_tir(self.fused_groups, mod)
        nodes = [dict(n) for n in self.pre_nodes]
        owner = {}
        for group in groups:
            for member in group["nodes"]:
                owner.setdefault(member, group["id"])
        for node in nodes:
            node["group"] = owner.get(node["id"])
        linked = sum(1 for g in groups if g["nodes"])
        return _stage(name, nodes=nodes, edges=self.pre_edges, groups=groups,
                      kernels=len(groups), fused_kernels=sum(1 for g in groups if g["fused"]),
                      linked_groups=linked, warnings=warnings,
                      nodes_from="relax_folded",
                      linking=("groups are the kernel launches (call_tir) of the fused main; each group's "
                               "nodes are the relax_folded bindings found by replaying the fused "
                               "function's body against relax_folded (same PrimFunc, same arguments)"))

    def _fail_remaining(self, why: str) -> None:
        if not self.stages_wanted:
            return
        for name in STAGES:
            if name not in self.sent:
                self.channel.send("stage", stage=_stage(name, status="failed", reason=f"not reached: {why}"))

    def _step(self, what: str, fn):
        start = time.perf_counter()
        try:
            return fn()
        except Exception as exc:
            message = f"backend tvm failed to compile {self.run.request.model}: {what} raised {describe(exc)}"
            self._fail_remaining(f"{what} raised {describe(exc)}")
            raise WorkerError(COMPILE_FAILED, message, file=self.run.loaded.file, backend="tvm") from exc
        finally:
            self.timings[what] = time.perf_counter() - start

    def _tuning_settings(self):
        try:
            settings = tuning.parse_options(self.run.request.options)
        except ValueError as exc:
            raise WorkerError(BAD_REQUEST, f"backend tvm: {exc}", backend="tvm") from exc
        if settings is not None:
            reason = tuning.unavailable_reason()
            if reason is not None:
                raise WorkerError(BACKEND_UNAVAILABLE, f"backend tvm: tuning (tune={settings['trials']}) is "
                                  f"unavailable: {reason}", backend="tvm")
        return settings

    def compile(self):
        import tvm
        from tvm import relax
        from tvm.relax.backend.cpu_generic import pipeline as cpu_pipeline
        from tvm.relax.frontend.torch import from_exported_program
        loaded = self.run.loaded
        T = relax.transform
        tune = self._tuning_settings()  # tvm{tune=TRIALS}: tuning.py, docs/tvm.md "Tuning"
        start = time.perf_counter()
        self.run.progress("compile", 0.0, "torch.export.export")
        ep = self._step("torch.export.export",
                        lambda: torch.export.export(loaded.module, tuple(loaded.args), kwargs=loaded.kwargs or None))
        self.run.progress("compile", 0.2, "tvm.relax.frontend.torch.from_exported_program")
        mod = self._step("from_exported_program", lambda: from_exported_program(ep, keep_params_as_input=False))
        self._emit("relax_imported", mod)
        target = tvm.target.Target(TARGET) if tune is None else tuning.tuning_target()
        # The passes of TVM's CPU default pipeline (relax/backend/cpu_generic/pipeline.py), in its
        # order, applied one at a time so each intermediate module can be captured.
        with target:
            self.run.progress("compile", 0.4, "LegalizeOps")
            mod = self._step("library dispatch", lambda: tvm.transform.Sequential(
                cpu_pipeline.library_dispatch_passes(target))(mod))
            mod = self._step("LegalizeOps", lambda: T.LegalizeOps()(mod))
            self._emit("relax_legalized", mod)
            mod = self._step("AnnotateTIROpPattern", lambda: T.AnnotateTIROpPattern()(mod))
            mod = self._step("FoldConstant", lambda: T.FoldConstant()(mod))
            folded = mod
            self._emit("relax_folded", mod)
            self.run.progress("compile", 0.6, "FuseOps")
            mod = self._step("FuseOps", lambda: T.FuseOps()(mod))
            self._emit("relax_fused", mod, groups_from=(folded, "fuse_ops"))
            mod = self._step("FuseTIR", lambda: T.FuseTIR()(mod))
            self._emit("relax_fuse_tir", mod, groups_from=(folded, "fuse_tir"))
            rest = tvm.transform.Sequential(cpu_pipeline.dataflow_lower_passes(target)
                                            + cpu_pipeline.finalize_passes(target))
        tune_info = None
        if tune is not None:
            self.run.progress("compile", 0.76, f"MetaSchedule tuning, {tune['trials']} trial(s)")
            mod, tune_info = self._step("MetaSchedule tuning", lambda: tuning.tune(
                mod, target, tune, lambda f, m: self.run.progress("compile", 0.76 + 0.04 * f, m)))
        self.run.progress("compile", 0.8, f"tvm.compile (target {TARGET})")
        # relax_pipeline: only the lowering that follows fusion in the default pipeline, so what is
        # built is exactly the relax_fuse_tir module above.
        ex = self._step("tvm.compile", lambda: tvm.compile(mod, target=target, relax_pipeline=rest))
        vm = self._step("relax.VirtualMachine", lambda: relax.VirtualMachine(ex, tvm.cpu()))
        compiled = TvmCompiled(vm, ep.call_spec.out_spec, len(mod["main"].params))
        self.run.progress("compile", 0.95, "first call of the compiled model")
        try:
            self.run.loaded(compiled)
            self.sync()
        except Exception as exc:
            raise WorkerError(RUN_FAILED, f"{self.run.request.model} compiled with tvm raised when run: "
                              f"{describe(exc)}", file=loaded.file, backend="tvm") from exc
        first_call = time.perf_counter() - start
        overhead = self.overhead_ns / 1e9
        self.run.record(first_call_s=first_call, compile_capture_overhead_s=overhead,
                        compile_s=max(first_call - overhead, 0.0), graphs=1, graph_breaks=0,
                        break_reasons=[], recompiles=0,
                        tvm={"version": tvm.__version__, "target": TARGET,
                             "frontend": "tvm.relax.frontend.torch.from_exported_program",
                             "passes": ["DispatchSampling", "DispatchSortScan", "LegalizeOps",
                                        "AnnotateTIROpPattern", "FoldConstant", "FuseOps", "FuseTIR"],
                             "step_s": dict(self.timings)})
        if tune_info is not None:
            # Tuning time is reported apart: compile_s excludes it, first_call_s (wall) includes it.
            self.run.record(compile_s=max(first_call - overhead - tune_info["tune_s"], 0.0),
                            tune_s=tune_info["tune_s"], tune_trials=tune_info["trials"],
                            tune_cache=tune_info["cache"], tvm_tuning=tune_info,
                            notes=[tuning.note(tune_info)])
        # The deployment view (deploy.py): the library a user ships, loaded in a fresh process.
        self.run.progress("compile", 0.97, "deployment: export_library, then a load in a fresh process")
        leaves = [leaf for leaf in pytree.tree_leaves((tuple(loaded.args), loaded.kwargs or {}))
                  if isinstance(leaf, torch.Tensor)]
        self.run.record(deployment=deploy.measure(ex, leaves, loaded.module,
                                                  os.path.join(self.run.scratch.root, "tvm-deploy")))
        return compiled


class ExportedSession:
    """What the run's graph summary reads of a session: one exported graph, no Dynamo, so never a
    recompile and no Dynamo compile error."""
    graphs = [0]
    compiles_after_first_call = 0
    compile_error = None


def compile(run, sync) -> TvmCompiled:
    """Export, convert, fuse (capturing stages), build, and make the first call."""
    run.progress("compile", 0.0, "compiling with tvm (Relax, target llvm)")
    run.use_session(ExportedSession())
    return Compiler(run, sync).compile()


def _strong_refs(obj) -> int:
    """Strong reference count of a TVM FFI object we hold: the low 32 bits of the header's
    combined_ref_count, the first field of TVMFFIObject (tvm/ffi/c_api.h)."""
    return ctypes.c_uint64.from_address(obj.__chandle__()).value & 0xFFFFFFFF


def vm_storage_peak(compiled: TvmCompiled, call) -> dict:
    """Run `call` (one call of `compiled`) with a VM instrument that sees every
    vm.builtin.alloc_storage the VM executes, with its size. Each new Storage is held until only our
    reference is left (the VM killed its register and no tensor views it any more): then it
    counts as freed. Returns the peak of live bytes and the allocation counts."""
    import tvm
    held: list = []
    state = {"live": 0, "peak": 0, "allocs": 0, "allocated": 0}

    def sweep():
        keep = []
        for obj, size in held:
            if _strong_refs(obj) == 1:
                state["live"] -= size
            else:
                keep.append((obj, size))
        held[:] = keep

    def instrument(func, name, before_run, ret, *args):
        if not before_run and str(name) == "vm.builtin.alloc_storage":
            sweep()
            count = 1
            for dim in args[1]:
                count *= int(dim)
            dtype = tvm.DataType(str(args[3]))
            size = count * ((dtype.bits + 7) // 8) * dtype.lanes
            held.append((ret, size))
            state["live"] += size
            state["allocs"] += 1
            state["allocated"] += size
            state["peak"] = max(state["peak"], state["live"])
        return 0  # VMInstrumentReturnKind.NO_OP

    compiled.vm.set_instrument(instrument)
    try:
        call()
    finally:
        compiled.vm.set_instrument(None)
        held.clear()
    return {"peak": state["peak"], "allocs": state["allocs"], "allocated": state["allocated"]}


def memory_fields(compiled: TvmCompiled, call, eager_peak, eager_method) -> dict:
    """The memory fields of a tvm run: eager's peak as for every backend, TVM's from the VM's own
    storage during `call` (docs/tvm.md, Memory)."""
    try:
        stats = vm_storage_peak(compiled, call)
    except Exception as exc:
        return dict(eager_peak_memory_bytes=eager_peak, peak_memory_bytes=None, memory_method=eager_method,
                    eager_memory_method=eager_method,
                    memory_unavailable_reason=f"VM storage instrument failed: {describe(exc)}")
    return dict(eager_peak_memory_bytes=eager_peak, eager_memory_method=eager_method,
                peak_memory_bytes=stats["peak"], memory_method=MEMORY_METHOD, memory_note=MEMORY_NOTE,
                tvm_memory={"storage_allocs": stats["allocs"], "storage_bytes_allocated": stats["allocated"]})


NO_TRACE = {"source": "cpu-profiler",
            "error": "the PyTorch profiler does not see TVM's kernels (no TVM tracer in FuseScope)"}
