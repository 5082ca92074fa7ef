"""core/'s folders in one direction (docs/architecture.md, "Layers"): each folder may include its
own headers and those of the folders below it, never one above or beside it. Run by the ctest
entry core_layers; prints every offending include and exits 1."""
import pathlib
import re
import sys

# Lower rank = further down. Folders of one rank do not include each other.
RANK = {
    "model": 0,
    "codec": 1, "layout": 1,
    "files": 2,
    "report": 3, "trace": 3,
    "stream": 4,
    "analysis": 5,
    "capture": 6, "html": 6,
    "engine": 7, "import": 7,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z]+)/')


def main() -> int:
    core = pathlib.Path(__file__).resolve().parents[1] / "core"
    bad = []
    for path in sorted(core.rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        folder = path.relative_to(core).parts[0]
        if folder not in RANK:
            bad.append(f"core/{folder}: a folder without a rank in scripts/check_layers.py")
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) == folder or m.group(1) not in RANK:
                continue
            if RANK[m.group(1)] >= RANK[folder]:
                bad.append(f"{path.relative_to(core.parent)}:{number}: {folder}/ includes {m.group(1)}/ "
                           f"(rank {RANK[folder]} may include only lower ranks)")
    for line in dict.fromkeys(bad):
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
