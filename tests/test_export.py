"""The proposal appendix (xlsx); the NetBox import files are tested in test_netbox.py.

Every sheet is read back with openpyxl and compared with the Plan's tables; LibreOffice
recalculates the power-allocation formulas and prints the workbook to PDF.
"""

import dataclasses
import datetime as dt
import errno
import html
import math
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

import hubplan
from hubplan.cli import main as cli_main
from hubplan.core.labels import catalog as label_catalog
from hubplan.export import (
    build_appendix,
    load_style,
    sheet_name,
    write_appendix,
)
from hubplan.export import xlsx as xlsx_mod


@pytest.fixture(scope="module")
def plan():
    return hubplan.build_plan(hubplan.default_scenario())


def _rows(ws, first=1):
    return [list(r) for r in ws.iter_rows(min_row=first, values_only=True)]


def _same(cell, want):
    if want is None or want == "" or (isinstance(want, float) and math.isnan(want)):
        return cell is None  # an empty cell (xlsx has no empty strings)
    if isinstance(want, pd.Timestamp):  # a date cell, not its text
        return cell == want.to_pydatetime()
    if isinstance(want, bool):
        return cell is want
    if isinstance(want, int | float):
        return cell == pytest.approx(want, rel=1e-12, abs=1e-12)
    return cell == str(want)


#: Power-allocation columns the appendix writes as formulas (the rest are the plan's values).
POWER_FORMULAS = {
    "devices": "=COUNTIF(",
    "device_power_kw": "=SUMIF(",
    "allocated_kw": "=",
    "headroom_kw": "=",
    "headroom_pct": "=IF(",
    "status": "=IF(",
}


#: Cost-sheet columns the appendix writes as formulas (the rest are the plan's values).
COST_FORMULAS = {
    "capex_usd",
    "capex_low_usd",
    "capex_high_usd",
    "usd_per_year",
    "discount_factor",
    "present_usd",
    "extended_price_usd",
}

#: Delivery-sheet columns the appendix writes as formulas where they give the plan's
#: figure (a task with no predecessor starts at day 0, a value).
DELIVERY_FORMULAS = {
    "schedule": {"start_day", "end_day", "slack_days", "critical", "start_date", "end_date"},
    "acceptance": {"floor"},
}

#: Rows the default schedule sheet adds below its 20 tasks: one span per phase.
PHASE_ROWS = 4


@pytest.mark.parametrize("write_only", [False, True])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_sheet_reads_back_as_the_plans_table(plan, tmp_path, lang, write_only):
    path = write_appendix(plan, tmp_path / "a.xlsx", lang, write_only=write_only)
    wb = openpyxl.load_workbook(path)
    tables, _ = xlsx_mod._plan_sheets(plan)
    assert wb.sheetnames == [
        sheet_name("summary", lang),
        *[sheet_name(t, lang) for t in tables],
        sheet_name("findings", lang),
        sheet_name("assumptions", lang),
    ]
    assert "port_map" in tables and "ip_plan" in tables and "training" in tables
    assert "power_allocation" in tables  # the facility stage is in the plan
    assert "cost_capex" in tables and "cost_cashflow" in tables
    unpriced = "未定价" if lang == "zh" else "unpriced"
    for t in tables:
        ws = wb[sheet_name(t, lang)]
        # the equipment list is the cost stage's priced one, the plan's rows first
        source = "cost_equipment" if t == "equipment_list" else t
        want = plan.table(source, lang)
        keys = list(plan[source].columns)
        rows = _rows(ws)
        cost = t in xlsx_mod.COST_SHEETS
        # a cost sheet ends with its total row, the schedule with its phases' spans
        extra = 1 if cost else PHASE_ROWS if t == "schedule" else 0
        body = rows[1 : len(rows) - extra]
        assert rows[0] == list(want.columns), t
        assert len(body) == len(want), t
        for got, (_, exp) in zip(body, want.iterrows(), strict=True):
            for g, e, key in zip(got, exp.tolist(), keys, strict=True):
                if t == "power_allocation" and key in POWER_FORMULAS:
                    # live formulas over the rack layout; LibreOffice checks their values
                    assert isinstance(g, str) and g.startswith(POWER_FORMULAS[key]), (key, g)
                elif cost and key in COST_FORMULAS:
                    # quantity × unit price (LibreOffice checks it), the plan's value where
                    # that is not the line's rule (energy), or "unpriced" (never 0)
                    formula = isinstance(g, str) and g.startswith("=")
                    assert g == unpriced if e != e else formula or _same(g, e), (t, key, g)
                elif key in DELIVERY_FORMULAS.get(t, ()):
                    # LibreOffice checks their values
                    assert (isinstance(g, str) and g.startswith("=")) or _same(g, e), (t, key, g)
                else:
                    assert _same(g, e), (t, key, g, e)
        if cost:
            assert str(rows[-1][0]).startswith(("Total", "合计", "NPV", "自建净现值")), t


def test_sheet_craft(plan, tmp_path):
    wb = openpyxl.load_workbook(write_appendix(plan, tmp_path / "a.xlsx", "zh"))
    names = []
    for ws in wb.worksheets:
        assert len(ws.title) <= 31
        assert ws.page_setup.orientation == "landscape"
        assert ws.sheet_properties.pageSetUpPr.fitToPage
        assert ws.page_setup.fitToHeight == 0
        # one page across, or (a table with more columns than one holds at 60 %) several
        # with the first column repeated on each
        assert ws.page_setup.fitToWidth == 1 or ws.print_title_cols == "$A:$A"
        names += list(ws.tables)
        if ws.title != "摘要":
            assert len(ws.tables) == 1
            assert ws.freeze_panes == "A2"
            assert ws.print_title_rows == "$1:$1"
            (tab,) = ws.tables.values()
            assert tab.ref == f"A1:{openpyxl.utils.get_column_letter(ws.max_column)}{ws.max_row}"
            assert ws.column_dimensions["A"].width >= 8
    assert len(names) == len(set(names))
    # number formats and units come from the label catalogue
    pm = wb["端口连接表"]
    header = [c.value for c in pm[1]]
    speed = header.index("速率 [Gb/s]") + 1
    assert pm.cell(2, speed).number_format == label_catalog().loc["speed_gbps", "excel_format"]
    pools = wb["资源池"]
    capex = [c.value for c in pools[1]].index("硬件投资 [USD]") + 1
    assert pools.cell(2, capex).number_format == "#,##0"
    assert pools.cell(2, capex).value == 4_860_000  # 18 DGX H100 × US$270 000
    assert wb.properties.language == "zh-CN" and wb.properties.title.endswith("方案附表")


def test_summary_headline_findings_and_assumptions(plan, tmp_path):
    wb = openpyxl.load_workbook(write_appendix(plan, tmp_path / "a.xlsx", "en"))
    ws = wb["Summary"]
    # one Excel table per sheet: headline figures here, findings and assumptions apart
    assert set(ws.tables) == {"tbl_headline"}
    assert set(wb["Findings"].tables) == {"tbl_findings"}
    assert set(wb["Assumptions"].tables) == {"tbl_assumptions"}
    rows = _rows(ws) + _rows(wb["Findings"]) + _rows(wb["Assumptions"])
    flat = {(r[0], r[1]): r[2] for r in rows if r[0] is not None}
    # the worked example: 144 training + 16 inference H100 = 160 in the fleet row
    assert flat[("Total GPUs", "H100 SXM5 80GB / DGX H100")] == 160
    # 556 links (the 10 storage nodes' 2 storage, 1 in-band and 1 BMC link each among
    # them) plus an in-band and a BMC link for each of the 3 management servers, and
    # 20 for the 4 UFM appliances and the out-of-band uplinks: 4 compute + 4 storage IB
    # ports, 4 in-band, 4 BMC, 2 SN2201 × 2 uplinks
    assert flat[("Links in the port map", None)] == len(plan["port_map"]) == 582
    assert flat[("workload.training[0].mfu", 0.45)] is not None  # value and its source
    src = next(r[2] for r in rows if r[0] == "workload.training[0].mfu")
    assert "Llama 3" in src or "planning" in src
    findings = [r for r in _rows(wb["Findings"]) if r[3] == "binding_compute"]
    assert findings and findings[0][4].startswith("Compute binds")
    # a plan without the facility stage says which sheets it leaves out
    bare = hubplan.build_plan(plan.scenario, until="network")
    assert "equipment_list" not in bare.tables
    rows = _rows(build_appendix(bare)["Summary"])
    assert (
        "No Equipment list sheet: the plan has no equipment_list table (its stage has not run)."
        in [r[0] for r in rows]
    )


def test_user_text_is_never_a_formula(tmp_path):
    evil = hubplan.default_scenario().with_changes(
        {
            "name": '=HYPERLINK("http://x","click")',
            "description": "@SUM(1+1)",
            "workload.training.0.name": "-2+3",
        }
    )
    plan = hubplan.build_plan(evil)
    path = write_appendix(plan, tmp_path / "a.xlsx", write_only=True)
    wb = openpyxl.load_workbook(path)
    power = sheet_name("power_allocation", "en")
    cells = [
        (ws.title, c)
        for ws in wb
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith(("=", "@", "-2+3"))
    ]
    # the only formulas are the appendix's own, on the power-allocation sheet, the cost
    # sheets (the equipment list's extended prices among them) and the delivery sheets
    own = {
        power,
        *(sheet_name(t, "en") for t in (*xlsx_mod.COST_SHEETS, *xlsx_mod.DELIVERY_SHEETS)),
    }
    formulas = [c for title, c in cells if c.data_type == "f"]
    assert formulas and all(title in own for title, c in cells if c.data_type == "f")
    assert {title for title, c in cells if c.data_type == "f"} == own
    text = [c for title, c in cells if c.data_type != "f"]
    assert {c.value for c in text} >= {'=HYPERLINK("http://x","click")', "@SUM(1+1)", "-2+3"}
    assert all(c.data_type == "s" and c.quotePrefix for c in text)
    assert wb["Training"]["A2"].value == "-2+3"


def test_a_failed_save_leaves_the_earlier_file(plan, tmp_path, monkeypatch):
    path = write_appendix(plan, tmp_path / "a.xlsx")
    before = path.read_bytes()

    def broken_save(self, filename):  # the disk fills half-way through the zip
        Path(filename).write_bytes(b"PK\x03\x04 half a zip")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(openpyxl.Workbook, "save", broken_save)
    with pytest.raises(hubplan.ExportError, match="the disk is full") as err:
        write_appendix(plan, path, "zh")
    assert err.value.reason == "no_space" and err.value.path == str(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.xlsx"]  # no temp file left


def test_bad_paths_and_styles(plan, tmp_path):
    with pytest.raises(hubplan.HubplanError, match=r"must end in \.xlsx"):
        write_appendix(plan, tmp_path / "a.csv")
    with pytest.raises(hubplan.HubplanError, match="does not exist"):
        write_appendix(plan, tmp_path / "no" / "a.xlsx")
    bad = tmp_path / "style.yaml"
    bad.write_text("header: {fil: '000000'}\n")
    with pytest.raises(hubplan.HubplanError, match=r"style key header\.'fil' is unknown"):
        load_style(bad)
    bad.write_text("header: {fill: red}\n")
    with pytest.raises(hubplan.HubplanError, match=r"header\.fill = 'red'"):
        load_style(bad)
    bad.write_text("print: {margin_mm: wide}\n")
    with pytest.raises(hubplan.HubplanError, match=r"print\.margin_mm = 'wide': use a number"):
        load_style(bad)
    bad.write_text("print: {margin_mm: 5, header_mm: 6}\n")
    with pytest.raises(hubplan.HubplanError, match=r"print\.header_mm = 6: must be less than"):
        load_style(bad)


def test_print_layout_compacts_long_tables_and_sizes_wrapped_headers(plan, tmp_path):
    wb = build_appendix(plan, "en")
    pm, eq = wb["Port map"], wb["Equipment list"]
    # 582 port-map rows are more than an A4 page holds at 10 pt (42 lines): 8 pt, rows
    # 8 × 1.3 = 10.4 pt, 8-mm margins (0.315 in)
    assert pm["B2"].font.sz == 8 and pm.sheet_format.defaultRowHeight == 10.4
    assert pm.page_margins.top == pytest.approx(8 / 25.4)
    # a 12-row table stays at the body size
    assert wb["Power allocation"]["A2"].font.sz == 10
    # the equipment list runs past a page (its sources wrap), so it is 8 pt too; its
    # 'Unit weight [kg]' header in an 8-unit column (6.5 after padding), bold 8-pt
    # characters 1.1 × 0.8 wide: 'Unit' (1.15 + 0.95 + 0.6 + 0.6) × 0.88 = 2.9, 'weight'
    # (1.5 + 0.95 + 0.6 + 0.95 + 0.95 + 0.6) × 0.88 = 4.88, '[kg]' 3.1 × 0.88 = 2.73, a
    # space 0.48: no two fit on a line, three lines, 3 × 8 pt × 1.3 + 3 pt = 34.2 pt
    header = [c.value for c in eq[1]]
    col = openpyxl.utils.get_column_letter(header.index("Unit weight [kg]") + 1)
    assert eq.column_dimensions[col].width == 8
    assert eq.row_dimensions[1].height == pytest.approx(34.2)
    # a price source longer than its column wraps, its row as tall as its lines
    src = openpyxl.utils.get_column_letter(header.index("Price source") + 1)
    assert eq[f"{src}2"].alignment.wrap_text
    assert eq.row_dimensions[2].height > 10.4


def test_a_consultancy_style_restyles_without_code(plan, tmp_path):
    style = tmp_path / "ours.yaml"
    style.write_text(
        "company: ACME 咨询\nfont: {zh: SimSun}\nheader: {fill: '#C00000'}\n", encoding="utf-8"
    )
    wb = build_appendix(plan, "zh", style=style)
    ws = wb["端口连接表"]
    assert ws["A1"].fill.fgColor.rgb == "00C00000"
    assert ws["A2"].font.name == "SimSun"  # the body font
    assert ws.oddHeader.left.text == "ACME 咨询"
    assert wb.properties.creator == "ACME 咨询"


def test_a_logo_without_pillow_is_a_clear_error(plan, tmp_path):
    try:
        import PIL  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("Pillow is installed: the logo is embedded")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    style = tmp_path / "s.yaml"
    style.write_text("logo: logo.png\n")
    with pytest.raises(hubplan.HubplanError, match="needs Pillow"):
        build_appendix(plan, style=style)


# -- power allocation: live formulas ---------------------------------------------------------

# Hand-built facility tables (the facility stage's columns): rack A01 holds three DGX H100 at
# 10.2 kW nameplate (NVIDIA DGX H100 user guide) = 30.6 kW of a 40 kW supply: 9.4 kW and
# 23.5 % headroom, above the planning guide's 15 %; rack A02 holds one DGX (10.2) and one
# QM9700 switch (1.72 kW) = 11.92 kW of 12 kW: 0.08 kW, 0.67 % headroom -> low_headroom.
LAYOUT = pd.DataFrame(
    {
        "device": ["train-0001", "train-0002", "train-0003", "compute-leaf-01", "train-0004"],
        "device_type": ["gpu_server"] * 3 + ["switch", "gpu_server"],
        "model": ["DGX H100"] * 3 + ["QM9700", "DGX H100"],
        "rack": ["A01", "A01", "A01", "A02", "A02"],
        "u_position": [2, 12, 22, 40, 2],
        "u_height": [8, 8, 8, 1, 8],
        "max_power_kw": [10.2, 10.2, 10.2, 1.72, 10.2],
    }
)
ALLOC = pd.DataFrame(
    {
        "rack": ["A01", "A02"],
        "devices": [3, 2],
        "device_power_kw": [30.6, 11.92],
        "allocated_kw": [30.6, 11.92],
        "supply_kw": [40.0, 12.0],
        "headroom_kw": [9.4, 0.08],
        "headroom_pct": [0.235, 0.08 / 12],
        "required_headroom_pct": [0.15, 0.15],
        "status": ["ok", "low_headroom"],
    }
)
HAND = {
    "A01": (3, 30.6, 30.6, 9.4, 0.235, "ok"),
    "A02": (2, 11.92, 11.92, 0.08, 0.0066666667, "low_headroom"),
}


def _with(plan, **tables):
    return dataclasses.replace(plan, tables={**plan.tables, **tables})


def test_power_allocation_is_live_formulas(plan, tmp_path):
    p = _with(plan, rack_layout=LAYOUT, power_allocation=ALLOC)
    wb = openpyxl.load_workbook(write_appendix(p, tmp_path / "a.xlsx"))
    ws = wb[sheet_name("power_allocation", "en")]
    row2 = [c.value for c in ws[2]]
    assert row2[0] == "A01" and row2[4] == 40
    assert row2[1] == "=COUNTIF('Rack layout'!$D$2:$D$6,A2)"
    assert row2[2] == "=SUMIF('Rack layout'!$D$2:$D$6,A2,'Rack layout'!$G$2:$G$6)"
    assert row2[3] == "=C2" and row2[5] == "=E2-D2"
    assert row2[8].startswith("=IF(G2<0,")
    rules = [r.formula[0] for cf in ws.conditional_formatting for r in cf.rules]
    assert "$G2<0" in rules and "$G2<$H2" in rules
    # sized for inrush (× 1.5): the allocated column multiplies the device power
    sized = ALLOC.assign(allocated_kw=ALLOC["device_power_kw"] * 1.5)
    wb = build_appendix(_with(plan, rack_layout=LAYOUT, power_allocation=sized))
    assert wb[sheet_name("power_allocation", "en")]["D2"].value == "=C2*1.5"


def test_power_allocation_falls_back_to_values_when_the_layout_disagrees(plan):
    wrong = LAYOUT.assign(max_power_kw=[10.2, 10.2, 9.0, 1.72, 10.2])
    wb = build_appendix(_with(plan, rack_layout=wrong, power_allocation=ALLOC))
    ws = wb[sheet_name("power_allocation", "en")]
    assert ws["C2"].value == 30.6  # the plan's number, not a formula that disagrees with it
    notes = [c.value for c in wb["Summary"]["A"] if isinstance(c.value, str)]
    assert any("does not add up to the device power of rack A01" in n for n in notes)


def _soffice(src: Path, fmt: str, out: Path, profile: Path) -> Path:
    exe = shutil.which("soffice")
    if exe is None:
        pytest.skip("LibreOffice (soffice) is not installed; `make test` installs it")
    # its own profile per run: two runs sharing one hand their work to the first instance
    subprocess.run(
        [
            exe,
            "--headless",
            "--norestore",
            "--nolockcheck",
            f"-env:UserInstallation={profile.as_uri()}",
            "--convert-to",
            fmt,
            "--outdir",
            str(out),
            str(src),
        ],
        check=False,
        capture_output=True,
        timeout=180,
        env={**os.environ, "HOME": str(profile.parent)},
    )
    result = out / f"{src.stem}.{fmt}"
    # soffice exits 0 even when it fails: the file is the only proof
    assert result.is_file(), f"LibreOffice did not write {result}"
    return result


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_libreoffice_recalculates_to_the_plans_numbers_and_prints(plan, tmp_path, lang):
    evil = plan.scenario.with_changes({"description": '=HYPERLINK("http://x","click")'})
    p = dataclasses.replace(
        plan,
        scenario=evil,
        tables={**plan.tables, "rack_layout": LAYOUT, "power_allocation": ALLOC},
    )
    src = write_appendix(p, tmp_path / "appendix.xlsx", lang)
    recalced = _soffice(src, "xlsx", tmp_path / "lo", tmp_path / "profile")
    wb = openpyxl.load_workbook(recalced, data_only=True)
    ws = wb[sheet_name("power_allocation", lang)]
    # the status words in this language, as the plan's table shows them
    words = dict(zip(ALLOC["status"], p.table("power_allocation", lang).iloc[:, 8], strict=True))
    for row in ws.iter_rows(min_row=2, values_only=True):
        devices, device_kw, alloc_kw, headroom_kw, pct, st = HAND[row[0]]
        assert row[1] == devices
        assert row[2] == pytest.approx(device_kw)
        assert row[3] == pytest.approx(alloc_kw)
        assert row[5] == pytest.approx(headroom_kw)
        assert row[6] == pytest.approx(pct, rel=1e-6)
        assert row[8] == words[st]
    # and the pandas values of the plan, cell for cell
    want = p["power_allocation"]
    got = pd.DataFrame(_rows(ws, 2), columns=list(want.columns))
    for col in ("devices", "device_power_kw", "allocated_kw", "headroom_kw", "headroom_pct"):
        assert got[col].tolist() == pytest.approx(want[col].tolist(), rel=1e-9), col
    summary = wb[sheet_name("summary", lang)]
    assert summary["A2"].value == '=HYPERLINK("http://x","click")'  # still text after LO
    pdf = _soffice(src, "pdf", tmp_path / "pdf", tmp_path / "profile2")
    assert pdf.read_bytes()[:5] == b"%PDF-"


_WORD = re.compile(
    r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*?)</word>'
)


def _pdf_words(pdf: Path) -> list[list[tuple[str, float, float, float, float]]]:
    """Each printed page's words with their boxes (text, x0, y0, x1, y1 in pt, y down), as
    poppler's ``pdftotext -bbox`` reads them: a line clipped out of its cell is not there."""
    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.skip("pdftotext (Debian poppler-utils) is not installed; `make test` installs it")
    out = subprocess.run(
        [exe, "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    return [
        [
            (html.unescape(m[5]), float(m[1]), float(m[2]), float(m[3]), float(m[4]))
            for m in _WORD.finditer(page)
        ]
        for page in out.split("<page ")[1:]
    ]


def _header_label(words, label: str, taken=(), *, top_by=math.inf, left_by=math.inf):
    """The words that print ``label`` whole, read as a left-aligned cell wraps it (left to
    right, then down from the cell's left edge), the top-most such starting above
    ``top_by`` and left of ``left_by``; None if it is not whole."""
    target = "".join(label.split())
    words = [w for w in words if w not in taken]  # words another label printed
    starts = [
        w for w in words if w[0] and target.startswith(w[0]) and w[2] <= top_by and w[1] <= left_by
    ]
    for start in sorted(starts, key=lambda w: (w[2], w[1])):
        chosen, rest, cur = [start], target[len(start[0]) :], start
        while rest:
            line_h = cur[4] - cur[2]
            nxt = [
                w
                for w in words
                if w[0]
                and rest.startswith(w[0])
                and w not in chosen
                and w[2] <= start[2] + 6 * line_h
                # the next word on the line, one space on, or the next line's first
                # word at the cell's left edge
                and (
                    (abs(w[2] - cur[2]) < 0.3 * line_h and -0.5 < w[1] - cur[3] < line_h)
                    or (w[2] > cur[2] + 0.5 * line_h and abs(w[1] - start[1]) < 1)
                )
            ]
            if not nxt:
                break
            cur = min(nxt, key=lambda w: (w[2], w[1]))
            chosen.append(cur)
            rest = rest[len(cur[0]) :]
        if not rest:
            return chosen
    return None


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_default_appendix_prints_whole_headers_on_pages_a_reader_accepts(plan, tmp_path, lang):
    src = write_appendix(plan, tmp_path / "appendix.xlsx", lang)
    wb = openpyxl.load_workbook(src)
    pages = _pdf_words(_soffice(src, "pdf", tmp_path / "pdf", tmp_path / "profile"))
    # Which sheet a page belongs to: its page header (the top line) ends with the sheet's
    # name; the footer (the bottom line) is the page number.
    by_sheet: dict[str, list] = {}
    for words in pages:
        top, bottom = min(w[2] for w in words), max(w[2] for w in words)
        head = " ".join(w[0] for w in sorted(words, key=lambda w: w[1]) if w[2] < top + 1)
        sheet = max((s for s in wb.sheetnames if head.endswith(s)), key=len, default="?")
        by_sheet.setdefault(sheet, []).append([w for w in words if top + 1 <= w[2] < bottom - 1])
    # Page count. Before this layout the appendix printed on 66 pages (en), the port map on 16 and
    # the IP plan on 12 (~36 and ~28 rows a page at 10 pt with Excel's default margins),
    # its header cells cut. Compact (8 pt, 8 mm margins) an A4 landscape page is
    # (210 - 2 × 8) mm = 550 pt tall: less a header of up to 3 lines (38 pt), 512 pt ÷
    # (8 pt × 1.3) = 49 rows in English, ÷ (8 pt × 1.45) = 44 in Chinese at 100 %, more
    # where fit-to-width shrinks the sheet (measured: port map 53 rows a page in English,
    # 45 in Chinese). A reader gets at least 45 rows a page: 582 port-map rows on at most
    # ⌈582 / 45⌉ = 13 pages and 340 IP-plan rows on ⌈340 / 45⌉ = 8.
    for table in ("port_map", "ip_plan"):
        n = len(plan[table])
        assert len(by_sheet[sheet_name(table, lang)]) <= math.ceil(n / 45), table
    # All of it: measured 82 pages (en) and 85 (zh): summary 1; port map 9/12 and IP plan
    # 7/8 (above); assumptions 13/15 (the sources wrap, where they were cut at the page
    # edge on 3 pages); equipment list 4 (two pages across with its pinned firmware and
    # driver columns, the model column repeated) and capex 4 (their price sources
    # wrapped); the wide tables of few rows (training, inference, accelerator comparison,
    # checkpoints, pools, storage tiers: 18-39 columns) 1-3 pages across so they print at
    # 60 % or more, where they printed on one page at ~35 %; the schedule, phase acceptance
    # and acceptance tests 1-2 each; the other sheets one page each. Two pages of slack
    # for fonts that wrap differently.
    assert len(pages) <= 87
    for sheet in wb.sheetnames[1:]:  # every table sheet: its header labels print whole
        labels = [c.value for c in wb[sheet][1] if c.value]
        found: set[str] = set()
        for i, words in enumerate(by_sheet[sheet]):
            # the header row repeats on every page: its first cell at the page's left edge
            # (the sheet's first column repeats when it prints over pages across)
            first = _header_label(words, labels[0], left_by=min(w[1] for w in words) + 1)
            assert first, f"{sheet} page {i + 1}: no header row"
            # the other labels on this page, in the same row: starting no lower than the
            # first cell's text ends (a header cell's text is centred in the row)
            boxes: dict[str, list] = {labels[0]: first}
            for lab in sorted(labels[1:], key=len, reverse=True):  # 'Unit price' before 'Unit'
                got = _header_label(
                    words,
                    lab,
                    [w for v in boxes.values() for w in v],
                    top_by=max(w[4] for w in first),
                )
                if got:
                    boxes[lab] = got
            found |= set(boxes)
            header = [w for v in boxes.values() for w in v]
            band_top = min(w[2] for w in header)
            band_bottom = max(w[4] for w in header)
            body = [w for w in words if w[2] > band_top and w not in header]
            # a header line that spills out of its row overlaps the first row's text
            assert not body or min(w[2] for w in body) >= band_bottom - 0.1, (
                f"{sheet} page {i + 1}: header text runs into the rows"
            )
            # fit to width keeps the text readable: nothing printed smaller than 8-pt text
            # at 60 %, 4.8 pt. A word's box is 1.27 em tall in DejaVu Sans (LibreOffice's
            # Calibri here) and 1.03 em in Noto Sans CJK, which a Chinese workbook prints
            # some Latin words in too (measured: 8-pt English port-map rows at 100 % give
            # 10.2 pt boxes; 10-pt Chinese headers and 'GPU 服务器' at 58 %, 5.98 pt); before,
            # the 17-column equipment list printed at ~35 %: 10-pt text at 3.5 pt.
            em = 1.03 if lang == "zh" else 1.27
            small = [w[0] for w in words if (w[4] - w[2]) / em < 4.8]
            assert not small, f"{sheet} page {i + 1}: printed under 4.8 pt: {small[:5]}"
        missing = [lab for lab in labels if lab not in found]
        assert not missing, f"{sheet}: header text cut: {missing}"


def _check_formula_cells(table, df, written, values, unpriced) -> int:
    """Each formula cell of a cost sheet, as LibreOffice computed it, against the plan's
    table (the last row against the sum of the priced lines); an unpriced line reads
    ``unpriced``, never 0. The number of formula cells checked."""
    keys = list(df.columns)
    assert len(values) == len(df) + 1, table  # the rows, then the total
    checked = 0
    for i, (f_row, v_row) in enumerate(zip(written, values, strict=True)):
        for j, (f, v) in enumerate(zip(f_row, v_row, strict=True)):
            if not (isinstance(f, str) and f.startswith("=")):
                continue
            checked += 1
            if i == len(df):  # the total row: the sum of the column's priced lines
                mask = df["priced"].to_numpy(bool) if "priced" in df else slice(None)
                want = float(df.loc[mask, keys[j]].sum())
            else:
                want = float(df[keys[j]].iloc[i])
            # every formula cell is the pandas value to the cent (discount factors, which
            # are not money, to 1e-9)
            tolerance = 1e-9 if "factor" in keys[j] else 0.005
            assert v == pytest.approx(want, abs=tolerance), (table, i, keys[j], f, v, want)
    if "priced" in df:
        amount = {
            "cost_capex": "capex_usd",
            "cost_opex": "usd_per_year",
            "equipment_list": "extended_price_usd",
        }[table]
        col = keys.index(amount)
        for row, ok in zip(values, [*df["priced"].tolist(), True], strict=True):
            if not ok:
                assert row[col] == unpriced, (table, row)
    return checked


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "currency"), [("en", "USD"), ("zh", "CNY")])
def test_libreoffice_recalculates_the_cost_sheets_to_the_plans_figures(tmp_path, lang, currency):
    p = hubplan.build_plan(hubplan.default_scenario().with_changes({"cost.currency": currency}))
    src = write_appendix(p, tmp_path / "appendix.xlsx", lang)
    formulas = openpyxl.load_workbook(src)
    wb = openpyxl.load_workbook(
        _soffice(src, "xlsx", tmp_path / "lo", tmp_path / "prof"), data_only=True
    )
    unpriced = "未定价" if lang == "zh" else "unpriced"
    summary = p["cost_summary"].iloc[0]
    checked = 0
    for table, source in (
        ("cost_capex", "cost_capex"),
        ("cost_opex", "cost_opex"),
        ("cost_cashflow", "cost_cashflow"),
        ("equipment_list", "cost_equipment"),
    ):
        written = _rows(formulas[sheet_name(table, lang)], 2)
        values = _rows(wb[sheet_name(table, lang)], 2)
        checked += _check_formula_cells(table, p[source], written, values, unpriced)
    # formula cells: capex 31 lines, all priced, × quantity × unit price + total = 32;
    # low and high on the 29 lines with a unit range (not the two share lines, spares and
    # installation, whose range is the share of the low and high totals) + total: 2 × 30
    # → 92; opex maintenance, insurance, staff 2, licences + total = 6 (energy is the
    # plan's figure: kW × PUE × hours × tariff is not quantity × unit); cash flow 33 rows
    # (4 purchases, 5 years × 5 opex categories: energy, maintenance, insurance, staff,
    # licences; 4 residuals) × (factor, present value) + 2 totals = 68; equipment list 26
    # priced rows (10 devices; the bill's 13 optics and cable rows, spares, installation
    # and the fit-out; the 4 NICs inside the servers are 0 as values) + total = 27: 193. In
    # CNY each money cell has its twin, the share lines' low and high too: capex 3 × 32 =
    # 96, opex 6 rows + total = 7, cash flow 2 × (33 + 1) = 68, equipment 26 + 4 NICs at
    # 0 + total = 31: 202 more, 395.
    assert checked == (193 if currency == "USD" else 395)
    capex = _rows(wb[sheet_name("cost_capex", lang)], 2)[-1]
    opex = _rows(wb[sheet_name("cost_opex", lang)], 2)[-1]
    flow = _rows(wb[sheet_name("cost_cashflow", lang)], 2)[-1]
    equipment = _rows(wb[sheet_name("equipment_list", lang)], 2)[-1]
    cols = list(p["cost_capex"].columns)
    # the default plan's capex, every line priced (worked line by line in
    # test_cost_prices.py): hardware 5 488 400 (servers) + 942 730 (storage) + 630 000
    # (switches and UFM) + 459 310 (optics and cables) + 51 000 (management servers) =
    # 7 571 440; spares 54 465.5; installation 757 144; fit-out 257.878 kW × 11 700
    # → 11 400 226.89 USD; the total row says every line is priced
    priced_capex = 7_571_440 + 54_465.5 + 757_144 + 257.878409090909 * 11_700
    assert capex[cols.index("capex_usd")] == pytest.approx(priced_capex, abs=0.005)
    complete = "全部项目均已定价" if lang == "zh" else "Every line priced"
    assert capex[1] == complete
    # the priced equipment list adds up to the same capex
    assert equipment[list(p["cost_equipment"].columns).index("extended_price_usd")] == (
        pytest.approx(priced_capex, abs=0.005)
    )
    # opex a year: energy 190 220.16 (facility tests) + maintenance 12 % of the 7 112 130
    # of systems it covers (hardware less optics and cables) = 853 455.60 + insurance
    # 0.3 % of the capex = 34 200.68 + staff 1 × 90 520 + 8.42 × 57 300 (test_cost_staff)
    # + licences 0 = 1 650 862.44 USD. (In CNY the staff are paid Chinese salaries:
    # test_cost_staff.)
    opex_total = opex[list(p["cost_opex"].columns).index("usd_per_year")]
    if currency == "USD":
        assert opex_total == pytest.approx(
            190_220.1588 + 0.12 * 7_112_130 + 0.003 * priced_capex + 90_520 + 8.42 * 57_300,
            abs=0.005,
        )
    assert opex_total == pytest.approx(summary["opex_usd_per_year"], abs=0.005)
    assert opex[1] == complete
    # the NPV of owning as the sum of the discounted flows, the stage's figure
    npv_col = list(p["cost_cashflow"].columns).index("present_usd")
    assert flow[npv_col] == pytest.approx(summary["npv_own_usd"], abs=0.005)
    if currency == "CNY":  # the CNY twins are the USD cells × 7.1884 (the dated rate)
        cny = list(p["cost_capex"].columns).index("capex_cny")
        assert capex[cny] == pytest.approx(priced_capex * 7.1884, abs=0.01)
        present_cny = list(p["cost_cashflow"].columns).index("present_cny")
        assert flow[present_cny] == pytest.approx(summary["npv_own_usd"] * 7.1884, abs=0.01)


# -- delivery sheets: schedule and acceptance --------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_schedule_and_acceptance_sheets_follow_the_cost_sheets(plan, lang):
    wb = build_appendix(plan, lang)
    names = wb.sheetnames
    cash = names.index(sheet_name("cost_cashflow", lang))
    assert names[cash + 1 : cash + 4] == [
        sheet_name(t, lang) for t in ("schedule", "phase_acceptance", "acceptance")
    ]
    assert names[cash + 1 : cash + 4] == (
        ["Schedule", "Phase acceptance", "Acceptance tests"]
        if lang == "en"
        else ["实施进度计划", "阶段验收标准", "验收测试"]
    )
    ws = wb[sheet_name("schedule", lang)]
    head = [c.value for c in ws[1]]
    col = {
        k: openpyxl.utils.get_column_letter(i + 1) for i, k in enumerate(plan["schedule"].columns)
    }
    # rack_1 (row 9) waits for its servers (row 8), the room (row 5), the network and the
    # storage (rows 6, 7): its start is the latest of their ends
    assert ws["A9"].value == ("Racking (batch 1)" if lang == "en" else "上架（第 1 批）")
    assert ws[f"{col['start_day']}9"].value == "=MAX(H8,H5,H6,H7)"
    assert ws[f"{col['end_day']}9"].value == "=G9+E9+F9"  # start + duration + buffer
    assert ws[f"{col['start_date']}9"].value == "=DATE(2026,1,5)+G9"  # delivery.start_date
    assert ws[f"{col['start_day']}2"].value == 0  # design starts the project: a value
    # below the 20 tasks, one span per phase in the order they first appear
    span = "Phase span" if lang == "en" else "阶段起止"
    assert [ws[f"A{r}"].value for r in range(22, 26)] == [span] * 4
    assert ws["G22"].value == "=MIN(G2:G3,G6:G8,G15)"  # design and procurement's rows
    assert ws["H25"].value == "=MAX(H12:H14,H19:H21)"  # commissioning's rows
    assert ws.max_row == 25 and head[0] == ("Task" if lang == "en" else "任务")
    acc = wb[sheet_name("acceptance", lang)]
    keys = list(plan["acceptance"].columns)
    floor = keys.index("floor") + 1
    assert acc.cell(3, floor).value == "=G3*H3"  # expected × floor share
    assert acc.cell(3, keys.index("floor_share") + 1).value == 0.9
    assert acc.cell(3, keys.index("floor_share") + 1).number_format == "0%"
    assert wb[sheet_name("phase_acceptance", lang)].max_row == 14  # 13 criteria
    notes = [r[0] for r in _rows(wb[sheet_name("summary", lang)]) if r[0]]
    assert any(str(n).startswith(("Schedule and acceptance:", "实施进度与验收：")) for n in notes)
    assert any(str(n).startswith(("Cost sheets:", "成本表：")) for n in notes)


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_libreoffice_recalculates_the_schedule_and_acceptance_to_the_plans_figures(
    plan, tmp_path, lang
):
    src = write_appendix(plan, tmp_path / "appendix.xlsx", lang)
    formulas = openpyxl.load_workbook(src)
    wb = openpyxl.load_workbook(
        _soffice(src, "xlsx", tmp_path / "lo", tmp_path / "prof"), data_only=True
    )
    checked = 0
    for table in ("schedule", "acceptance"):
        df = plan[table]
        keys = list(df.columns)
        written = _rows(formulas[sheet_name(table, lang)], 2)[: len(df)]
        values = _rows(wb[sheet_name(table, lang)], 2)[: len(df)]
        for i, (f_row, v_row) in enumerate(zip(written, values, strict=True)):
            for j, (f, v) in enumerate(zip(f_row, v_row, strict=True)):
                if not (isinstance(f, str) and f.startswith("=")):
                    continue
                checked += 1
                want = df[keys[j]].iloc[i]
                if isinstance(want, pd.Timestamp):
                    assert v == want.to_pydatetime(), (table, i, keys[j], f, v)
                elif isinstance(want, bool | np.bool_):
                    assert v is bool(want), (table, i, keys[j], f, v)
                else:
                    assert v == pytest.approx(float(want), abs=1e-9), (table, i, keys[j], f, v)
    # schedule: 20 tasks × (end, slack, critical, two dates) + 19 starts (design has no
    # predecessor) = 119; acceptance: 27 floors. 146 formula cells.
    assert checked == 20 * 5 + 19 + 27
    # the task column shows labels ("Racking (batch 1)"): key the rows by the plan's codes
    sched = dict(
        zip(plan["schedule"]["task"], _rows(wb[sheet_name("schedule", lang)], 2), strict=False)
    )
    col = {k: i for i, k in enumerate(plan["schedule"].columns)}
    # Worked by hand from the delivery defaults (buffer 20 %, rounded up to whole days;
    # 21 servers in batches of 11 and 10; 484 links: 144 compute endpoints over two tiers,
    # 64 storage, 62 in-band, 70 BMC): design 6 weeks = 42 → 50.4 → 51 days; the second
    # batch's servers 20 + 4 weeks = 168 → 201.6 → 202 → day 253; racking ⌈10 ÷ 16⌉ = 1 → 2
    # → 255; network 5 + ⌈484 × 10/21 ÷ 192⌉ = 7 → 8.4 → 9 → 264; commissioning 15 +
    # ⌈10 ÷ 64⌉ = 16 → 19.2 → 20 → 284; trial ⌈24 h⌉ + 1 = 2 → 3 → 287: hand-over of batch
    # 2 on day 287, 2026-01-05 + 287 days = 2026-10-19, on the critical path. The fit-out
    # (16 weeks = 112 → 135 days from day 51, to 186) has 58 days of slack: the second
    # batch's cabling starts on day 255 after the first's, so the first batch's cabling
    # (9 days) and racking (2) must start by 255 − 9 − 2 = 244, and 244 − 186 = 58.
    last = sched["handover_2"]
    assert last[col["end_day"]] == 287 and last[col["critical"]] is True
    assert last[col["end_date"]] == dt.datetime(2026, 10, 19)
    assert sched["fitout"][col["slack_days"]] == 58 and sched["fitout"][col["critical"]] is False
    # the phase spans: design and procurement from day 0 to the second batch's servers
    # (253), fit-out 51-186, delivery and racking from the first racking (219) to the
    # second network (264), commissioning 230-287
    phases = _rows(wb[sheet_name("schedule", lang)], 2)[len(plan["schedule"]) :]
    spans = [(r[col["start_day"]], r[col["end_day"]], r[col["duration_days"]]) for r in phases]
    assert spans == [(0, 253, 253), (51, 186, 135), (219, 264, 45), (230, 287, 57)]
    assert phases[0][col["end_date"]] == dt.datetime(2026, 9, 15)  # 2026-01-05 + 253 days
    acc = _rows(wb[sheet_name("acceptance", lang)], 2)
    a = {k: i for i, k in enumerate(plan["acceptance"].columns)}
    floors = [r[a["floor"]] for r in acc]
    # H100 matmul 794.5 TFLOPS (mamf-finder) × 90 % = 715.05; NVLink 480 GB/s (nccl-tests
    # #212) × 95 % = 456; RDMA 392 Gb/s (DGX H100 GPUDirect) × 95 % = 372.4; L40S 362.05
    # × 0.75 × 90 % = 244.38375; hot-tier read 200 GB/s × 90 % = 180
    assert floors[1:4] == pytest.approx([715.05, 456.0, 372.4])
    assert floors[17] == pytest.approx(244.38375)
    assert floors[21] == pytest.approx(180.0)


# -- a table longer than a sheet ---------------------------------------------------------------


def _parts_of(wb, title):
    """The sheets a table was written over, in order: title, "title (2)", ..."""
    out, k = [], 1
    while xlsx_mod.continued_name(title, k) in wb.sheetnames:
        out.append(wb[xlsx_mod.continued_name(title, k)])
        k += 1
    return out


@pytest.mark.parametrize("write_only", [False, True])
def test_a_table_that_fills_a_sheet_exactly_stays_on_one(plan, tmp_path, monkeypatch, write_only):
    # the default port map: 582 links + the header = 583 rows, exactly the (lowered) limit
    assert len(plan["port_map"]) == 582
    monkeypatch.setattr(xlsx_mod, "MAX_SHEET_ROWS", 583)
    wb = openpyxl.load_workbook(write_appendix(plan, tmp_path / "a.xlsx", write_only=write_only))
    (ws,) = _parts_of(wb, "Port map")
    assert ws.max_row == 583 and "Port map (2)" not in wb.sheetnames
    assert list(ws.tables) == ["tbl_port_map"]
    assert _rows(ws, 2) == [list(r) for r in plan.table("port_map", "en").itertuples(index=False)]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("write_only", [False, True])
def test_a_table_one_row_longer_than_a_sheet_runs_over_two(
    plan, tmp_path, monkeypatch, write_only, lang
):
    # 582 links + the header = 583 rows, one more than the (lowered) limit of 582: the
    # first sheet holds the header, 580 links and the note (582 rows), the second the
    # header and the last 2 links
    monkeypatch.setattr(xlsx_mod, "MAX_SHEET_ROWS", 582)
    wb = openpyxl.load_workbook(
        write_appendix(plan, tmp_path / "a.xlsx", lang, write_only=write_only)
    )
    title = sheet_name("port_map", lang)
    first, second = _parts_of(wb, title)
    assert second.title == ("Port map (2)" if lang == "en" else "端口连接表 (2)")
    assert wb.sheetnames.index(second.title) == wb.sheetnames.index(title) + 1
    assert (first.max_row, second.max_row) == (582, 3)
    want = plan.table("port_map", lang)
    header = list(want.columns)
    assert _rows(first)[0] == header and _rows(second)[0] == header  # the header repeated
    note = _rows(first)[-1]
    assert note[0] == (
        "Rows 1–580 of 582: continued on sheet “Port map (2)”."
        if lang == "en"
        else "第 1–580 行，共 582 行：续见工作表“端口连接表 (2)”。"
    )
    assert all(v is None for v in note[1:])
    # every link once, in order
    got = _rows(first, 2)[:-1] + _rows(second, 2)
    assert got == [list(r) for r in want.itertuples(index=False)]
    # each part is its own Excel table over its header and rows, the note outside
    assert (
        first.tables["tbl_port_map"].ref == f"A1:{openpyxl.utils.get_column_letter(len(header))}581"
    )
    assert second.tables["tbl_port_map_2"].ref.endswith("3")
    assert second.freeze_panes == "A2" and second.print_title_rows == "$1:$1"
    notes = [r[0] for r in _rows(wb[sheet_name("summary", lang)]) if r[0]]
    split = [n for n in notes if str(n).startswith(title + ("：" if lang == "zh" else ":"))]
    assert split and "Port map (2)" in split[0] if lang == "en" else "端口连接表 (2)" in split[0]


@pytest.mark.parametrize("write_only", [False, True])
def test_every_row_of_every_table_is_in_the_appendix_at_any_sheet_size(
    plan, tmp_path, monkeypatch, write_only
):
    # A limit of 30 rows splits the port map (582 links), the IP plan (340), the rack
    # layout (54) and the cost sheets: the priced equipment list (30 rows and its total),
    # the capex (31) and the cash flow (33). A table that runs over several sheets holds
    # the plan's values (its formulas would point at rows of one), and so does the power
    # allocation (12 racks), whose SUMIFs would read a split rack layout. The schedule (20
    # tasks, 4 phase spans and the header: 25 rows) keeps its formulas.
    monkeypatch.setattr(xlsx_mod, "MAX_SHEET_ROWS", 30)
    wb = openpyxl.load_workbook(write_appendix(plan, tmp_path / "a.xlsx", write_only=write_only))
    # (the Summary, Findings and Assumptions grow with the scenario, not with the GPUs:
    # they are not split)
    fixed = {"Summary", "Findings", "Assumptions"}
    assert all(ws.max_row <= 30 for ws in wb.worksheets if ws.title not in fixed)
    tables, _ = xlsx_mod._plan_sheets(plan)
    split = set()
    for t in tables:
        parts = _parts_of(wb, sheet_name(t, "en"))
        if len(parts) == 1:
            continue
        split.add(t)
        source = "cost_equipment" if t == "equipment_list" else t
        want = plan.table(source, "en")
        got = []
        for k, ws in enumerate(parts, start=1):
            rows = _rows(ws)
            assert rows[0] == list(want.columns), (t, k)
            got += rows[1:-1] if k < len(parts) else rows[1:]  # less the note
        assert len(got) == len(want), t
        for g_row, (_, e_row) in zip(got, want.iterrows(), strict=True):
            assert all(_same(g, e) for g, e in zip(g_row, e_row.tolist(), strict=True)), t
    assert {
        "port_map",
        "ip_plan",
        "rack_layout",
        "equipment_list",
        "cost_capex",
        "cost_cashflow",
    } <= split
    assert "schedule" not in split and wb["Schedule"]["H3"].value == "=G3+E3+F3"
    power = _rows(wb[sheet_name("power_allocation", "en")], 2)
    assert not any(isinstance(v, str) and v.startswith("=") for r in power for v in r)
    notes = [r[0] for r in _rows(wb["Summary"]) if r[0]]
    assert any("Port map: 582 rows, more than a sheet holds (30 rows" in str(n) for n in notes)
    assert any(str(n).startswith("Equipment list: written as values") for n in notes)


def test_a_sheet_too_small_to_hold_a_row_is_refused(monkeypatch):
    monkeypatch.setattr(xlsx_mod, "MAX_SHEET_ROWS", 2)
    with pytest.raises(hubplan.HubplanError, match="MAX_SHEET_ROWS = 2"):
        xlsx_mod.sheet_parts(5)


# -- CLI --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_plan_writes_the_appendix_and_netbox(tmp_path, capsys):
    out = tmp_path / "appendix.xlsx"
    rc = cli_main(["plan", "--xlsx", str(out), "--netbox", str(tmp_path / "nb"), "--lang", "zh"])
    text = capsys.readouterr().out
    assert rc == 0 and out.is_file()
    assert f"附表已写入 {out}" in text and "GPU 合计 (H100 SXM5 80GB / DGX H100): 160" in text
    assert "摘要" in openpyxl.load_workbook(out).sheetnames
    assert (tmp_path / "nb" / "cables.csv").is_file()


def test_exported_files_are_readable_like_any_new_file(plan, tmp_path):
    # A temporary file from mkstemp is owner-only (0600); a reviewer on a shared drive must
    # be able to open the appendix: the saved file gets 0666 less the umask (0644 at 022).
    old = os.umask(0o022)
    try:
        xlsx = write_appendix(plan, tmp_path / "a.xlsx", "en")
        yaml_path = plan.scenario.save(tmp_path / "s.yaml")
    finally:
        os.umask(old)
    assert stat.S_IMODE(xlsx.stat().st_mode) == 0o644
    assert stat.S_IMODE(yaml_path.stat().st_mode) == 0o644
