"""Exports of a Plan: the proposal appendix (xlsx) and NetBox import files.

This is the only hubplan package that imports openpyxl (an import contract in
``pyproject.toml``). It reads a Plan and never computes a planning figure.
"""

from .netbox import NETBOX_VERSION, write_netbox
from .style import AppendixStyle, load_style
from .summary import assumption_register, headline_figures
from .xlsx import SHEET_TABLES, build_appendix, save_atomic, sheet_name, write_appendix

__all__ = [
    "NETBOX_VERSION",
    "SHEET_TABLES",
    "AppendixStyle",
    "assumption_register",
    "build_appendix",
    "headline_figures",
    "load_style",
    "save_atomic",
    "sheet_name",
    "write_appendix",
    "write_netbox",
]
