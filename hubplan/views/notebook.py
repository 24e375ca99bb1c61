"""One call at the top of every notebook: offline charts and readable tables."""

from __future__ import annotations

import pandas as pd

from . import charts


def setup() -> None:
    """Prepare a notebook session for hubplan.

    Charts render with no internet (vl-convert's bundled Vega, sent once per kernel), and
    pandas shows whole finding messages and wide plan tables instead of truncating them.
    """
    charts.enable_offline()
    pd.set_option("display.max_colwidth", 240)
    pd.set_option("display.max_columns", 40)
    pd.set_option("display.width", 200)
