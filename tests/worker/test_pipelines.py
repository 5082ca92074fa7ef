"""The worker's pipelines (fusescope_worker/pipelines.py, docs/architecture.md "Worker pipelines"):
the registry of workload x compiler pairs, the import graph without cycles, and compilers that
report through the run's methods instead of writing into it."""
import ast
import pathlib

import pytest

from conftest import FAST_MEASURE, WORKER_DIR, run_worker
from fusescope_worker import errors, pipelines

PACKAGE = WORKER_DIR / "fusescope_worker"


def test_registry_lists_every_workload_and_compiler_pair_with_its_refusal():
    table = {pair: (refusal.code if refusal else None) for pair, refusal in pipelines.pairs().items()}
    assert table == {
        ("inference", "torch_compile"): None, ("inference", "mixed"): None, ("inference", "tvm"): None,
        ("inference", "export_torchscript"): None, ("inference", "export_aoti"): None,
        ("training", "torch_compile"): None,
        ("training", "mixed"): errors.BAD_REQUEST,
        ("training", "tvm"): errors.BACKEND_UNAVAILABLE,
        ("training", "export_torchscript"): errors.BAD_REQUEST,
        ("training", "export_aoti"): errors.BAD_REQUEST,
    }
    assert set(pipelines.WORKLOADS) == {w for w, _ in table}
    for refusal in pipelines.pairs().values():
        assert refusal is None or refusal.code in errors.SENT_BY_WORKER


def test_backends_map_to_their_compiler_and_workloads_to_their_class():
    assert pipelines.compiler_for("tvm").name == "tvm"
    assert pipelines.compiler_for("mixed").name == "mixed"
    for name in ("inductor", "eager", "aot_eager", "nvfuser", "some_entry_point_backend"):
        assert pipelines.compiler_for(name).name == "torch_compile"
    for precision in ("bf16", "fp16"):  # autocast refusals are the compiler's too
        assert pipelines.compiler_for("tvm").precision_refusal(precision).code == errors.BACKEND_UNAVAILABLE
        assert pipelines.compiler_for("inductor").precision_refusal(precision) is None
    assert pipelines.compiler_for("tvm").precision_refusal("fp32") is None
    assert pipelines.workload_class("inference").WORKLOAD == "inference"
    assert pipelines.workload_class("training").WORKLOAD == "training"


def test_workloads_share_the_driver_not_each_other():
    """Run (inference) and TrainingRun both define the phases of workload.Workload; neither is
    the other's subclass, so a change to one workload's phase never reaches the other."""
    from fusescope_worker.run import Run
    from fusescope_worker.training import TrainingRun
    from fusescope_worker.workload import Workload
    assert not issubclass(TrainingRun, Run) and not issubclass(Run, TrainingRun)
    phases = ("eager_reference", "compile", "measure_latency", "measure_memory", "record_trace", "check_accuracy")
    for cls in (Run, TrainingRun):
        assert issubclass(cls, Workload)
        assert [p for p in phases if getattr(cls, p) is getattr(Workload, p)] == [], cls
    assert "execute" not in vars(Run) and "execute" not in vars(TrainingRun)


def _imports(path: pathlib.Path, root: pathlib.Path = WORKER_DIR) -> set[str]:
    """Modules under `root` that `path` imports, at module level or inside functions."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    package = parts[:-1]  # an __init__.py's package is its folder, as any module's
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            target = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            for alias in node.names:  # `from . import mixed` names a module, `from .run import Run` does not
                found.add(".".join(target + [alias.name]) if _exists(root, target + [alias.name])
                          else ".".join(target))
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == parts[0]}
    own = ".".join(parts).removesuffix(".__init__")
    # A submodule's import of its own package (models.demos: `from . import LoadedModel`) is no
    # edge: Python initialises the package before any submodule of it anyway.
    return {m for m in found if _exists(root, m.split(".")) and m != own and not own.startswith(m + ".")}


def _exists(root: pathlib.Path, parts: list[str]) -> bool:
    path = root.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _graph(root: pathlib.Path = WORKER_DIR, package: str = "fusescope_worker") -> dict[str, set[str]]:
    graph = {}
    for path in (root / package).rglob("*.py"):
        name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        graph[name] = _imports(path, root)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of `graph` (depth-first search), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None
    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_worker_modules_import_no_cycle():
    graph = _graph()
    assert "fusescope_worker.training" in graph["fusescope_worker.pipelines"]
    assert "fusescope_worker.run" not in graph["fusescope_worker.training"]
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
    # the workloads and compilers never reach back to the registry
    for name in ("workload", "run", "training", "mixed", "compile_timing", "shapes", "tvm_relax.backend"):
        assert "fusescope_worker.pipelines" not in graph[f"fusescope_worker.{name}"], name


def test_cycle_check_sees_a_cycle_through_a_function_level_import(tmp_path):
    """The check above cannot pass vacuously: a lazy import inside a function closes a cycle, and
    a submodule importing its own package does not."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\n")
    (package / "b.py").write_text("def later():\n    from .a import thing\n")
    (package / "sub" / "__init__.py").write_text("def load():\n    from . import c\n")
    (package / "sub" / "c.py").write_text("from . import helper\nfrom .. import b\n")
    graph = _graph(tmp_path, "pkg")
    assert graph["pkg.sub.c"] == {"pkg.b"} and graph["pkg.sub"] == {"pkg.sub.c"}
    assert _cycle(graph) in (["pkg.a", "pkg.b", "pkg.a"], ["pkg.b", "pkg.a", "pkg.b"])
    (package / "b.py").write_text("def later():\n    pass\n")
    assert _cycle(_graph(tmp_path, "pkg")) is None


COMPILER_MODULES = ("mixed.py", "compile_timing.py", "shapes.py", "pipelines.py", "tvm_relax/backend.py")


@pytest.mark.parametrize("name", COMPILER_MODULES)
def test_compilers_report_through_the_runs_methods(name):
    """No `run.x = ...`, `run.result[...] = ...` or `run.result.update(...)` outside the workloads."""
    offences = []
    for node in ast.walk(ast.parse((PACKAGE / name).read_text())):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            root = target.value if isinstance(target, ast.Subscript) else target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                if isinstance(root.value, ast.Name) and root.value.id == "run":
                    offences.append(f"line {node.lineno}: assigns {ast.unparse(target)}")
                    break
                root = root.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            owner = ast.unparse(node.func.value)
            if owner.startswith(("run.result", "self.run.result")):
                offences.append(f"line {node.lineno}: {owner}.update(...)")
    assert not offences, offences


def test_torch_compile_is_called_in_one_place():
    """The compile set-up (backend construction, Inductor hooks, torch.compile) lives in
    compile_timing.py; the workloads and compilers call it."""
    callers = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "torch.compile":
                callers.append(path.name)
    assert callers == ["compile_timing.py"], callers


def test_backend_dispatch_has_no_string_markers():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert "--- end tvm ---" not in text and "--- tvm:" not in text, path


def test_export_request_for_training_is_refused_before_loading_anything(tmp_path):
    r = run_worker({"type": "export_torchscript", "id": "x", "model": "demo:mlp", "out_dir": str(tmp_path),
                    "workload": {"mode": "training"}, "measure": FAST_MEASURE})
    error = r.one("error")
    assert error["code"] == errors.BAD_REQUEST and "inference only" in error["message"], r
    assert not r.of_type("model") and r.returncode == 3, r
