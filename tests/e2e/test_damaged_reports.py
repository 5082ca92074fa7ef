"""Damaged and hostile reports through the real CLI (issue 11): every one is refused with a message
that names the file and the first bad field, or read with its repair said; none crashes or hangs
`show`, `show --json` or `export`. Fixtures: tests/fixtures/reports (make_damaged.py)."""
import json
import random
import subprocess

import pytest

from conftest import ROOT, cli_path

REPORTS = ROOT / "tests" / "fixtures" / "reports"
DAMAGED = REPORTS / "damaged"
EXPECTED = json.loads((DAMAGED / "expected.json").read_text())
EXIT_OK, EXIT_ERROR = 0, 1


def run(*args, timeout=60):
    proc = subprocess.run([cli_path(), *map(str, args)], capture_output=True, timeout=timeout)
    # A signal is a negative return code: never acceptable, whatever the input.
    assert proc.returncode >= 0, f"{args}: killed by signal {-proc.returncode}\n{proc.stderr[-2000:]!r}"
    return proc


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_damaged_report_is_refused_with_its_field_or_read(name, tmp_path):
    want = EXPECTED[name]
    path = DAMAGED / f"{name}.fscope"
    commands = [["show", path], ["show", path, "--json"],
                ["export", path, "--backend", "inductor", "--trace", "--out", tmp_path / "t.json"],
                ["export", path, "--backend", "inductor", "--stage", "post_fusion", "--out", tmp_path / "g.svg"]]
    for args in commands:
        proc = run(*args)
        err = proc.stderr.decode("utf-8")  # what we print is always valid UTF-8
        if want["refused"]:
            assert proc.returncode == EXIT_ERROR, (args, proc.returncode, err)
            assert path.name in err, err
            if want.get("path"):
                assert want["path"] in err, err
            assert "terminate called" not in err and "json.exception" not in err, err
        else:
            assert proc.returncode == EXIT_OK, (args, proc.returncode, err)
    if not want["refused"] and "utf8" in name:
        assert "U+FFFD" in run("show", path).stderr.decode()
        summary = json.loads(run("show", path, "--json").stdout)
        assert summary["backends"]


def _leaves(value, at=""):
    yield at
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{at}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):  # the first few elements of long arrays are enough
            yield from _leaves(v, f"{at}/{i}")


def _put(doc, pointer, literal):
    parts = pointer.split("/")[1:]
    target = doc
    for p in parts[:-1]:
        target = target[int(p)] if isinstance(target, list) else target[p]
    key = int(parts[-1]) if isinstance(target, list) else parts[-1]
    target[key] = "@@VALUE@@"
    return json.dumps(doc).replace('"@@VALUE@@"', literal, 1)


def test_mutated_reports_never_crash_show(tmp_path):
    """Leaves of a real report replaced by values of other types (a fixed sample, so a failure
    reproduces): `show` and `show --json` answer each with the table or a named refusal."""
    good = json.loads((REPORTS / "good.fscope").read_text())
    leaves = [p for p in _leaves(good) if p]
    rng = random.Random(11)
    sample = rng.sample(leaves, min(len(leaves), 90))
    literals = ["null", "true", "-1", "1e309", "\"x\"", "[]", "{}", "4294967297", "[[[1]]]"]
    out = tmp_path / "m.fscope"
    refused = accepted = 0
    for i, pointer in enumerate(sample):
        literal = literals[i % len(literals)]
        out.write_text(_put(json.loads(json.dumps(good)), pointer, literal))
        proc = run("show", out, *(["--json"] if i % 2 else []))
        err = proc.stderr.decode("utf-8")
        assert proc.returncode in (EXIT_OK, EXIT_ERROR), (pointer, literal, proc.returncode, err)
        if proc.returncode == EXIT_ERROR:
            refused += 1
            assert "m.fscope" in err, (pointer, literal, err)
        else:
            accepted += 1
    assert refused and accepted
