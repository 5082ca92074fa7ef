"""Graph breaks as Dynamo recorded them.

torch._dynamo.utils.graph_break_reasons holds a GraphCompileReason (reason text and the user
stack) for every break, including breaks that leave no graph behind them;
counters['graph_break'] counts breaks by message. Both are cleared by torch._dynamo.reset().
"""
from torch._dynamo import utils


def summary() -> tuple[int, list[dict]]:
    reasons, seen = [], set()
    for reason in list(getattr(utils, "graph_break_reasons", [])):
        text = (reason.reason or "").strip()
        frame = reason.user_stack[-1] if reason.user_stack else None
        key = (text, getattr(frame, "filename", None), getattr(frame, "lineno", None))
        if key in seen:
            continue
        seen.add(key)
        reasons.append({"reason": text.splitlines()[0] if text else "graph break", "detail": text,
                        "file": key[1], "line": key[2]})
    counted = sum(utils.counters["graph_break"].values())
    return max(counted, len(reasons)), reasons
