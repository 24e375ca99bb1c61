"""The ``hubplan`` command: commands that build a Plan and print it."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
