"""Notes a reader needs to read a run's numbers right (docs/protocol.md, result `notes`).

CUDA graphs: `reduce-overhead` (and `triton.cudagraphs`) ask Inductor to replay its kernels as
CUDA graphs. Inductor applies them only to graphs of CUDA kernels and silently skips the rest,
bumping `counters["inductor"]["cudagraph_skips"]`; on CUDA it also logs why on the `cudagraphs`
artifact logger. Without a note, `inductor@reduce-overhead` on cpu would read as a CUDA-graphs
result when it is Inductor's default compile.
"""
import logging

CUDAGRAPH_LOGGER = "torch._inductor.cudagraph_utils.__cudagraphs"


def wants_cudagraphs(backend: str, options: dict) -> bool:
    """Whether Inductor will try CUDA graphs: the mode's default, unless the options set
    triton.cudagraphs themselves."""
    if backend != "inductor":
        return False
    explicit = (options.get("inductor") or {}).get("triton.cudagraphs")
    if isinstance(explicit, bool):
        return explicit
    mode = options.get("mode")
    if not mode:
        return False
    from torch._inductor import list_mode_options  # torch's own table: reduce-overhead, max-autotune
    return bool(list_mode_options(mode).get("triton.cudagraphs", False))


class _Reasons(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        message = record.getMessage()
        if message not in self.messages:
            self.messages.append(message)


class CudagraphWatch:
    """Counts Inductor's CUDA-graph skips during a `with` block and keeps the reasons torch logs."""

    def __init__(self, device_type: str, what: str):
        self.device_type = device_type
        self.what = what  # "inductor@reduce-overhead"
        self.skips = 0
        self._reasons = _Reasons()
        self._start = 0
        self._stopped = False

    @staticmethod
    def _count() -> int:
        from torch._dynamo.utils import counters
        return int(counters["inductor"]["cudagraph_skips"])

    def __enter__(self):
        self._start = self._count()
        logging.getLogger(CUDAGRAPH_LOGGER).addHandler(self._reasons)
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        logging.getLogger(CUDAGRAPH_LOGGER).removeHandler(self._reasons)
        self.skips = self._count() - self._start

    def notes(self) -> list[str]:
        if self.device_type != "cuda":
            skipped = f" (Inductor skipped them for {self.skips} graph(s))" if self.skips else ""
            return [f"{self.what} on {self.device_type}: CUDA graphs apply only to CUDA kernels, so none were "
                    f"used{skipped}; these numbers are Inductor's compile without CUDA graphs"]
        if self.skips == 0:
            return []
        reasons = "; ".join(self._reasons.messages) or "torch logged no reason"
        return [f"{self.what}: Inductor skipped CUDA graphs for {self.skips} graph(s): {reasons}"]
