"""The proposal appendix as an xlsx workbook, read from a Plan.

One sheet per table (the four every proposal carries first: equipment list, IP plan,
power allocation, port map; then the compute inventory and the other stages' sizing
tables), each an Excel table with a unique name, headers with units and number formats
from the label catalogue, a frozen header row, widths, and a landscape print set-up that
fits the width and repeats the header. The Summary sheet carries the headline figures,
the findings and the assumption register. The power allocation's device count, device
power, allocated power, headroom and status are live formulas over the rack layout.

The cost sheets (capex by line, opex per year, cash flow and NPV) and the equipment list,
when the cost stage has priced it (``cost_equipment``), write their amounts as live
formulas: quantity × unit price, the discount factor 1 ÷ (1 + r)^year and amount ×
factor (HM Treasury Green Book, Annex 6), each CNY twin as the USD cell × the plan's
rate, and a total row (the last row of the table) that sums the priced lines and says
how many unpriced ones it leaves out. An unpriced line shows "unpriced", never 0. A
formula is written only where its arithmetic gives the plan's figure; elsewhere (energy:
kW × PUE × hours × tariff) the plan's value stands.

The delivery sheets follow the cost sheets: the schedule, whose start days, end days,
slack, critical flags, dates and phase spans are the critical-path method as formulas, the
phase acceptance criteria, and the acceptance tests, whose pass floor is expected × floor
share.

A table longer than a sheet (:data:`MAX_SHEET_ROWS`) runs over continued sheets
(:func:`sheet_parts`, "Port map (2)"), each with the header, a note at the foot of each but
the last; a formula sheet that would not fit is written as values.

On paper (:func:`_page_setup`, :func:`_layout`): A4 or letter landscape with the style's
margins, the header row on every page, fit to the width. A header row is as tall as its
wrapped labels (:func:`line_count`: greedy wrap with estimated character widths, a CJK
character two); long text columns narrow and wrap (each row as tall as its longest cell)
so a sheet keeps ``print.min_scale_pct``, and a sheet with more columns than that allows
prints over several pages across, its first column repeated. A table longer than a page
at the body font prints at ``print.compact_font_size`` in one-line rows.

Large plans (more than :data:`WRITE_ONLY_ROWS` rows in all) are written in openpyxl's
write-only mode: rows stream to disk, tables get their column names by hand (openpyxl
"Worksheet Tables": in write-only mode column headings must be added manually), and
freeze panes and widths are set before the first row.

Text from users (names, descriptions) that starts with ``=``, ``+``, ``-`` or ``@`` is
written as text with Excel's quote prefix, never as a formula (OWASP ASVS 1.2.10).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
import unicodedata
import warnings
from copy import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from openpyxl import Workbook
from openpyxl.cell import Cell
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.utils.indexed_list import IndexedList
from openpyxl.worksheet.filters import AutoFilter
from openpyxl.worksheet.page import PageMargins
from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.worksheet.table import Table, TableColumn, TableStyleInfo

from ..core.errors import HubplanError
from ..core.files import atomic_path, check_target
from ..core.labels import catalog as label_catalog
from ..core.labels import (
    column_label,
    column_value_label,
    label,
    localize,
    normalize_language,
    unit,
)
from ..views.render import findings_table
from .style import AppendixStyle, load_style
from .summary import assumption_register, headline_figures

#: Tables written as sheets, in order: the four every proposal carries, the compute
#: inventory, the cost sheets, the delivery schedule and acceptance, then the other
#: stages' sizing tables. (Chart series such as
#: ``training_curve`` and ``hot_fill`` stay in the notebooks.)
SHEET_TABLES: tuple[str, ...] = (
    "equipment_list",
    "ip_plan",
    "power_allocation",
    "port_map",
    "compute_inventory",
    "cost_capex",
    "cost_opex",
    "cost_cashflow",
    "schedule",
    "phase_acceptance",
    "acceptance",
    "rack_layout",
    "racks",
    "power_on_sequence",
    "cooling",
    "facility_power",
    "training",
    "training_memory",
    "inference",
    "pool_demand",
    "pools",
    "candidates",
    "compute_claims",
    "server_checks",
    "storage_tiers",
    "storage_content",
    "storage_bandwidth",
    "checkpoint_plan",
    "failure_breakdown",
    "storage_dr",
    "storage_nodes",
    "switches",
    "fabric",
    "transceivers",
    "port_use",
    "rdma_settings",
    "latency_budget",
)

#: The cost sheets (and the equipment list when the cost stage has priced it): amounts
#: are live formulas and the last row of the table is their total.
COST_SHEETS = ("cost_capex", "cost_opex", "cost_cashflow", "equipment_list")

#: The delivery sheets with live formulas: the schedule (a task's start = the latest end
#: of the tasks it depends on, end = start + duration + buffer, slack, dates, and each
#: phase's span) and the acceptance tests (floor = expected × floor share).
DELIVERY_SHEETS = ("schedule", "acceptance")

#: Above this many rows in all, the workbook is written in write-only (streaming) mode.
WRITE_ONLY_ROWS = 20_000

#: Rows a worksheet holds, its header row included: 1,048,576 in Excel ("Excel
#: specifications and limits", Microsoft Support: "1,048,576 rows by 16,384 columns") and
#: in LibreOffice Calc, whose default stayed at 1,048,576 rows when its columns grew to
#: 16,384 in 7.4 (L. Luňák, "Enabling Calc support for 16384 columns by default", 2022).
#: A table with more rows runs over continued sheets (:func:`sheet_parts`). A module
#: constant so that a test can lower it.
MAX_SHEET_ROWS = 1_048_576

#: Arguments an Excel function takes at most (Excel specifications and limits: 255); a
#: formula that would need more is written as the plan's value.
_MAX_ARGUMENTS = 255

#: Leading characters that make Excel or LibreOffice read text as a formula
#: (OWASP ASVS 1.2.10; tab and CR/LF start DDE payloads in CSV).
INJECTION_PREFIXES = ("=", "+", "-", "@", "\t", "\r", "\n")

MAX_SHEET_NAME = 31  # Excel's limit on a sheet name
_WIDTH_SAMPLE = 500  # rows looked at to size a column
_MAX_WIDTH = 60


def sheet_name(table: str, lang: str) -> str:
    """The sheet name for a table in ``lang`` (at most 31 characters, Excel's limit).

    >>> sheet_name("power_allocation", "zh"), sheet_name("port_map", "en")
    ('功率分配表', 'Port map')
    """
    key = f"sheet.{table}"
    text = label(key, lang) if key in label_catalog().index else table
    for ch in "[]:*?/\\":
        text = text.replace(ch, " ")
    return text[:MAX_SHEET_NAME]


def table_display_name(table: str) -> str:
    """The Excel table (ListObject) name: ASCII, no spaces, unique per table key.

    >>> table_display_name("port_map")
    'tbl_port_map'
    """
    return f"tbl_{table}"


def display_width(text: str) -> int:
    """Display width of ``text``: CJK characters take two columns.

    >>> display_width("功率 kW")
    7
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def is_injection(value: object) -> bool:
    """Whether a text value would start a formula in a spreadsheet.

    >>> is_injection("=HYPERLINK(1)"), is_injection("-3"), is_injection("train-0001")
    (True, True, False)
    """
    return isinstance(value, str) and value.startswith(INJECTION_PREFIXES)


def _excel_format(key: str) -> str | None:
    cat = label_catalog()
    if key not in cat.index:
        return None
    fmt = cat.loc[key, "excel_format"]
    return fmt if fmt and fmt not in ("@", "General") else None


def _cell_values(series: pd.Series) -> list:
    """Python values for cells: NaN/NA → None, numpy scalars → Python, containers → text."""
    if pd.api.types.is_bool_dtype(series):
        return series.tolist()
    if pd.api.types.is_datetime64_any_dtype(series):  # a date cell, not its text
        return [None if pd.isna(v) else v.to_pydatetime() for v in series.tolist()]
    if pd.api.types.is_numeric_dtype(series):
        values = series.astype(object).where(series.notna(), None).tolist()
        return [None if isinstance(v, float) and math.isnan(v) else v for v in values]
    values = series.astype(object).where(series.notna(), None).tolist()
    out = []
    for v in values:
        if v is None or isinstance(v, str | bool | int | float):
            out.append(v)
        elif isinstance(v, np.generic):
            out.append(v.item())
        else:
            out.append(str(v))
    return out


@dataclass
class _Column:
    key: str
    header: str
    cells: list
    number_format: str | None = None
    formula: bool = False
    right: bool = False  # right-aligned (a money column whose "unpriced" is text)


@dataclass
class _Writer:
    """Appends rows to a sheet in either mode and keeps the row count."""

    wb: Workbook
    ws: Any
    style: AppendixStyle
    lang: str
    write_only: bool
    row: int = 0
    tables: list[str] = field(default_factory=list)
    layout: _Layout | None = None  # a table sheet's print layout (set before its rows)

    @property
    def font_size(self) -> float:
        return self.layout.font_size if self.layout else self.style.font_size

    def font(self, **kw) -> Font:
        return Font(name=self.style.font(self.lang), size=self.font_size, **kw)

    def styled(self, value, *, number_format=None, font=None, fill=None, align=None) -> Cell:
        cell = Cell(self.ws, row=1, column=1, value=value)
        if number_format:
            cell.number_format = number_format
        if font is not None:
            cell.font = font
        if fill is not None:
            cell.fill = fill
        if align is not None:
            cell.alignment = align
        return cell

    def text(self, value: str, **kw) -> Cell:
        """A text cell that stays text: a leading ``=`` ``+`` ``-`` ``@`` gets the quote
        prefix instead of becoming a formula."""
        cell = self.styled(value, **kw)
        if is_injection(value):
            cell.data_type = "s"
            cell.quotePrefix = True
        return cell

    def append(self, values: list) -> None:
        self.ws.append(values)
        self.row += 1

    def header_cells(self, headers: list[str]) -> list[Cell]:
        s = self.style
        font = self.font(bold=s.header_bold, color=s.header_font_color)
        fill = PatternFill("solid", fgColor=s.header_fill)
        align = Alignment(wrap_text=True, vertical="center")
        return [self.text(h, font=font, fill=fill, align=align) for h in headers]

    def table(self, name: str, columns: list[_Column]) -> str:
        """Write a header row and the data rows of ``columns`` as one Excel table."""
        headers = _unique([c.header for c in columns])
        lay = self.layout
        if lay is not None:  # tall enough for the wrapped header (bold)
            lines = max(
                (
                    line_count(h, w, _BOLD * lay.font_size / self.style.font_size)
                    for h, w in zip(headers, lay.widths, strict=False)
                ),
                default=1,
            )
            # 3 pt: the header's text sits clear of a top-aligned first row
            self.ws.row_dimensions[self.row + 1].height = lay.row_height(lines, 3)
        self.append(self.header_cells(headers))
        first = self.row
        n = len(columns[0].cells) if columns else 0
        small = self.font() if lay is not None and lay.compact else None
        wraps = lay.wrap if lay is not None else [False] * len(columns)
        top = any(wraps)  # a row of wrapped text reads from its top
        kinds = []
        for c, wrap in zip(columns, wraps, strict=True):
            if c.formula or c.number_format or small is not None or top:
                tmpl = Cell(self.ws, row=1, column=1)
                if c.number_format:
                    tmpl.number_format = c.number_format
                if c.right or wrap or top:
                    tmpl.alignment = Alignment(
                        horizontal="right" if c.right else None,
                        wrap_text=wrap or None,
                        vertical="top" if top else None,
                    )
                if small is not None:
                    tmpl.font = small
                guard = not c.formula and any(is_injection(v) for v in c.cells)
                kinds.append(("guarded" if guard else "cell", tmpl))
            elif any(is_injection(v) for v in c.cells):
                kinds.append(("text", None))
            else:
                kinds.append(("plain", None))
        special = [(j, k, t) for j, (k, t) in enumerate(kinds) if k != "plain"]
        wrapped = [
            (j, lay.widths[j], lay.font_size / self.style.font_size)
            for j, wr in enumerate(wraps)
            if wr
        ]
        for values in zip(*(c.cells for c in columns), strict=True):
            row = list(values)
            if wrapped:  # a row with wrapped text is as tall as its longest cell
                lines = max(
                    line_count(row[j], w, r) if isinstance(row[j], str) else 1
                    for j, w, r in wrapped
                )
                if lines > 1:
                    self.ws.row_dimensions[self.row + 1].height = lay.row_height(lines)
            for j, kind, tmpl in special:
                v = row[j]
                if v is None:
                    continue
                if kind == "text" or (kind == "guarded" and is_injection(v)):
                    if is_injection(v):
                        align = copy(tmpl.alignment) if tmpl else None
                        row[j] = self.text(v, font=small, align=align)
                elif self.write_only:  # streamed at once: one styled cell per column will do
                    tmpl.value = v
                    row[j] = tmpl
                else:
                    cell = Cell(self.ws, row=1, column=1, value=v)
                    cell._style = copy(tmpl._style)
                    row[j] = cell
            self.append(row)
        last = max(self.row, first + 1)
        if n == 0:
            self.append([])
        ref = f"A{first}:{get_column_letter(len(columns))}{last}"
        tab = Table(
            displayName=name,
            ref=ref,
            tableColumns=[TableColumn(id=i + 1, name=h) for i, h in enumerate(headers)],
            autoFilter=AutoFilter(ref=ref),
            tableStyleInfo=TableStyleInfo(name=self.style.table_style, showRowStripes=True),
        )
        with warnings.catch_warnings():
            # the column names above are the header cells, as write-only mode requires
            warnings.filterwarnings("ignore", "In write-only mode you must add table columns")
            self.ws.add_table(tab)
        self.tables.append(name)
        return ref


def _unique(headers: list[str]) -> list[str]:
    """Excel table column names must be unique: a repeated header gets ' (2)', ' (3)'."""
    seen: dict[str, int] = {}
    out = []
    for h in headers:
        h = h or "-"
        n = seen.get(h, 0) + 1
        seen[h] = n
        out.append(h if n == 1 else f"{h} ({n})")
    return out


def _widths(columns: list[_Column], ratio: float = 1.0) -> list[float]:
    """Each column's natural width in characters of the body font: its longest value (of
    the first :data:`_WIDTH_SAMPLE`) or its header's longest word, whichever is wider.
    ``ratio`` is the table's font size over the workbook's (Excel measures widths in the
    workbook font's digits, so 8-pt text takes 0.8 of a 10-pt column)."""
    out = []
    for c in columns:
        sample = [v for v in c.cells[:_WIDTH_SAMPLE] if v is not None]
        longest = max((display_width(_shown(v)) for v in sample), default=0)
        header = max((display_width(t) for t in _tokens(c.header)), default=0) * _BOLD
        out.append(min(_MAX_WIDTH, max(8, math.ceil(ratio * max(longest, header)) + 2)))
    return out


#: Bold text is this much wider than regular (header cells are bold).
_BOLD = 1.1
#: One line of text is this many times the font size tall. English: DejaVu Sans
#: (LibreOffice's stand-in for Calibri where Carlito is missing) spans 0.928 + 0.236 =
#: 1.164 em, Calibri 0.75 + 0.25 + line gap 0.22 = 1.22 em; 1.3 leaves a hair between
#: rows. Chinese: Noto Sans CJK (the stand-in for Microsoft YaHei) spans ascender 1160 +
#: descender 288 of 1000 units (its hhea table), 1.448 em; a row any less lets a
#: Chinese line rise into the row above (seen in LibreOffice's PDF at 1.3 em).
LINE_EM = {"en": 1.3, "zh": 1.45}
_PT_PER_MM = 72 / 25.4
#: Points per unit of column width at 100 % when the workbook font is 10 pt, as
#: LibreOffice prints it (the renderer `make test` prints with): the digit of its
#: stand-in for Calibri, DejaVu Sans, 0.636 em = 6.36 pt; measured in its PDF of the
#: appendix, a 19-unit column 120.7 pt wide at 100 %. Excel's unit is Calibri's digit,
#: 0.507 em, so a sheet sized for LibreOffice prints at a larger scale in Excel.
_PT_PER_WIDTH_10PT = 6.35
_CJK = "WF"


def _tokens(text: str) -> list[str]:
    """The pieces a line may break between: words, and each CJK character on its own
    (Chinese breaks between any two characters)."""
    out = []
    for word in str(text).split():
        run = ""
        for ch in word:
            if unicodedata.east_asian_width(ch) in _CJK:
                if run:
                    out.append(run)
                    run = ""
                out.append(ch)
            else:
                run += ch
        if run:
            out.append(run)
    return out


_NARROW = frozenset(" iljtfr.,:;'|!()[]/-`")
_WIDE = frozenset("MW@%mw")


def text_width(text: str) -> float:
    """Estimated width of ``text`` in column-width units (the digit of the workbook font):
    a CJK character 2, narrow letters and punctuation 0.6, m and w 1.5, other capitals
    1.15, other lower-case letters 0.95, digits 1. From DejaVu Sans's advance widths, the
    font LibreOffice prints Calibri with here and the wider of the two: digit 0.636 em,
    i/l 0.28, t/r/f 0.35-0.41, a/e/n/o 0.61-0.63, capitals ~0.7, m 0.97, W 0.99 em
    (Calibri's are narrower for its 0.507-em digit: lower-case ~0.45 em). Checked on the
    appendix's PDF: lines LibreOffice wrapped in a 60-unit column of 8-pt text measure
    54-56 units here, scaled by 0.8.

    >>> text_width("rail1"), text_width("设备")
    (3.75, 4.0)
    """
    w = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in _CJK:
            w += 2.0
        elif ch in _NARROW:
            w += 0.6
        elif ch in _WIDE:
            w += 1.5
        elif ch.isupper():
            w += 1.15
        elif ch.isdigit():
            w += 1.0
        else:
            w += 0.95
    return round(w, 2)


def _pieces(text: str):
    """(piece, follows a space) for each place a line may break: between words, after a
    hyphen or slash inside one (how LibreOffice and Excel break a URL), and on each side
    of a CJK character."""
    for word in str(text).split():
        first = True
        for part in _tokens(word):
            for bit in re.findall(r"[^-/]+[-/]*|[-/]+", part) or [part]:
                yield bit, first
                first = False


def line_count(text: str, width: float, scale: float = 1.0) -> int:
    """Lines ``text`` wraps to in a column ``width`` characters wide, each character
    ``scale`` wide (font size ratio, times :data:`_BOLD` for bold): greedy wrap at the
    break points of :func:`_pieces`, a piece longer than the line broken where it must.
    One and a half characters of the width are the cell's padding and a margin.

    >>> line_count("Partition key (P_Key)", 12)
    2
    >>> line_count("分区键 (P_Key)", 6)
    4
    >>> line_count("luxoptx.com/blogs/news/800g-optical", 12)  # 10.55 | 5.0 + 4.95 | 4.55 + 5.6
    3
    """
    room = max(1.0, width - 1.5)
    lines, used = 1, 0.0
    for piece, spaced in _pieces(text):
        w = text_width(piece) * scale
        gap = 0.55 * scale if spaced and used else 0.0
        if used and used + gap + w > room:
            lines, used, gap = lines + 1, 0.0, 0.0
        while w > room:  # a piece wider than the column breaks where it must
            w -= room - used
            lines, used = lines + 1, 0.0
        used += gap + w
    return lines


@dataclass(frozen=True)
class _Layout:
    """How a table sheet prints: its font size, column widths, which columns wrap, how
    many pages across."""

    font_size: float
    widths: list[float]
    wrap: list[bool]
    compact: bool
    pages_wide: int = 1
    line_em: float = LINE_EM["zh"]

    def row_height(self, lines: int = 1, pad_pt: float | None = None) -> float:
        """Points: ``lines`` lines of the body font and ``pad_pt`` (default: none for one
        line, so a compact page holds the most rows; 2 pt for wrapped text)."""
        pad = (2 if lines > 1 else 0) if pad_pt is None else pad_pt
        return round(lines * self.font_size * self.line_em + pad, 2)


def page_lines(style: AppendixStyle, font_size: float, lang: str = "en") -> int:
    """Lines of text a landscape page holds at 100 % (fit-to-width only ever shrinks, so
    a narrower sheet holds more): the paper's short side less two margins over one line.

    >>> from hubplan.export.style import load_style
    >>> page_lines(load_style(), 10), page_lines(load_style(), 8)  # 549.9 pt / 13, / 10.4
    (42, 52)
    """
    short_mm = 210.0 if style.paper_size == 9 else 215.9  # A4, US letter (ISO 216; ANSI)
    body_pt = (short_mm - 2 * style.margin_mm) * _PT_PER_MM
    return int(body_pt // (font_size * LINE_EM[lang]))


def _layout(
    columns: list[_Column], style: AppendixStyle, lang: str, *, compact: bool | None = None
) -> _Layout:
    """The print layout of a table: compact (``style.compact_font_size``) when it runs
    past a page at the body font; columns as wide as their values, the longest text ones
    narrowed (and wrapped) until fit-to-width keeps ``style.min_scale_pct``."""
    n = len(columns[0].cells) if columns else 0
    lines_page = page_lines(style, style.font_size, lang)
    if compact is None:
        if n >= lines_page:
            compact = True
        else:  # short enough to look at every row: does its wrapped text run past a page?
            lay = _layout(columns, style, lang, compact=False)
            compact = _lines(columns, lay, style.font_size) > lines_page
            if not compact:
                return lay
    size = style.compact_font_size if compact else style.font_size
    ratio = size / style.font_size
    widths = _widths(columns, ratio)
    budget = _page_width(style) * 100 / style.min_scale_pct  # width units at that scale
    # the narrowest a column may get: numbers do not wrap; text down to 24 characters (a
    # readable line of a wrapped source: ~30 characters in LibreOffice) or
    # its header's longest word
    floors = [
        w
        if c.number_format or c.formula or not _is_text(c)
        else min(
            w,
            max(
                24,
                math.ceil(
                    ratio * _BOLD * max((display_width(t) for t in _tokens(c.header)), default=0)
                )
                + 2,
            ),
        )
        for w, c in zip(widths, columns, strict=True)
    ]
    # as many pages across as the narrowest columns need (one, unless a table has more
    # columns than a page holds at that scale), then the text columns share what is left
    pages = 1
    while sum(floors) > _room(pages, budget, floors) + 1e-9:
        pages += 1
    if sum(widths) > _room(pages, budget, floors):
        widths = _share(widths, floors, columns, _room(pages, budget, floors))
    wrap = _wraps(columns, widths, ratio)
    page = _page_width(style)
    if any(wrap) and sum(widths) < page:  # wrapped text may widen to the page at 100 %
        full = [
            max(
                w,
                math.ceil(
                    ratio
                    * max(
                        (text_width(v) for v in c.cells[:_WIDTH_SAMPLE] if isinstance(v, str)),
                        default=0,
                    )
                )
                + 2,
            )
            if wr
            else w
            for c, w, wr in zip(columns, widths, wrap, strict=True)
        ]
        widths = _share(full, widths, columns, page)
        wrap = _wraps(columns, widths, ratio)
    return _Layout(size, widths, wrap, compact, pages, LINE_EM[lang])


def _room(pages: int, budget: float, floors: list[float]) -> float:
    """Width units ``pages`` pages across hold for a table's columns: each page ``budget``,
    less, on every page after the first, the first column printed again and the widest
    column that a page break may push whole to the next page (columns are never split)."""
    if pages <= 1 or not floors:
        return budget
    return pages * budget - (pages - 1) * (floors[0] + max(floors))


def _wraps(columns: list[_Column], widths: list[float], ratio: float) -> list[bool]:
    """Which text columns hold a value longer than one line."""
    return [
        _is_text(c)
        and any(line_count(v, w, ratio) > 1 for v in c.cells[:_WIDTH_SAMPLE] if isinstance(v, str))
        for c, w in zip(columns, widths, strict=True)
    ]


def _share(
    widths: list[float], floors: list[float], columns: list[_Column], budget: float
) -> list[float]:
    """Narrow the text columns to fit ``budget``: each keeps its floor, and the width left
    goes to them in proportion to the text they hold (the most text, the most width, so
    the wrapped rows stay few), none wider than it needs."""
    demand = [
        sum(text_width(v) for v in c.cells[:_WIDTH_SAMPLE] if isinstance(v, str)) if f < w else 0.0
        for c, w, f in zip(columns, widths, floors, strict=True)
    ]
    out = list(floors)
    free = budget - sum(out)
    open_ = [i for i, d in enumerate(demand) if d > 0]
    while free > 0.5 and open_:
        total = sum(demand[i] for i in open_)
        grant = {i: free * demand[i] / total for i in open_}
        free = 0.0
        for i in list(open_):
            room = widths[i] - out[i]
            if grant[i] >= room:  # needs less than its share: the rest goes round again
                out[i], free = widths[i], free + grant[i] - room
                open_.remove(i)
            else:
                out[i] += grant[i]
    return [math.floor(w) for w in out]


def _lines(columns: list[_Column], lay: _Layout, base_size: float) -> int:
    """Lines a table prints to: its header and each row at its wrapped height."""
    ratio = lay.font_size / base_size
    head = max(
        (line_count(c.header, w, _BOLD * ratio) for c, w in zip(columns, lay.widths, strict=True)),
        default=1,
    )
    cols = [(c.cells, w) for c, w, wr in zip(columns, lay.widths, lay.wrap, strict=True) if wr]
    n = len(columns[0].cells) if columns else 0
    body = sum(
        max(
            (
                line_count(cells[i], w, ratio) if isinstance(cells[i], str) else 1
                for cells, w in cols
            ),
            default=1,
        )
        for i in range(n)
    )
    return head + body


def _is_text(c: _Column) -> bool:
    return not (c.formula or c.number_format) and any(
        isinstance(v, str) for v in c.cells[:_WIDTH_SAMPLE]
    )


def _page_width(style: AppendixStyle) -> float:
    """Printable width of a landscape page in column-width units at 100 %."""
    long_mm = 297.0 if style.paper_size == 9 else 279.4
    return (
        (long_mm - 2 * style.margin_mm) * _PT_PER_MM / _PT_PER_WIDTH_10PT * (10 / style.font_size)
    )


def _shown(v: object) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def _table_columns(df: pd.DataFrame, lang: str) -> list[_Column]:
    """Columns of a plan table: keys, localized headers with units, localized values."""
    shown = localize(df, lang)
    keys = [c for c in df.columns if not (c.endswith("_zh") and c[:-3] in df.columns)]
    return [
        _Column(key, header, _cell_values(shown[header]), _excel_format(key))
        for key, header in zip(keys, shown.columns, strict=True)
    ]


def _page_setup(
    ws,
    style: AppendixStyle,
    lang: str,
    title: str,
    repeat_header: bool,
    layout: _Layout | None = None,
) -> None:
    """Landscape on the style's paper, fit to the page's width (or ``layout.pages_wide``
    pages, the first column repeated on each), any number of pages down, the header row on
    every page, the style's margins, the company and sheet in the page header and the
    page number in the footer."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = style.paper_size
    ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
    ws.page_setup.fitToWidth = layout.pages_wide if layout else 1
    ws.page_setup.fitToHeight = 0
    if repeat_header:
        ws.print_title_rows = "1:1"
    if layout is not None and layout.pages_wide > 1:
        ws.print_title_cols = "A:A"
    m, h = style.margin_mm / 25.4, style.header_mm / 25.4  # openpyxl takes inches
    ws.page_margins = PageMargins(left=m, right=m, top=m, bottom=m, header=h, footer=h)
    ws.oddHeader.left.text = style.company
    ws.oddHeader.right.text = title
    ws.oddFooter.center.text = label("xlsx.footer", lang)


def _sheet_format(ws, layout: _Layout) -> None:
    """Column widths and the body row height of a table sheet: before its first row (a
    write-only sheet writes them then)."""
    _set_widths(ws, layout.widths)
    ws.sheet_format.defaultRowHeight = layout.row_height()
    ws.sheet_format.customHeight = True


def _set_widths(ws, widths: list[float]) -> None:
    for i, w in enumerate(widths, 1):
        ws.column_dimensions[get_column_letter(i)].width = w


# -- power allocation -----------------------------------------------------------------------


@dataclass(frozen=True)
class _PowerFormulas:
    columns: dict[str, list]  # key -> formulas (strings starting with '=')
    note: str
    policy: float | None


def _power_formulas(plan, alloc: pd.DataFrame, lang: str) -> _PowerFormulas:
    """Live formulas for the power allocation when the rack layout reproduces it."""
    cols = list(alloc.columns)
    policy = None
    if "required_headroom_pct" not in cols:
        facility = getattr(plan.scenario, "facility", None)
        policy = getattr(facility, "power_headroom", None)
    layout = plan.tables.get("rack_layout")
    reason = None
    if layout is None or not {"rack", "max_power_kw"} <= set(layout.columns):
        reason = label("xlsx.note.no_layout", lang)
    elif len(sheet_parts(len(layout))) > 1 or len(sheet_parts(len(alloc))) > 1:
        reason = label("xlsx.note.split_reason", lang)
    else:
        sums = layout.groupby("rack", sort=False)["max_power_kw"].sum()
        counts = layout.groupby("rack", sort=False).size()
        got = alloc["rack"].map(sums).fillna(0.0).to_numpy(dtype=float)
        n = alloc["rack"].map(counts).fillna(0).to_numpy(dtype=float)
        want = alloc["device_power_kw"].to_numpy(dtype=float)
        bad = ~np.isclose(got, want, rtol=1e-9, atol=1e-9)
        if "devices" in cols:
            bad |= n != alloc["devices"].to_numpy(dtype=float)
        if bad.any():
            rack = str(alloc["rack"].iloc[int(np.argmax(bad))])
            reason = label("xlsx.note.layout_mismatch", lang, rack=rack)
    if reason is not None:
        return _PowerFormulas({}, label("xlsx.note.power_values", lang, reason=reason), policy)

    letter = {k: get_column_letter(i + 1) for i, k in enumerate(cols)}
    lay_cols = list(layout.columns)
    sheet = quote_sheetname(sheet_name("rack_layout", lang))
    last = len(layout) + 1
    rack_rng = f"{sheet}!${get_column_letter(lay_cols.index('rack') + 1)}$2:$" + (
        f"{get_column_letter(lay_cols.index('rack') + 1)}${last}"
    )
    kw_col = get_column_letter(lay_cols.index("max_power_kw") + 1)
    kw_rng = f"{sheet}!${kw_col}$2:${kw_col}${last}"
    dev = alloc["device_power_kw"].to_numpy(dtype=float)
    given = alloc["allocated_kw"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(dev > 0, given / dev, np.nan)
    factor = float(np.nanmedian(ratios)) if np.isfinite(ratios).any() else 1.0
    factor_ok = np.allclose(dev * factor, given, rtol=1e-9, atol=1e-9)
    out: dict[str, list] = {}
    rows = range(2, len(alloc) + 2)
    r_, d_ = letter["rack"], letter["device_power_kw"]
    a_, s_ = letter["allocated_kw"], letter["supply_kw"]
    if "devices" in letter:
        out["devices"] = [f"=COUNTIF({rack_rng},{r_}{r})" for r in rows]
    out["device_power_kw"] = [f"=SUMIF({rack_rng},{r_}{r},{kw_rng})" for r in rows]
    if factor_ok:
        out["allocated_kw"] = [
            f"={d_}{r}" if factor == 1.0 else f"={d_}{r}*{factor:.12g}" for r in rows
        ]
    if "headroom_kw" in letter:
        out["headroom_kw"] = [f"={s_}{r}-{a_}{r}" for r in rows]
    if "headroom_pct" in letter:
        out["headroom_pct"] = [f"=IF({s_}{r}=0,0,({s_}{r}-{a_}{r})/{s_}{r})" for r in rows]
    required = None
    if "required_headroom_pct" in letter:
        required = [f"{letter['required_headroom_pct']}{r}" for r in rows]
    elif policy is not None:
        required = [f"{float(policy):.12g}"] * len(alloc)
    if "status" in letter and "headroom_pct" in letter and required is not None:
        p_ = letter["headroom_pct"]
        word = {s: _q(_label_or(f"status.{s}", lang, s)) for s in ("ok", "low_headroom", "over")}
        out["status"] = [
            f'=IF({p_}{r}<0,"{word["over"]}",IF({p_}{r}+1E-12<{q},"{word["low_headroom"]}",'
            f'"{word["ok"]}"))'
            for r, q in zip(rows, required, strict=True)
        ]
    note = label("xlsx.note.power_formulas", lang, sheet=sheet_name("rack_layout", lang))
    return _PowerFormulas(out, note, policy)


def _q(text: str) -> str:
    return text.replace('"', '""')


def _label_or(key: str, lang: str, default: str | None = None) -> str:
    """The label of ``key``, or ``default`` (the key itself) when the catalogue has none."""
    if key in label_catalog().index:
        return label(key, lang)
    return key if default is None else default


def _power_conditional(ws, alloc: pd.DataFrame, style: AppendixStyle, policy) -> bool:
    """Mark headroom under the policy (amber) and allocation above the supply (red)."""
    cols = list(alloc.columns)
    if "headroom_pct" not in cols or alloc.empty:
        return False
    letter = {k: get_column_letter(i + 1) for i, k in enumerate(cols)}
    last = len(alloc) + 1
    marked = [k for k in ("headroom_kw", "headroom_pct", "status") if k in letter]
    p_ = letter["headroom_pct"]
    red = PatternFill("solid", fgColor=style.over_fill, bgColor=style.over_fill)
    amber = PatternFill("solid", fgColor=style.low_fill, bgColor=style.low_fill)
    if "required_headroom_pct" in letter:
        low = f"${p_}2<${letter['required_headroom_pct']}2"
    elif policy is not None:
        low = f"${p_}2<{float(policy):.12g}"
    else:
        low = None
    for k in marked:
        rng = f"{letter[k]}2:{letter[k]}{last}"
        ws.conditional_formatting.add(
            rng, FormulaRule(formula=[f"${p_}2<0"], fill=red, stopIfTrue=True)
        )
        if low:
            ws.conditional_formatting.add(rng, FormulaRule(formula=[low], fill=amber))
    return low is not None


# -- cost sheets ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _CostFormulas:
    columns: dict[str, list]  # key -> one cell per row: a formula, a value or "unpriced"
    total: dict[str, object]  # key -> the total row's cell


def sheet_frame(plan, table: str) -> pd.DataFrame:
    """The table a sheet shows: the plan's, except the equipment list, which is the cost
    stage's priced equipment list (``cost_equipment``) when the plan has one."""
    if table == "equipment_list" and plan.tables.get("cost_equipment") is not None:
        return plan.tables["cost_equipment"]
    return plan.tables[table]


def _reproduces(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where a formula's arithmetic gives the plan's figure (to 1e-9 relative, a far
    finer grain than the cent the sheet is read at)."""
    with np.errstate(invalid="ignore"):
        return np.isclose(got, want, rtol=1e-9, atol=1e-9) & np.isfinite(want)


def _product_column(
    df: pd.DataFrame,
    letter: dict[str, str],
    out_key: str,
    a: str,
    b: str,
    priced: np.ndarray,
    word: str,
) -> list:
    """``out_key`` as ``=a×b`` per row where that gives the plan's figure, the plan's
    value where it does not, and ``word`` (unpriced) on an unpriced row."""
    want = pd.to_numeric(df[out_key], errors="coerce").to_numpy(dtype=float)
    got = pd.to_numeric(df[a], errors="coerce").to_numpy(dtype=float) * pd.to_numeric(
        df[b], errors="coerce"
    ).to_numpy(dtype=float)
    ok = _reproduces(got, want)
    cells: list = []
    for i, r in enumerate(range(2, len(df) + 2)):
        if not priced[i]:
            cells.append(word)
        elif ok[i]:
            cells.append(f"={letter[a]}{r}*{letter[b]}{r}")
        else:
            cells.append(None if math.isnan(want[i]) else float(want[i]))
    return cells


def _sum_cell(letter: dict[str, str], key: str, n: int) -> str:
    col = letter[key]
    return f"=SUM({col}2:{col}{n + 1})"


def _cny_twins(
    plan,
    df: pd.DataFrame,
    letter: dict[str, str],
    found: _CostFormulas,
    priced: np.ndarray,
    word: str,
) -> _CostFormulas:
    """With ``currency = CNY`` each money column has a CNY twin (``capex_cny`` after
    ``capex_usd``): it becomes the USD cell × the plan's rate where that gives the twin's
    figure, and its total a sum."""
    summary = plan.tables.get("cost_summary")
    if summary is None or "cny_per_usd" not in summary.columns:
        return found
    rate = float(summary["cny_per_usd"].iloc[0])
    keys = [
        k
        for k in dict.fromkeys([*found.columns, *found.total])
        if "usd" in k.split("_") and k.replace("usd", "cny") in letter
    ]
    n = len(df)
    for key in keys:
        twin = key.replace("usd", "cny")
        usd = pd.to_numeric(df[key], errors="coerce").to_numpy(dtype=float)
        want = pd.to_numeric(df[twin], errors="coerce").to_numpy(dtype=float)
        ok = _reproduces(usd * rate, want)
        cells: list = []
        for i, r in enumerate(range(2, n + 2)):
            if not priced[i] and math.isnan(want[i]):
                cells.append(word)
            elif ok[i]:
                cells.append(f"={letter[key]}{r}*{rate:.12g}")
            else:
                cells.append(None if math.isnan(want[i]) else float(want[i]))
        found.columns[twin] = cells
        if key in found.total:
            found.total[twin] = _sum_cell(letter, twin, n)
    return found


def _cost_formulas(plan, table: str, df: pd.DataFrame, lang: str) -> _CostFormulas | None:
    """Live formulas of a cost sheet and its total row (the last row of the table).

    - ``cost_capex``: capex = quantity × unit price (and the low/high range columns from
      the unit price range when the table has them); an unpriced line shows "unpriced";
      the total sums the priced lines and says how many it leaves out.
    - ``cost_opex``: a year's cost = quantity × unit cost where that is the line's rule
      (staff, licences; energy and maintenance are the plan's figures); total as above.
    - ``cost_cashflow``: discount factor = 1 ÷ (1 + r)^year, present value = amount ×
      factor (HM Treasury Green Book, Annex 6), the NPV of owning = Σ present values.
    - the priced equipment list: extended price = quantity × unit price; total = capex.
    """
    cols = list(df.columns)
    letter = {k: get_column_letter(i + 1) for i, k in enumerate(cols)}
    n = len(df)
    word = _label_or("xlsx.unpriced", lang, "unpriced")
    priced = df["priced"].to_numpy(dtype=bool) if "priced" in cols else np.ones(n, bool)
    gaps = int(n - np.count_nonzero(priced))
    out: dict[str, list] = {}
    total: dict[str, object] = {}
    first = cols[0]
    if table == "cost_capex":
        out["capex_usd"] = _product_column(
            df, letter, "capex_usd", "line_quantity", "line_unit_usd", priced, word
        )
        for end in ("low", "high"):  # the unit price range, when the table has it
            unit_col, line_col = f"price_{end}_usd", f"capex_{end}_usd"
            if {unit_col, line_col} <= set(cols):
                out[line_col] = _product_column(
                    df, letter, line_col, "line_quantity", unit_col, priced, word
                )
        amounts = ["capex_usd", "capex_low_usd", "capex_high_usd"]
    elif table == "cost_opex":
        out["usd_per_year"] = _product_column(
            df, letter, "usd_per_year", "line_quantity", "unit_cost_usd", priced, word
        )
        amounts = ["usd_per_year"]
    elif table == "cost_cashflow":
        summary = plan.tables.get("cost_summary")
        if summary is None or "discount_rate" not in summary.columns:
            return None
        rate = float(summary["discount_rate"].iloc[0])
        years = df["year"].to_numpy(dtype=float)
        want = df["discount_factor"].to_numpy(dtype=float)
        if not _reproduces(1.0 / np.power(1.0 + rate, years), want).all():
            return None
        rows = range(2, n + 2)
        y_, d_, f_ = letter["year"], letter["usd"], letter["discount_factor"]
        out["discount_factor"] = [f"=1/(1+{rate:.12g})^{y_}{r}" for r in rows]
        out["present_usd"] = [f"={d_}{r}*{f_}{r}" for r in rows]
        total[first] = label("xlsx.npv", lang, rate=f"{rate:.1%}")
        total["usd"] = _sum_cell(letter, "usd", n)
        total["present_usd"] = _sum_cell(letter, "present_usd", n)
        return _cny_twins(plan, df, letter, _CostFormulas(out, total), priced, word)
    elif table == "equipment_list":
        out["extended_price_usd"] = _product_column(
            df, letter, "extended_price_usd", "quantity", "unit_price_usd", priced, word
        )
        # a NIC inside a server: 0, its price is the server's
        want = df["extended_price_usd"].to_numpy(dtype=float)
        out["extended_price_usd"] = [
            0.0 if p and w == 0 else c
            for c, p, w in zip(out["extended_price_usd"], priced, want, strict=True)
        ]
        amounts = ["extended_price_usd"]
    else:
        return None
    total[first] = label("xlsx.total", lang)
    total[cols[1]] = (
        label("xlsx.total_gaps", lang, lines=gaps) if gaps else label("xlsx.total_complete", lang)
    )
    for key in amounts:
        if key in out:
            total[key] = _sum_cell(letter, key, n)
    return _cny_twins(plan, df, letter, _CostFormulas(out, total), priced, word)


# -- delivery sheets ------------------------------------------------------------------------


@dataclass(frozen=True)
class _RowFormulas:
    columns: dict[str, list]  # key -> one cell per row: a formula or the plan's value
    rows: list[dict[str, object]]  # rows below the table's (the schedule's phase spans)


def _runs(rows: list[int], col: str) -> list[str]:
    """Cell references of ``rows`` in column ``col``, consecutive rows as one range.

    >>> _runs([2, 3, 4, 7, 9, 10], "G")
    ['G2:G4', 'G7', 'G9:G10']
    """
    out: list[str] = []
    start = prev = None
    for r in [*rows, None]:
        if start is not None and r == prev + 1:
            prev = r
            continue
        if start is not None:
            out.append(f"{col}{start}" if start == prev else f"{col}{start}:{col}{prev}")
        start = prev = r
    return out


def _excel_date(day: dt.date) -> str:
    return f"DATE({day.year},{day.month},{day.day})"


def _schedule_formulas(plan, df: pd.DataFrame, lang: str) -> _RowFormulas | None:
    """Live formulas of the schedule sheet, each written where it gives the plan's figure.

    The critical-path method the delivery stage runs (Kelley and Walker, "Critical-path
    planning and scheduling", 1959), as cell formulas over the rows:

    - start day = the latest end day of the tasks it depends on, ``MAX(...)`` (a task with
      none starts at day 0, a value);
    - end day = start day + duration + buffer;
    - slack = the earliest latest-start of its successors (start + slack of each),
      ``MIN(...)``, less its end day; a task no other follows is measured against the
      project end, ``MAX`` of the end days;
    - critical = slack is 0 (when the column holds TRUE / FALSE);
    - start and end dates = the project start (``delivery.start_date``) + the day.

    Below the tasks, one row per phase: its span from the earliest start day ``MIN`` to
    the latest end day ``MAX`` of its tasks, the days between them in the duration column
    and the dates.
    """
    need = {"task", "phase", "depends_on", "duration_days", "buffer_days", "start_day", "end_day"}
    if df.empty or not need <= set(df.columns):
        return None
    cols = list(df.columns)
    letter = {k: get_column_letter(i + 1) for i, k in enumerate(cols)}
    n = len(df)
    tasks = df["task"].astype(str).tolist()
    row_of = {t: i + 2 for i, t in enumerate(tasks)}
    deps = [[d for d in str(v or "").split(", ") if d] for v in df["depends_on"].tolist()]
    if any(d not in row_of for ds in deps for d in ds):
        return None
    succ: list[list[int]] = [[] for _ in tasks]
    for i, ds in enumerate(deps):
        for d in ds:
            succ[row_of[d] - 2].append(i + 2)
    num = {
        k: pd.to_numeric(df[k], errors="coerce").to_numpy(dtype=float)
        for k in ("duration_days", "buffer_days", "start_day", "end_day")
    }
    start, end = num["start_day"], num["end_day"]
    dur = num["duration_days"] + num["buffer_days"]
    G, H, E, F = (letter[k] for k in ("start_day", "end_day", "duration_days", "buffer_days"))
    rows = range(2, n + 2)
    last = n + 1
    out: dict[str, list] = {}

    def close(got: float, want: float) -> bool:
        return bool(_reproduces(np.array([got]), np.array([want]))[0])

    cells: list = []
    for i in range(n):
        want = float(start[i])
        if (
            deps[i]
            and len(deps[i]) <= _MAX_ARGUMENTS
            and close(max(end[row_of[d] - 2] for d in deps[i]), want)
        ):
            cells.append("=MAX(" + ",".join(f"{H}{row_of[d]}" for d in deps[i]) + ")")
        else:
            cells.append(want)
    out["start_day"] = cells
    ok = _reproduces(start + dur, end)
    out["end_day"] = [
        f"={G}{r}+{E}{r}+{F}{r}" if ok[i] else float(end[i]) for i, r in enumerate(rows)
    ]
    if "slack_days" in letter:
        slack = pd.to_numeric(df["slack_days"], errors="coerce").to_numpy(dtype=float)
        I_ = letter["slack_days"]
        project_end = float(np.max(end))
        cells = []
        for i, r in enumerate(rows):
            s = succ[i]
            if s:
                got = min(start[j - 2] + slack[j - 2] for j in s) - end[i]
                formula = "=MIN(" + ",".join(f"{G}{j}+{I_}{j}" for j in s) + f")-{H}{r}"
            else:
                got = project_end - end[i]
                formula = f"=MAX({H}$2:{H}${last})-{H}{r}"
            fits = len(s) <= _MAX_ARGUMENTS
            cells.append(formula if fits and close(got, slack[i]) else float(slack[i]))
        out["slack_days"] = cells
        if "critical" in letter and pd.api.types.is_bool_dtype(df["critical"]):
            crit = df["critical"].to_numpy(dtype=bool)
            out["critical"] = [
                f"={I_}{r}=0" if bool(c) == (abs(x) < 1e-9) else bool(c)
                for r, c, x in zip(rows, crit, slack, strict=True)
            ]
    day0 = getattr(getattr(plan.scenario, "delivery", None), "start_date", None)
    for key, day_key in (("start_date", "start_day"), ("end_date", "end_day")):
        if key not in letter or day0 is None:
            continue
        dates = pd.to_datetime(df[key])
        want = dates.to_numpy(dtype="datetime64[D]")
        got = np.datetime64(day0, "D") + num[day_key].astype("timedelta64[D]")
        D = letter[day_key]
        out[key] = [
            f"={_excel_date(day0)}+{D}{r}" if g == w else dates.iloc[i].to_pydatetime()
            for i, (r, g, w) in enumerate(zip(rows, got, want, strict=True))
        ]
    # one row per phase, in the order the phases first appear: its span
    shown = localize(df[["phase"]], lang).iloc[:, 0].tolist()
    phases = list(dict.fromkeys(df["phase"].astype(str).tolist()))
    span = label("xlsx.phase_span", lang)
    extra: list[dict[str, object]] = []
    codes = df["phase"].astype(str).tolist()
    for k, phase in enumerate(phases):
        r = last + 1 + k
        members = [i + 2 for i, c in enumerate(codes) if c == phase]
        starts, ends = _runs(members, G), _runs(members, H)
        if len(starts) > _MAX_ARGUMENTS:
            continue
        row: dict[str, object] = {
            "task": span,
            "phase": shown[members[0] - 2],
            "start_day": "=MIN(" + ",".join(starts) + ")",
            "end_day": "=MAX(" + ",".join(ends) + ")",
            "duration_days": f"={H}{r}-{G}{r}",
        }
        if day0 is not None:
            for key, D in (("start_date", G), ("end_date", H)):
                if key in letter:
                    row[key] = f"={_excel_date(day0)}+{D}{r}"
        extra.append(row)
    return _RowFormulas(out, extra)


def _acceptance_formulas(df: pd.DataFrame) -> _RowFormulas | None:
    """The acceptance sheet's pass floor as a live formula: floor = expected × floor share
    (the delivery section's ``*_floor_share``; 1 for a count or a rule), written where it
    gives the plan's floor."""
    if df.empty or not {"expected", "floor_share", "floor"} <= set(df.columns):
        return None
    letter = {k: get_column_letter(i + 1) for i, k in enumerate(df.columns)}
    exp = pd.to_numeric(df["expected"], errors="coerce").to_numpy(dtype=float)
    share = pd.to_numeric(df["floor_share"], errors="coerce").to_numpy(dtype=float)
    want = pd.to_numeric(df["floor"], errors="coerce").to_numpy(dtype=float)
    ok = _reproduces(exp * share, want)
    e_, s_ = letter["expected"], letter["floor_share"]
    cells = [
        f"={e_}{r}*{s_}{r}" if ok[i] else (None if math.isnan(want[i]) else float(want[i]))
        for i, r in enumerate(range(2, len(df) + 2))
    ]
    return _RowFormulas({"floor": cells}, [])


def _delivery_formulas(plan, table: str, df: pd.DataFrame, lang: str) -> _RowFormulas | None:
    """The live formulas of a delivery sheet (:data:`DELIVERY_SHEETS`), or None."""
    if table == "schedule":
        return _schedule_formulas(plan, df, lang)
    if table == "acceptance":
        return _acceptance_formulas(df)
    return None


def _apply_row_formulas(columns: list[_Column], found: _RowFormulas) -> None:
    """Put a sheet's formula columns in place and append its extra rows."""
    for c in columns:
        if c.key in found.columns:
            c.cells, c.formula = found.columns[c.key], True
        extra = [row.get(c.key) for row in found.rows]
        c.cells = [*c.cells, *extra]
        c.formula = c.formula or any(isinstance(v, str) and v.startswith("=") for v in extra)


def _formula_rows(plan, table: str, df: pd.DataFrame, lang: str) -> int:
    """Rows a sheet with live formulas adds below the table's: a cost sheet's total, the
    schedule's phase spans."""
    if table in COST_SHEETS and (table != "equipment_list" or df is not plan.tables[table]):
        return 0 if _cost_formulas(plan, table, df, lang) is None else 1
    if table in DELIVERY_SHEETS:
        found = _delivery_formulas(plan, table, df, lang)
        return 0 if found is None else len(found.rows)
    return 0


# -- continued sheets: a table longer than a sheet -------------------------------------------


def sheet_parts(rows: int) -> list[tuple[int, int]]:
    """How a table of ``rows`` data rows is laid over sheets: ``(first, stop)`` row slices,
    one per sheet.

    A sheet holds :data:`MAX_SHEET_ROWS` rows. A table that fits with its header is one
    sheet. A longer one runs over continued sheets, each with the header again; every
    sheet but the last ends with a note row saying where the table continues, so it holds
    ``MAX_SHEET_ROWS - 2`` data rows.

    >>> sheet_parts(1_048_575)
    [(0, 1048575)]
    >>> sheet_parts(1_100_000)
    [(0, 1048574), (1048574, 1100000)]
    """
    limit = MAX_SHEET_ROWS
    if limit < 3:
        raise HubplanError(
            f"MAX_SHEET_ROWS = {limit}: a sheet must hold at least 3 rows "
            "(the header, a data row and the note)"
        )
    if rows + 1 <= limit:
        return [(0, rows)]
    per = limit - 2
    return [(a, min(a + per, rows)) for a in range(0, rows, per)]


def continued_name(title: str, part: int) -> str:
    """The name of a table's ``part``-th sheet (1 is the first): ``"Port map (2)"``,
    within Excel's 31 characters.

    >>> continued_name("Port map", 1), continued_name("端口连接表", 2)
    ('Port map', '端口连接表 (2)')
    """
    if part == 1:
        return title
    suffix = f" ({part})"
    return title[: MAX_SHEET_NAME - len(suffix)] + suffix


def _part_table_name(table: str, part: int) -> str:
    """The Excel table name of a table's ``part``-th sheet: ``tbl_port_map``,
    ``tbl_port_map_2``, ..."""
    name = table_display_name(table)
    return name if part == 1 else f"{name}_{part}"


def _part_columns(columns: list[_Column], first: int, stop: int | None) -> list[_Column]:
    """The columns of one sheet of a table: rows ``first`` to ``stop`` (None: all)."""
    if first == 0 and stop is None:
        return columns
    return [dataclasses.replace(c, cells=c.cells[first:stop]) for c in columns]


def _split_notes(table: str, lang: str, rows: int, parts: list, live: bool) -> list[str]:
    """Summary notes of a table that runs over several sheets."""
    title = sheet_name(table, lang)
    notes = []
    if len(parts) > 1:
        names = [continued_name(title, k) for k in range(1, len(parts) + 1)]
        sep = "、" if lang == "zh" else ", "
        notes.append(
            label(
                "xlsx.note.split",
                lang,
                sheet=title,
                rows=rows,
                sheets=len(parts),
                limit=MAX_SHEET_ROWS,
                names=sep.join(names),
            )
        )
    if not live:
        notes.append(label("xlsx.note.split_values", lang, sheet=title))
    return notes


# -- the workbook ---------------------------------------------------------------------------


def _new_workbook(style: AppendixStyle, lang: str, write_only: bool) -> Workbook:
    wb = Workbook(write_only=write_only)
    # The body font: every cell without a font of its own uses font 0 (scheme=None, so
    # Excel does not swap in the theme's font).
    body = Font(name=style.font(lang), size=style.font_size, family=2)
    wb._fonts = IndexedList([body])
    if not write_only:
        wb.remove(wb.active)
    return wb


def _summary(w: _Writer, plan, lang: str, notes: list[str]) -> None:
    s = w.style
    ws = w.ws
    title = label("xlsx.title", lang, name=plan.scenario.name)
    bold = Font(name=s.font(lang), size=s.title_font_size, bold=True)
    section = Font(name=s.font(lang), size=s.font_size + 1, bold=True)
    heads = headline_figures(plan)
    widths = [34, 44, 18, 60, 60, 60]
    _set_widths(ws, widths)
    from .. import __version__
    from ..core.catalog import load_catalog  # the fingerprint names the catalogue used

    w.append([w.text(title, font=bold)])
    if plan.scenario.description:  # one line that runs on across the empty cells
        w.append([w.text(" ".join(plan.scenario.description.split()))])
    w.append(
        [
            w.text(
                label(
                    "xlsx.generated",
                    lang,
                    version=__version__,
                    catalog=load_catalog().fingerprint[:12],
                    date=dt.date.today().isoformat(),
                )
            )
        ]
    )
    w.append([])
    w.append([w.text(label("xlsx.headline", lang), font=section)])
    fmt = [_excel_format(k) for k in heads["figure"]]
    w.table(
        table_display_name("headline"),
        [
            _Column(
                "xlsx.figure",
                column_label("xlsx.figure", lang),
                [_label_or(k, lang) for k in heads["figure"]],
            ),
            _Column(
                "xlsx.subject",
                column_label("xlsx.subject", lang),
                [column_value_label("subject", v, lang) for v in heads["subject"]],
            ),
            _Column(
                "xlsx.amount",
                column_label("xlsx.amount", lang),
                [
                    _label_or(f"choice.cloud_basis.{v}", lang, v)
                    if isinstance(v, str)
                    else w.styled(v, number_format=f)
                    for v, f in zip(heads["value"], fmt, strict=True)
                ],
            ),
            _Column(
                "xlsx.unit", column_label("xlsx.unit", lang), [unit(k) for k in heads["figure"]]
            ),
        ],
    )
    w.append([])
    if notes:
        w.append([w.text(label("xlsx.notes", lang), font=section)])
        for n in notes:
            w.append([w.text(n)])
        w.append([])
    if s.logo is not None:
        from openpyxl.drawing.image import Image

        try:
            ws.add_image(Image(str(s.logo)), s.logo_cell)
        except ImportError:
            raise HubplanError(
                f"style logo = {str(s.logo)!r}: embedding an image needs Pillow "
                "(pip install pillow), or set logo: null"
            ) from None
    _page_setup(ws, s, lang, title, repeat_header=False)


def _findings_sheet(w: _Writer, plan, lang: str) -> None:
    """Every finding of the plan, in ``lang``: one table."""
    fnd = findings_table(plan.findings, lang)
    columns = _table_columns(fnd, lang)
    w.layout = _layout(columns, w.style, lang)
    _sheet_format(w.ws, w.layout)
    w.ws.freeze_panes = "A2"
    w.table(table_display_name("findings"), columns)


def _assumptions_sheet(w: _Writer, plan, lang: str) -> None:
    """The assumption register: every scenario field, its value and why (its source)."""
    reg = assumption_register(plan.scenario)
    columns = [
        _Column("xlsx.field", column_label("xlsx.field", lang), list(reg["field"])),
        _Column("xlsx.setting", column_label("xlsx.setting", lang), _cell_values(reg["value"])),
        _Column("xlsx.source", column_label("xlsx.source", lang), list(reg["description"])),
    ]
    w.layout = _layout(columns, w.style, lang)
    _sheet_format(w.ws, w.layout)
    w.ws.freeze_panes = "A2"
    w.table(table_display_name("assumptions"), columns)


def _plan_sheets(plan) -> tuple[list[str], list[tuple[str, str]]]:
    """Tables to write, and (note key, table) for those left out."""
    write, left = [], []
    for t in SHEET_TABLES:
        df = plan.tables.get(t) if t not in plan.tables else sheet_frame(plan, t)
        if df is None:
            if t in ("equipment_list", "power_allocation", "compute_inventory"):
                left.append(("xlsx.note.missing", t))
        elif df.empty or len(df.columns) == 0:
            left.append(("xlsx.note.empty", t))
        else:
            write.append(t)
    return write, left


def _choose_write_only(plan, tables: list[str], write_only: bool | None) -> bool:
    if write_only is not None:
        return write_only
    return sum(len(sheet_frame(plan, t)) for t in tables) > WRITE_ONLY_ROWS


def build_appendix(
    plan,
    lang: str = "en",
    *,
    style: str | Path | AppendixStyle | None = None,
    write_only: bool | None = None,
) -> Workbook:
    """The proposal appendix of ``plan`` as an openpyxl Workbook, in ``lang``.

    Parameters
    ----------
    plan : hubplan.Plan
    lang : {'en', 'zh'}
    style : path or AppendixStyle, optional
        A style YAML laid over ``templates/appendix/style.yaml``.
    write_only : bool, optional
        Stream rows (openpyxl write-only mode). Default: when the sheets hold more than
        :data:`WRITE_ONLY_ROWS` rows. A write-only workbook can be saved once and its
        cells cannot be read back before saving.

    >>> import hubplan
    >>> wb = build_appendix(hubplan.build_plan(hubplan.default_scenario()), "zh")
    >>> wb.sheetnames[:4]
    ['摘要', '设备清单', 'IP 地址规划', '功率分配表']

    Device power per rack is a live sum over the rack layout (54 devices, rows 2-55;
    rack in column D, maximum power in column G):

    >>> wb["功率分配表"]["E2"].value
    "=SUMIF('机柜设备布置'!$D$2:$D$55,A2,'机柜设备布置'!$G$2:$G$55)"
    """
    lang = normalize_language(lang)
    st = style if isinstance(style, AppendixStyle) else load_style(style)
    tables, left = _plan_sheets(plan)
    wo = _choose_write_only(plan, tables, write_only)
    wb = _new_workbook(st, lang, wo)
    notes = [label(k, lang, sheet=sheet_name(t, lang), table=t) for k, t in left]
    power = None
    if "power_allocation" in tables:
        power = _power_formulas(plan, plan.tables["power_allocation"], lang)
        notes.append(power.note)
        if (
            power.policy is None
            and "required_headroom_pct" not in plan.tables["power_allocation"].columns
        ):
            notes.append(label("xlsx.note.no_policy", lang))
    # A table longer than a sheet runs over continued sheets, its formulas (which refer
    # to rows of one sheet) written as the plan's values.
    parts, live = {}, {}
    for t in tables:
        df = sheet_frame(plan, t)
        live[t] = len(sheet_parts(len(df) + _formula_rows(plan, t, df, lang))) == 1
        parts[t] = sheet_parts(len(df)) if not live[t] else [(0, None)]
        notes += _split_notes(t, lang, len(df), parts[t], live[t])
    if any(
        t in COST_SHEETS and live[t] and (t != "equipment_list" or "cost_equipment" in plan.tables)
        for t in tables
    ):
        notes.append(label("xlsx.note.cost_formulas", lang))
    if any(t in DELIVERY_SHEETS and live[t] for t in tables):
        notes.append(label("xlsx.note.delivery_formulas", lang))
    summary = wb.create_sheet(sheet_name("summary", lang))
    _summary(_Writer(wb, summary, st, lang, wo), plan, lang, notes)
    for t in tables:
        df = sheet_frame(plan, t)
        title = sheet_name(t, lang)
        columns = _table_columns(df, lang)
        lay = _layout(columns, st, lang)  # widths from the plan's values, not the formulas
        if t == "power_allocation" and power is not None:
            for c in columns:
                if c.key in power.columns:
                    c.cells, c.formula = power.columns[c.key], True
        cost = _cost_formulas(plan, t, df, lang) if t in COST_SHEETS and live[t] else None
        if cost is not None and (t != "equipment_list" or df is not plan.tables[t]):
            for c in columns:
                if c.key in cost.columns:
                    c.cells, c.formula, c.right = cost.columns[c.key], True, True
                end = cost.total.get(c.key)
                c.cells = [*c.cells, end]
                c.formula = c.formula or (isinstance(end, str) and end.startswith("="))
        found = _delivery_formulas(plan, t, df, lang) if live[t] else None
        if found is not None:
            _apply_row_formulas(columns, found)
        for k, (first, stop) in enumerate(parts[t], start=1):
            part_title = continued_name(title, k)
            ws = wb.create_sheet(part_title)
            _sheet_format(ws, lay)
            ws.freeze_panes = "A2"
            w = _Writer(wb, ws, st, lang, wo, layout=lay)
            w.table(_part_table_name(t, k), _part_columns(columns, first, stop))
            if t == "power_allocation":
                _power_conditional(ws, df.iloc[first:stop], st, power.policy if power else None)
            if k < len(parts[t]):  # where the table goes on
                w.append(
                    [
                        w.text(
                            label(
                                "xlsx.continued",
                                lang,
                                first=first + 1,
                                last=stop,
                                rows=len(df),
                                sheet=continued_name(title, k + 1),
                            ),
                            font=w.font(italic=True),
                        )
                    ]
                )
            _page_setup(ws, st, lang, part_title, repeat_header=True, layout=lay)
    for key, write in (("findings", _findings_sheet), ("assumptions", _assumptions_sheet)):
        title = sheet_name(key, lang)
        ws = wb.create_sheet(title)
        w = _Writer(wb, ws, st, lang, wo)
        write(w, plan, lang)
        _page_setup(ws, st, lang, title, repeat_header=True, layout=w.layout)
    _properties(wb, plan, st, lang)
    return wb


def _properties(wb: Workbook, plan, style: AppendixStyle, lang: str) -> None:
    from .. import __version__

    p = wb.properties
    p.title = label("xlsx.title", lang, name=plan.scenario.name)
    p.subject = plan.scenario.name
    p.description = plan.scenario.description or None
    p.creator = style.company or "hubplan"
    p.lastModifiedBy = f"hubplan {__version__}"
    p.keywords = "hubplan; appendix; equipment list; IP plan; power allocation; port map"
    p.category = label("sheet.summary", lang)
    p.language = "zh-CN" if lang == "zh" else "en"
    now = dt.datetime.now(dt.UTC).replace(microsecond=0, tzinfo=None)
    p.created = p.modified = now


def save_atomic(wb: Workbook, path: str | Path) -> Path:
    """Save ``wb`` to ``path`` through a temporary file in the same folder and
    ``os.replace``: a failed or interrupted save (no permission, a read-only or full
    disk, the file held open by Excel) leaves any earlier file intact, removes the
    temporary file and raises :class:`~hubplan.core.errors.ExportError`."""
    path = Path(path)
    with atomic_path(path, what="xlsx") as tmp:
        wb.save(tmp)
    return path


def write_appendix(
    plan,
    path: str | Path,
    lang: str = "en",
    *,
    style: str | Path | AppendixStyle | None = None,
    write_only: bool | None = None,
) -> Path:
    """Write the proposal appendix of ``plan`` to ``path`` (xlsx), atomically.

    Returns the path written. See :func:`build_appendix` for the parameters.
    """
    path = Path(path)
    if path.suffix.lower() != ".xlsx":
        raise HubplanError(f"xlsx = {str(path)!r}: the appendix file must end in .xlsx")
    check_target("xlsx", path)  # before the build: a bad path fails at once
    return save_atomic(build_appendix(plan, lang, style=style, write_only=write_only), path)
