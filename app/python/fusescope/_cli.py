"""Finding fusescope-cli and the GUI, and running the CLI (docs/python.md, "Finding fusescope-cli")."""

from __future__ import annotations

import os
import pathlib
import shutil

from .errors import CliNotFoundError

_HOW_TO_GET_IT = (
    "build it from a FuseScope checkout with `scripts/setup.sh build` and set "
    "FUSESCOPE_CLI=<checkout>/build/dev/app/cli/fusescope-cli, or install the fusescope .deb "
    "(docs/packaging.md), which puts fusescope-cli on PATH"
)


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_cli(explicit: str | os.PathLike | None = None) -> str:
    """The fusescope-cli to run: ``explicit``, then FUSESCOPE_CLI, then PATH."""
    for source, candidate in (("cli=", explicit), ("FUSESCOPE_CLI", os.environ.get("FUSESCOPE_CLI"))):
        if candidate:
            path = os.path.abspath(os.path.expanduser(os.fspath(candidate)))
            if not _executable(path):
                raise CliNotFoundError(f"{source} names {path}, which is not an executable file; {_HOW_TO_GET_IT}")
            return path
    found = shutil.which("fusescope-cli")
    if found:
        return found
    raise CliNotFoundError(f"fusescope-cli is not set in FUSESCOPE_CLI and not on PATH; {_HOW_TO_GET_IT}")


def find_gui(cli: str) -> str:
    """The desktop binary: FUSESCOPE_GUI, beside fusescope-cli (an install, or a build tree), then PATH."""
    explicit = os.environ.get("FUSESCOPE_GUI")
    if explicit:
        path = os.path.abspath(os.path.expanduser(explicit))
        if not _executable(path):
            raise CliNotFoundError(f"FUSESCOPE_GUI names {path}, which is not an executable file")
        return path
    here = pathlib.Path(cli).resolve().parent
    for candidate in (here / "fusescope", here.parent / "gui" / "fusescope"):
        if _executable(str(candidate)):
            return str(candidate)
    found = shutil.which("fusescope")
    if found:
        return found
    raise CliNotFoundError(
        f"the FuseScope GUI (fusescope) is not beside {cli}, not in FUSESCOPE_GUI and not on PATH; "
        "`fusescope-cli show REPORT` or `fusescope-cli export REPORT --html FILE` show a report without it"
    )


def last_lines(text: str, count: int = 8) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-count:])
