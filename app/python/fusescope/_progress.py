"""Progress while compare() runs: fusescope-cli's `--progress-json` lines drawn as a tqdm bar
(terminals and notebooks), or as plain lines on stderr when tqdm is not installed."""

from __future__ import annotations

import sys
import threading


class Progress:
    """Consumes the CLI's progress events (docs/cli.md, "Progress as JSON lines"); thread-safe."""

    def __init__(self, count: int, enabled: bool, unit: str = "backend"):
        self._lock = threading.Lock()
        self._enabled = enabled
        self._bar = None
        self._phase = None
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:  # the plain lines below
            return
        self._bar = tqdm(total=count, unit=unit, desc="fusescope", leave=True, dynamic_ncols=True)

    def event(self, ev: dict) -> None:
        with self._lock:
            kind = ev.get("event")
            backend = str(ev.get("backend", ""))
            count = ev.get("count")
            if not self._enabled:
                return
            if self._bar is not None:
                self._draw(kind, backend, count, ev)
            else:
                self._print(kind, backend, count, ev)

    def _draw(self, kind, backend, count, ev):
        bar = self._bar
        if isinstance(count, int) and count != bar.total:  # the assignment search added rows
            bar.total = count
        if kind == "started":
            bar.set_description(backend, refresh=False)
            bar.set_postfix_str("starting")
        elif kind == "progress":
            fraction = ev.get("fraction")
            pct = f" {fraction * 100:.0f}%" if isinstance(fraction, (int, float)) else ""
            bar.set_postfix_str(f"{ev.get('phase', '')}{pct}")
        elif kind == "finished":
            bar.set_postfix_str(str(ev.get("status", "")), refresh=False)
            bar.update(1)
            bar.write(f"{backend}: {_finished_line(ev)}", file=sys.stderr)

    def _print(self, kind, backend, count, ev):
        index = ev.get("index", 0)
        prefix = f"[{index + 1 if isinstance(index, int) else '?'}/{count}] {backend}"
        if kind == "started":
            self._phase = None
            print(f"{prefix}: starting", file=sys.stderr, flush=True)
        elif kind == "progress" and ev.get("phase") != self._phase:
            self._phase = ev.get("phase")
            print(f"{prefix}: {self._phase}", file=sys.stderr, flush=True)
        elif kind == "finished":
            print(f"{prefix}: {_finished_line(ev)}", file=sys.stderr, flush=True)

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None


def _finished_line(ev: dict) -> str:
    elapsed = ev.get("elapsed_s")
    took = f" after {elapsed:.1f} s" if isinstance(elapsed, (int, float)) else ""
    detail = ev.get("message") or ""
    return f"{ev.get('status', '')}{took}" + (f" - {detail}" if detail else "")
