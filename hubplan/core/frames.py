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


#: A table's declared columns and their dtypes (``"str"``, ``"int64"``, ``"float64"``,
#: ``"bool"``, ``"object"``), in order: what a stage returns even when it has no rows.
Schema = dict[str, str]


def typed(rows: list[dict], schema: Schema) -> pd.DataFrame:
    """A table from its rows with the schema's columns, in order; with no rows, an empty
    table that still has every column, each of its declared dtype.

    A centre with no training job has an empty ``training`` table, and every later stage,
    view and export must still find its columns (``training["job"]``) and their kinds
    (``.str`` on a text column) there.

    >>> t = typed([], {"job": "str", "gpus": "int64"})
    >>> t.columns.tolist(), [str(d) for d in t.dtypes], len(t)
    (['job', 'gpus'], ['str', 'int64'], 0)
    >>> typed([{"gpus": 8, "job": "a"}], {"job": "str", "gpus": "int64"}).values.tolist()
    [['a', 8]]

    A row with a column the schema does not declare (or without one it does) is a
    programming error, never a column silently dropped:

    >>> typed([{"job": "a", "gpus": 8, "nodes": 1}], {"job": "str", "gpus": "int64"})
    Traceback (most recent call last):
    ...
    ValueError: rows do not match the table's schema: not declared ['nodes'], not produced []
    """
    if not rows:
        return empty(schema)
    extra = set(rows[0]) - set(schema)
    missing = set(schema) - set(rows[0])
    if extra or missing:  # a calculator and its table's schema drifted apart: say so
        raise ValueError(
            f"rows do not match the table's schema: not declared {sorted(extra)}, "
            f"not produced {sorted(missing)}"
        )
    return frame(rows, list(schema))


def empty(schema: Schema) -> pd.DataFrame:
    """An empty table with the schema's columns and dtypes.

    >>> [str(d) for d in empty({"a": "float64", "b": "bool"}).dtypes]
    ['float64', 'bool']
    """
    return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in schema.items()})


def with_schema(df: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """``df`` as it is when it has rows; its schema's empty table when it has none (a frame
    of no rows often has no columns either: ``pd.DataFrame([])``, ``pd.concat`` of none).

    >>> with_schema(pd.DataFrame(), {"a": "int64"}).columns.tolist()
    ['a']
    """
    return empty(schema) if df.empty else df
