"""The appendix style: fonts, header colours, table style, paper, print layout and logo, read from a
small YAML file so a consultancy restyles the workbook without touching code.

The shipped style is ``templates/appendix/style.yaml``; a file given by the user is laid
over it key by key (keys left out keep the shipped values).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import FileReadError, HubplanError
from ..core.files import STYLE_MAX_BYTES, read_user_text
from ..core.paths import templates_dir

_HEX = re.compile(r"^[0-9A-Fa-f]{6}$")
_PAPER = {"a4": 9, "letter": 1}  # OOXML ST_PaperSize codes (ECMA-376 Part 1, §18.3.1.64)


@dataclass(frozen=True)
class AppendixStyle:
    """What the appendix looks like (see ``templates/appendix/style.yaml``)."""

    company: str
    font_en: str
    font_zh: str
    font_size: float
    title_font_size: float
    header_fill: str
    header_font_color: str
    header_bold: bool
    table_style: str
    paper_size: int
    logo: Path | None
    logo_cell: str
    low_fill: str
    over_fill: str
    #: Page margins and the distance of the page header and footer from the paper's edge.
    margin_mm: float = 8.0
    header_mm: float = 4.0
    #: Body font size of a table longer than one page at ``font_size`` (the port map, the
    #: IP plan): 8 pt fits ~46 rows on an A4 landscape page.
    compact_font_size: float = 8.0
    #: The smallest print scale fit-to-width may reach: wider sheets wrap their long text
    #: columns, or print over several pages across.
    min_scale_pct: float = 60.0

    def font(self, lang: str) -> str:
        return self.font_zh if lang == "zh" else self.font_en


def default_style_path() -> Path:
    return templates_dir() / "appendix" / "style.yaml"


def _read(path: Path) -> dict[str, Any]:
    try:
        text = read_user_text(path, limit_bytes=STYLE_MAX_BYTES)
        data = yaml.safe_load(text) or {}
    except FileReadError as exc:
        raise HubplanError(f"style = {str(path)!r}: {exc.problem}") from None
    except UnicodeDecodeError as exc:
        raise HubplanError(
            f"style = {str(path)!r}: not UTF-8 text (byte {exc.start}); save it as UTF-8"
        ) from None
    except yaml.YAMLError as exc:
        raise HubplanError(f"style = {str(path)!r}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise HubplanError(f"style = {str(path)!r}: expected a mapping of style keys")
    return data


def _merge(base: dict, over: dict, where: str = "") -> dict:
    out = dict(base)
    for key, value in over.items():
        if key not in base:
            allowed = ", ".join(sorted(base))
            raise HubplanError(f"style key {where}{key!r} is unknown (allowed: {allowed})")
        if isinstance(base[key], dict):
            if not isinstance(value, dict):
                raise HubplanError(f"style key {where}{key!r} = {value!r}: expected a mapping")
            out[key] = _merge(base[key], value, f"{where}{key}.")
        else:
            out[key] = value
    return out


def _colour(value: object, key: str) -> str:
    text = str(value).lstrip("#")
    if not _HEX.match(text):
        raise HubplanError(f"style {key} = {value!r}: use an RGB hex colour such as '1F4E79'")
    return text.upper()


def load_style(path: str | Path | None = None) -> AppendixStyle:
    """The shipped style, with the keys of ``path`` (a YAML file) laid over it.

    >>> s = load_style()
    >>> s.header_fill, s.font("zh"), s.paper_size
    ('1F4E79', 'Microsoft YaHei', 9)
    """
    data = _read(default_style_path())
    base_dir = default_style_path().parent
    if path is not None:
        path = Path(path)
        data = _merge(data, _read(path))
        base_dir = path.parent
    paper = str(data["paper"]).lower()
    if paper not in _PAPER:
        raise HubplanError(f"style paper = {data['paper']!r}: use one of {', '.join(_PAPER)}")
    logo = None
    if data["logo"]:
        logo = (base_dir / str(data["logo"])).resolve()
        if not logo.is_file():
            raise HubplanError(f"style logo = {data['logo']!r}: no such file ({logo})")
    try:
        sizes = float(data["font"]["size"]), float(data["title_font_size"])
    except (TypeError, ValueError):
        raise HubplanError("style font.size and title_font_size must be numbers") from None
    prints = {
        k: _number(data["print"][k], f"print.{k}", lo, hi)
        for k, lo, hi in (
            ("margin_mm", 0, 50),
            ("header_mm", 0, 50),
            ("compact_font_size", 4, 72),
            ("min_scale_pct", 10, 100),
        )
    }
    if prints["header_mm"] >= prints["margin_mm"] > 0:
        raise HubplanError(
            f"style print.header_mm = {prints['header_mm']:g}: must be less than print.margin_mm "
            f"({prints['margin_mm']:g}), or the page header runs into the table"
        )
    return AppendixStyle(
        company=str(data["company"] or ""),
        font_en=str(data["font"]["en"]),
        font_zh=str(data["font"]["zh"]),
        font_size=sizes[0],
        title_font_size=sizes[1],
        header_fill=_colour(data["header"]["fill"], "header.fill"),
        header_font_color=_colour(data["header"]["font_color"], "header.font_color"),
        header_bold=bool(data["header"]["bold"]),
        table_style=str(data["table_style"]),
        paper_size=_PAPER[paper],
        logo=logo,
        logo_cell=str(data["logo_cell"]),
        low_fill=_colour(data["headroom_fill"]["low"], "headroom_fill.low"),
        over_fill=_colour(data["headroom_fill"]["over"], "headroom_fill.over"),
        **prints,
    )


def _number(value: object, key: str, lo: float, hi: float) -> float:
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        x = math.nan
    if not lo <= x <= hi:
        raise HubplanError(f"style {key} = {value!r}: use a number from {lo:g} to {hi:g}")
    return x
