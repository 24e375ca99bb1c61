"""Stage-agnostic core: errors, units, the label catalogue, findings, the hardware
catalogue, the scenario-section base and the stage record.

Core imports no stage, no view and no exporter (the import contract in
``pyproject.toml`` checks this on every ``make test``).
"""
