"""Sweeps: many models x backend sets x settings, each job one `fusescope-cli compare` in its own
process, run on this machine or on a Ray cluster (docs/sweeps.md). `fusescope-cli sweep` starts
`python -m fusescope_sweep`, reads its JSON-lines events and writes DIR/suite.json."""
