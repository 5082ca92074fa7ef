"""Files Inductor writes into its debug directory when config.trace.enabled is set
(torch/_inductor/debug.py): the generated module and the kernel provenance mapping.

The mapping has to come from the file: Inductor keeps it in module globals that
compile_fx's reset_provenance_globals() restores when compilation returns.
"""
import json
import os

PROVENANCE_FILES = ("inductor_provenance_tracking_node_mappings.json",
                    "inductor_generated_kernel_to_post_grad_nodes.json")  # the latter: older torch
OUTPUT_CODE = "output_code.py"


def kernel_provenance(debug_dir: str | None) -> tuple[dict | None, str | None]:
    """`{kernel:handle: [post-grad node names]}` and the file it came from, or (None, why not)."""
    if not debug_dir:
        return None, "Inductor opened no debug directory for this graph"
    for name in PROVENANCE_FILES:
        path = os.path.join(debug_dir, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            mapping = data.get("cppCodeToPost", data) if isinstance(data, dict) else None
            if isinstance(mapping, dict):
                return {k: v for k, v in mapping.items() if isinstance(v, list)}, None
            return None, f"{path} has no kernel-to-node mapping"
    return None, f"Inductor wrote no kernel provenance file into {debug_dir}"


def output_code(debug_dir: str | None) -> str | None:
    if not debug_dir:
        return None
    path = os.path.join(debug_dir, OUTPUT_CODE)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()
