"""The worker's error codes are docs/protocol.md's table ("Error codes"), and the worker writes
them only through fusescope_worker.errors (the C++ side checks its ErrorCode enum against the
same table in tests/core/ErrorCodeTest.cpp)."""
import re

from conftest import ROOT, WORKER_DIR
from fusescope_worker import errors

ROW = re.compile(r"^\|\s*`([a-z_]+)`\s*\|\s*([^|]+?)\s*\|.*\|\s*$")


def documented_codes() -> list[tuple[str, str]]:
    rows, in_section = [], False
    for line in (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_section = line == "## Error codes"
        match = ROW.match(line) if in_section else None
        if match:
            rows.append((match.group(1), match.group(2)))
    assert rows, "no error code table under '## Error codes' in docs/protocol.md"
    return rows


def test_the_constants_are_the_documented_table():
    rows = documented_codes()
    assert list(errors.ALL_CODES) == [code for code, _ in rows]
    assert list(errors.SENT_BY_WORKER) == [code for code, by in rows if by == "worker"]
    assert {by for _, by in rows} == {"worker", "C++"}
    assert errors.MODEL_ERRORS == {"model_not_found", "model_invalid", "model_failed"}


def test_every_constant_is_listed():
    constants = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, str)}
    assert constants == set(errors.ALL_CODES)


def test_no_code_is_written_as_a_literal():
    codes = "|".join(errors.ALL_CODES)
    literal = re.compile(rf"""["']({codes})["']""")
    found = []
    for path in sorted((WORKER_DIR / "fusescope_worker").rglob("*.py")):
        if path.name == "errors.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if literal.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "use the constants of fusescope_worker/errors.py:\n" + "\n".join(found)
