"""Which scheduler nodes each generated kernel came from.

Inductor's provenance tracking (config.trace.provenance_tracking_level = 1) records, per kernel
launch, `name:handle -> [post-grad FX node names]`, where the handle counts launches in code
generation order. The kernel's node list is the union of `origins` of the scheduler nodes
generated into it. So we align the scheduler's final node order (the order code is generated
in) with the launches in handle order: an extern launch takes one extern node whose
origin_node (or origins) equals its record; a generated kernel takes a run of consecutive
nodes whose origins together equal its record exactly. On CPU one C++ kernel can span several
fused nodes (Inductor's C++ backend keeps appending nodes to a kernel until it must flush).

Every launch becomes a group with Inductor's own name and node list. When the alignment is
impossible or ambiguous, the stage says so in `warnings`; nothing is guessed silently.
"""
import sys
from functools import cache


def parse_entries(mapping: dict) -> list[dict]:
    entries = []
    for key, posts in mapping.items():
        name, _, handle = key.rpartition(":")
        if not name or not handle.isdigit():
            name, handle = key, "0"
        # Extern calls are `extern_kernels.mm` in Python wrappers, C shims `aoti_torch_cpu_mm_out`
        # in C++ ones (AOTInductor, cpp_wrapper).
        entries.append({"key": key, "name": name, "handle": int(handle), "posts": list(posts),
                        "extern": "." in name or name.startswith("aoti_torch_")})
    return sorted(entries, key=lambda e: e["handle"])


def _extern_matches(token: dict, entry: dict) -> bool:
    if not entry["extern"] or token["kind"] != "extern_kernel" or token["multi_output"]:
        return False
    wanted = {token["origin_node"]} if token["origin_node"] else token["origins"]
    return set(entry["posts"]) == wanted


def _align(tokens: list[dict], entries: list[dict]):
    """Assignment token index -> entry index (None: no launch of its own), and the number of
    alignments found (capped at 2: more than one means ambiguous)."""
    n, m = len(tokens), len(entries)
    matchable = [any(_extern_matches(t, e) for e in entries) for t in tokens]

    @cache
    def solve(i: int, j: int):
        if i == n:
            return (1, ()) if j == m else (0, ())
        token, total, best = tokens[i], 0, None
        choices = []
        if token["kind"] == "extern_kernel":
            if j < m and _extern_matches(token, entries[j]):
                choices.append((i + 1, j + 1, (j,)))
            if token["multi_output"] or not matchable[i]:
                choices.append((i + 1, j, (None,)))
        elif j < m and not entries[j]["extern"]:
            wanted, union, runs = set(entries[j]["posts"]), set(), []
            for k in range(i, n):
                if tokens[k]["kind"] not in ("scheduler_node", "template") or not tokens[k]["origins"] <= wanted:
                    break
                union |= tokens[k]["origins"]
                if union == wanted:
                    runs.append(k + 1)
            choices.extend((k, j + 1, (j,) * (k - i)) for k in reversed(runs))
        for next_i, next_j, assigned in choices:
            count, rest = solve(next_i, next_j)
            if count:
                total += count
                if best is None:
                    best = assigned + rest
            if total >= 2:
                break
        return (min(total, 2), best or ())

    # One recursion level per node: big models need more than Python's default depth.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * n + 1000))
    try:
        count, assignment = solve(0, 0)
    finally:
        sys.setrecursionlimit(limit)
        solve.cache_clear()
    return (list(assignment) if count else None), count


def _by_subset(tokens: list[dict], entries: list[dict]) -> list:
    """Fallback when no exact alignment exists: a node joins the only launch whose record
    contains all its origins; a node with several candidates joins none."""
    assignment = []
    for token in tokens:
        if token["kind"] == "extern_kernel":
            candidates = [j for j, e in enumerate(entries) if _extern_matches(token, e)]
        else:
            candidates = [j for j, e in enumerate(entries)
                          if not e["extern"] and token["origins"] and token["origins"] <= set(e["posts"])]
        assignment.append(candidates[0] if len(candidates) == 1 else None)
    return assignment


def kernel_groups(structure: list[dict], mapping: dict, producer: dict, code_name: str | None):
    """Groups (graph-schema.json) for the post-fusion stage, the group of each basic node, and
    warnings about what could not be matched."""
    entries = parse_entries(mapping)
    tokens = [t for t in structure if t["kind"] != "nop"]
    warnings = []
    assignment, count = _align(tokens, entries)
    if assignment is None:
        assignment = _by_subset(tokens, entries)
        warnings.append("the scheduler nodes could not be aligned exactly with Inductor's kernel provenance "
                        "records; nodes were assigned to the only kernel whose record contains all their "
                        "origins, and nodes with several candidates were left without a group")
    elif count > 1:
        warnings.append("more than one assignment of scheduler nodes to kernels fits Inductor's provenance "
                        "records; the first in code-generation order is shown")
    groups = [{"id": e["key"], "name": e["name"], "kind": "extern_kernel" if e["extern"] else "kernel",
               "nodes": [], "provenance": e["posts"], "code": code_name, "handle": e["handle"],
               "scheduler_nodes": []} for e in entries]
    node_group = {}
    for token, j in zip(tokens, assignment):
        if j is None:
            continue
        group = groups[j]
        if token["kind"] == "template":
            group["kind"] = "template"
        group["nodes"].extend(token["nodes"])
        group["scheduler_nodes"].append(token["name"])
        node_group.update({node: group["id"] for node in token["nodes"]})
    for token, j in zip(tokens, assignment):
        if j is not None:
            continue
        # A MultiOutput node only unpacks the tuple its extern call returned: same launch.
        owner = next((node_group.get(producer.get(buf)) for buf in token["reads"]
                      if node_group.get(producer.get(buf))), None) if token["multi_output"] else None
        if owner is not None:
            node_group.update({node: owner for node in token["nodes"]})
            next(g for g in groups if g["id"] == owner)["nodes"].extend(token["nodes"])
        else:
            warnings.append(f"scheduler node {token['name']} ({token['kind']}) matches no kernel in "
                            "Inductor's provenance records")
    for group in groups:
        if not group["nodes"]:
            warnings.append(f"kernel {group['id']} could not be matched to scheduler nodes")
    return groups, node_group, warnings

