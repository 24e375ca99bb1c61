"""Small tables read and built column by column.

A control change on the workshop dashboard reruns most stages on tables of a few rows,
where pandas' per-row machinery (``to_dict(orient="records")``, ``iterrows``, building a
frame from many small ones) costs more than the planning itself. Stages read rows with
:func:`records` and build tables with :func:`frame`; both keep the values and dtypes the
row-wise pandas calls give.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def records(df: pd.DataFrame, columns: Sequence[str], rows=None) -> list[dict]:
    """Rows of a table as dicts of the named columns, with the Python scalars
    ``to_dict(orient="records")`` gives; ``rows`` a boolean mask of the rows to keep.

    >>> records(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), ["b", "a"], [False, True])
    [{'b': 'y', 'a': 2}]
    """
    columns = list(columns)
    mask = None if rows is None else np.asarray(rows, dtype=bool)
    values = []
    for c in columns:
        col = df[c].to_numpy()
        values.append((col if mask is None else col[mask]).tolist())
    return [dict(zip(columns, r, strict=True)) for r in zip(*values, strict=True)]


def frame(rows: list[dict], columns: Sequence[str]) -> pd.DataFrame:
    """A table from its rows, built column by column: the dtypes of
    ``pd.DataFrame(rows, columns=columns)``, which an empty table keeps.

    >>> frame([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}], ["b", "a"])
       b  a
    0  x  1
    1  y  2
    >>> frame([], ["a"]).columns.tolist()
    ['a']
    """
    columns = list(columns)
    if not rows:
        return pd.DataFrame(rows, columns=columns)
    return pd.DataFrame({c: [r[c] for r in rows] for c in columns})
