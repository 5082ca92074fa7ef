"""MetaSchedule tuning of the fused Relax module for target llvm: `tvm{tune=TRIALS}` (docs/tvm.md,
"Tuning").

The kernels (PrimFuncs) of the `relax_fuse_tir` module are MetaSchedule's tasks. Tuning builds and
times candidates in this process (one builder, one runner: no process pools, which on a 2-core
machine would also import TVM again per pool), keeps the best schedule of each task, and the
build then applies them with MetaScheduleApplyDatabase; kernels without a record keep TVM's
default schedule.

Cache: the best schedule of each task (its trace as JSON) is stored under
`tvm_tuning_dir()/<key>/records.json`, key = sha256 of the TVM version, the target, the trial
count and each task's structural hash. A directory is written under a temporary name and renamed
into place only when complete, so a worker killed mid-tuning (cancel, timeout) leaves no entry
that reads as a hit; stale temporaries of dead processes are removed on the next tuning.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CACHE_FORMAT = 2  # 2: trials given to every task in turn (1 tuned the first task only)
# What MetaSchedule needs and this TVM build may lack: serialising TVM IR (TuneContext, the
# database and the builder all do). Checked in a child process: where it is broken it crashes
# (apache-tvm 0.27.0.post1 with apache-tvm-ffi 0.1.15.post2: SIGSEGV in tvm::ffi::ToJSONGraph).
PROBE = "import tvm\ntvm.ir.save_json(tvm.tirx.IntImm('int32', 1))\nprint('ok')\n"


def tvm_tuning_dir() -> str:
    """$FUSESCOPE_TVM_TUNING_DIR, else ${XDG_CACHE_HOME:-~/.cache}/fusescope/tvm-tuning."""
    explicit = os.environ.get("FUSESCOPE_TVM_TUNING_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fusescope", "tvm-tuning")


def parse_options(options: dict) -> dict | None:
    """The request's `options.tvm` as {trials, time_s}; None when no tuning is asked for.
    Raises ValueError naming the bad option."""
    tvm_options = (options or {}).get("tvm") or {}
    if not isinstance(tvm_options, dict):
        raise ValueError("options.tvm must be an object")
    unknown = sorted(set(tvm_options) - {"tune", "tune_time"})
    if unknown:
        raise ValueError(f"unknown tvm option(s) {', '.join(unknown)} (tvm takes tune=TRIALS, tune_time=SECONDS)")
    if "tune" not in tvm_options:
        if "tune_time" in tvm_options:
            raise ValueError("tune_time needs tune=TRIALS")
        return None
    trials = tvm_options["tune"]
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"tune takes a positive number of trials, not {trials!r}")
    time_s = tvm_options.get("tune_time")
    if time_s is not None and (isinstance(time_s, bool) or not isinstance(time_s, (int, float)) or time_s <= 0):
        raise ValueError(f"tune_time takes a positive number of seconds, not {time_s!r}")
    return {"trials": trials, "time_s": float(time_s) if time_s is not None else None}


def _versions() -> dict:
    import tvm
    try:
        import tvm_ffi
        ffi = getattr(tvm_ffi, "__version__", "unknown")
    except Exception:
        ffi = "not importable"
    return {"tvm": tvm.__version__, "tvm_ffi": ffi}


def unavailable_reason() -> str | None:
    """None when MetaSchedule can run with this TVM; else the exact reason. The probe's outcome
    is cached per (python, tvm, tvm-ffi) in the tuning directory (a child process costs a TVM
    import, about 5 s)."""
    versions = _versions()
    key = hashlib.sha256(json.dumps([sys.executable, versions], sort_keys=True).encode()).hexdigest()[:16]
    path = os.path.join(tvm_tuning_dir(), f"probe-{key}.json")
    try:
        with open(path) as f:
            return json.load(f)["reason"]
    except Exception:
        pass
    try:
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
        ok = done.returncode == 0 and done.stdout.strip().endswith("ok")
        how = (f"exit status {done.returncode}" if done.returncode >= 0 else f"signal {-done.returncode}")
    except subprocess.TimeoutExpired:
        ok, how = False, "no answer in 300 s"
    reason = None if ok else (
        f"MetaSchedule cannot run with apache-tvm {versions['tvm']} and apache-tvm-ffi {versions['tvm_ffi']}: "
        f"serialising TVM IR (tvm.ir.save_json, used by MetaSchedule's TuneContext, database and builder) "
        f"crashed a probe process ({how}); apache-tvm-ffi 0.1.14.post0 does not crash")
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _write_atomic(path, {"versions": versions, "reason": reason})
    except OSError:
        pass
    return reason


def _write_atomic(path: str, data) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def _plain(obj):
    """A trace's JSON (TVM FFI arrays, strings, numbers) as plain Python values."""
    if isinstance(obj, (str, bool, int, float)) or obj is None:
        return obj
    if hasattr(obj, "items"):
        return {str(k): _plain(v) for k, v in obj.items()}
    try:
        return [_plain(x) for x in obj]
    except TypeError:
        pass
    for cast in (int, float, str):
        try:
            return cast(obj)
        except Exception:
            continue
    return str(obj)


def workload_key(tasks, target, trials: int) -> str:
    import tvm
    from tvm_ffi import structural_hash
    parts = {"format": CACHE_FORMAT, "tvm": tvm.__version__, "target": str(target), "trials": trials,
             "tasks": sorted([t.task_name, str(structural_hash(t.dispatched[0]))] for t in tasks)}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def _remove_stale(root: str) -> None:
    """Temporaries `.tune-<pid>-*` of processes that no longer exist (killed mid-tuning)."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        if not name.startswith(".tune-"):
            continue
        try:
            pid = int(name.split("-")[1])
            os.kill(pid, 0)
        except (ValueError, IndexError):
            continue
        except ProcessLookupError:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        except PermissionError:
            pass


def _in_process_builder_runner():
    """A MetaSchedule builder and runner that build and time candidates in this process."""
    import tvm
    from tvm.ir.utils import derived_object
    from tvm.s_tir.meta_schedule.builder import BuilderResult, PyBuilder
    from tvm.s_tir.meta_schedule.runner import EvaluatorConfig, PyRunner, RunnerFuture, RunnerResult
    from tvm.s_tir.meta_schedule.runner.utils import alloc_argument_common, run_evaluator_common
    built: dict = {}
    # Inputs of a timed candidate: random where TVM has its filler, else left as allocated.
    fill = tvm.get_global_func("tvm.contrib.random.random_fill_for_measure", allow_missing=True) or (lambda _: None)
    config = EvaluatorConfig(number=3, repeat=1, min_repeat_ms=20, enable_cpu_cache_flush=False)

    @derived_object
    class InProcessBuilder(PyBuilder):
        def build(self, build_inputs):
            from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock
            results = []
            for item in build_inputs:
                try:
                    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(item.mod)
                    key = f"fusescope-in-process:{len(built)}"
                    built[key] = tvm.compile(mod, target=item.target).jit()  # the runtime module
                    results.append(BuilderResult(key, None))
                except Exception as exc:
                    results.append(BuilderResult(None, f"{type(exc).__name__}: {exc}"))
            return results

    @derived_object
    class InProcessRunner(PyRunner):
        def run(self, runner_inputs):
            futures = []
            for item in runner_inputs:
                try:
                    rt_mod = built.pop(item.artifact_path)
                    device = tvm.device(str(item.device_type), 0)
                    args = alloc_argument_common(fill, device, [a.as_json() for a in item.args_info], 1)
                    result = RunnerResult(run_evaluator_common(rt_mod, device, config, args), None)
                except Exception as exc:
                    result = RunnerResult(None, f"{type(exc).__name__}: {exc}")
                futures.append(RunnerFuture(f_done=lambda: True, f_result=lambda r=result: r))
            return futures

    return InProcessBuilder(), InProcessRunner()


def tune(mod, target, settings: dict, progress) -> tuple:
    """Tune the PrimFuncs of `mod` (the relax_fuse_tir module) and return (module with the best
    schedules applied, info for the result). `progress(fraction, message)` reports."""
    import tvm
    from tvm import relax
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.schedule import Schedule, Trace
    trials = settings["trials"]
    start = time.perf_counter()
    tasks = ms.relax_integration.extract_tasks(mod, target)
    key = workload_key(tasks, target, trials)
    root = tvm_tuning_dir()
    final = os.path.join(root, key)
    records_path = os.path.join(final, "records.json")
    database = ms.database.MemoryDatabase()
    info = {"trials_requested": trials, "tasks": len(tasks), "key": key, "dir": final,
            "method": "MetaSchedule (evolutionary search, random cost model, in-process builder and runner)"}
    cached = None
    try:
        with open(records_path) as f:
            cached = json.load(f)
    except (OSError, ValueError):
        cached = None
    if cached and cached.get("format") == CACHE_FORMAT:
        progress(0.5, f"applying {len(cached['records'])} cached tuned schedule(s) ({key})")
        by_name = {t.task_name: t for t in tasks}
        for record in cached["records"]:
            task = by_name.get(record["task"])
            if task is None:
                continue
            task_mod = task.dispatched[0]
            sch = Schedule(task_mod)
            Trace.apply_json_to_schedule(record["trace"], sch)
            workload = database.commit_workload(task_mod)
            database.commit_tuning_record(ms.database.TuningRecord(
                sch.trace, workload, [tvm.runtime.convert(float(s)) for s in record["run_secs"]] or None,
                target, ms.arg_info.ArgInfo.from_prim_func(task_mod["main"])))
        info.update(cache="hit", trials=0, tuned_tasks=len(cached["records"]),
                    trials_when_tuned=cached.get("trials_done"))
    else:
        os.makedirs(root, exist_ok=True)
        _remove_stale(root)
        work = tempfile.mkdtemp(dir=root, prefix=f".tune-{os.getpid()}-")
        builder, runner = _in_process_builder_runner()
        contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(
            tasks, work, num_threads=1, seed=0)
        done, turn = 0, 0
        per_round = max(1, min(trials, 8))
        exhausted: set = set()
        # Rounds of at most 8 trials on one database, so a time cap is honoured between rounds, and
        # one task per round, in turn: each tune_tasks call starts a new task scheduler, which
        # gives its first trials to its first task, so rounds over every task would all have
        # tuned task 0 (measured: 64 trials, 1 of 4 kernels tuned). The evolutionary search of a
        # task's later rounds starts from its best records in the shared database.
        while done < trials:
            if settings["time_s"] is not None and time.perf_counter() - start >= settings["time_s"]:
                info["stopped_by"] = "tune_time"
                break
            live = [i for i in range(len(contexts)) if i not in exhausted]
            if not live:
                info["stopped_by"] = "search space exhausted"
                break
            index = live[turn % len(live)]
            turn += 1
            progress(done / trials, f"MetaSchedule: trials {done}/{trials}, task {tasks[index].task_name}")
            before = len(database.get_all_tuning_records())
            ms.tune_tasks(tasks=[contexts[index]], task_weights=[weights[index]], work_dir=work,
                          max_trials_global=min(per_round, trials - done), num_trials_per_iter=per_round,
                          builder=builder, runner=runner, database=database, cost_model="random",
                          measure_callbacks=[ms.measure_callback.AddToDatabase()])
            added = len(database.get_all_tuning_records()) - before
            if added <= 0:
                exhausted.add(index)
                continue
            done += added
        records = []
        for task in tasks:
            top = database.get_top_k(database.commit_workload(task.dispatched[0]), 1)
            if top and top[0].run_secs:
                records.append({"task": task.task_name,
                                "trace": _plain(top[0].trace.as_json(remove_postproc=False)),
                                "run_secs": [float(s) for s in top[0].run_secs]})
        _write_atomic(os.path.join(work, "records.json"),
                      {"format": CACHE_FORMAT, "key": key, "trials_done": done, "records": records})
        shutil.rmtree(final, ignore_errors=True)
        os.replace(work, final)  # complete: only now does the entry exist under its key
        info.update(cache="miss", trials=done, tuned_tasks=len(records))
    with target, database, tvm.transform.PassContext(opt_level=3):
        tuned = relax.transform.MetaScheduleApplyDatabase()(mod)
    info["tune_s"] = time.perf_counter() - start
    return tuned, info


def tuning_target():
    """llvm with `num-cores` (MetaSchedule's CPU rules need it): torch's intra-op thread count,
    the threads the worker measures with."""
    import torch
    import tvm
    return tvm.target.Target({"kind": "llvm", "num-cores": max(1, torch.get_num_threads())})


def note(info: dict) -> str:
    if info["cache"] == "hit":
        return (f"tvm tuned with MetaSchedule: schedules from the tuning cache ({info['tuned_tasks']} of "
                f"{info['tasks']} kernels, tuned earlier with tune={info['trials_requested']}; {info['dir']}); "
                f"applying them took {info['tune_s']:.2f} s, not counted in compile_s")
    stopped = f", stopped by {info['stopped_by']}" if info.get("stopped_by") else ""
    return (f"tvm tuned with MetaSchedule: {info['trials']} of {info['trials_requested']} trial(s){stopped}, "
            f"{info['tuned_tasks']} of {info['tasks']} kernels tuned, in {info['tune_s']:.2f} s (tune_s, "
            f"not counted in compile_s); cached in {info['dir']}")
