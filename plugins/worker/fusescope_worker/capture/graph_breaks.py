"""Graph breaks as Dynamo recorded them.

torch._dynamo.utils.graph_break_reasons holds a GraphCompileReason (reason text and the user
stack) for every break, including breaks that leave no graph behind them;
counters['graph_break'] counts breaks by message. Both are cleared by torch._dynamo.reset().

Where a break sits among the graphs: when a break ends a graph, Dynamo compiles the graph
traced so far and hands it to the backend with the break's GraphCompileReason as
`gm.compile_subgraph_reason` (torch/_dynamo/output_graph.py). The capture session keeps that
object and the number of breaks recorded before each graph, so each break gets `graph`: how many
graphs Dynamo had produced (run-wide, in backend order, the index the stages carry) when the
break happened, counting the graph it ended: the break sits after graph `graph - 1`.
"""
import os

import torch
from torch._dynamo import utils

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


def _user_frame(stack):
    """The innermost frame outside torch itself (a break inside a torch function traced inline
    belongs to the user line that called it); the innermost frame when all are torch's."""
    if not stack:
        return None
    for frame in reversed(stack):
        if not str(getattr(frame, "filename", "")).startswith(_TORCH_DIR):
            return frame
    return stack[-1]


def _graph_of(index: int, reason, graphs) -> int | None:
    """Graphs produced when break `index` (its position in graph_break_reasons) happened."""
    if graphs is None:
        return None
    for position, record in enumerate(graphs):
        if getattr(record, "break_reason", None) is reason:
            return position + 1  # the graph this break ended, and every one before it
    # A break that ended no graph (nothing traced before it in its frame): graphs begun before it.
    return sum(1 for record in graphs if getattr(record, "reasons_before", index + 1) <= index)


def summary(graphs=None) -> tuple[int, list[dict]]:
    """(break count, [{reason, detail, file, line, graph}]); `graphs` are the session's
    GraphRecords in index order (without them `graph` is null)."""
    reasons, seen = [], set()
    for index, reason in enumerate(list(getattr(utils, "graph_break_reasons", []))):
        text = (reason.reason or "").strip()
        frame = _user_frame(reason.user_stack)
        key = (text, getattr(frame, "filename", None), getattr(frame, "lineno", None))
        if key in seen:
            continue
        seen.add(key)
        reasons.append({"reason": text.splitlines()[0] if text else "graph break", "detail": text,
                        "file": key[1], "line": key[2], "graph": _graph_of(index, reason, graphs)})
    counted = sum(utils.counters["graph_break"].values())
    return max(counted, len(reasons)), reasons
