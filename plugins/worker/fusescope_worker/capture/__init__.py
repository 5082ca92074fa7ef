"""Stage capture (docs/worker.md): Dynamo graphs through a recording backend, AOTAutograd and
Inductor graphs through torch's own hooks, kernel names through Inductor's provenance files."""
