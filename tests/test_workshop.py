"""The workshop dashboard's scenario bar, headless: open a saved scenario, save the one on
screen, compare, export the appendix of the plan on screen; and the stale figures an input
error leaves behind."""

from pathlib import Path

import openpyxl
import pytest

import hubplan
from hubplan.core.paths import templates_dir
from hubplan.workshop import dashboard, file_stem

PRETRAIN = str(templates_dir() / "scenarios" / "pretrain-16k.yaml")
DEFAULT = str(templates_dir() / "scenarios" / "default.yaml")


@pytest.fixture
def panel(tmp_path):
    return dashboard(folder=tmp_path / "mine")


def _summary(path: Path) -> dict:
    """The Summary sheet's title and its headline rows (figure -> value)."""
    ws = openpyxl.load_workbook(path, read_only=True)["Summary"]
    rows = list(ws.iter_rows(values_only=True))
    return {"title": rows[0][0]} | {r[0]: r[2] for r in rows if r and len(r) > 2 and r[0]}


def test_the_bar_lists_the_examples_and_opens_one(panel):
    shown = dict(panel.bar.pick.options)
    assert shown["Example: pretrain-16k"] == PRETRAIN
    panel.bar.pick.value = PRETRAIN
    # templates/scenarios/pretrain-16k.yaml: 16 384 H100 in 8-GPU DGX servers = 2 048
    # servers, plus one spare per twenty (ceil(2 048 / 20) = 103) = 2 151 servers, 17 208 GPUs
    assert (panel.figures["servers"], panel.figures["gpus"]) == (2151, 17208)
    # the file gives tokens (15.6e12), not text: the dashboard's controls follow the file
    assert "tokens_b" in panel.controls and "data_gb" not in panel.controls
    assert panel.controls["tokens_b"].value == pytest.approx(15_600)
    assert panel.bar.name.value == "405B pre-training on 16K H100"
    assert "Opened" in panel.bar.status.value


def test_a_file_that_does_not_load_leaves_the_dashboard_as_it_was(panel, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "broken.yaml").write_text("schema_version: 1\nname: x\nfacility: {pue: 0.5}\n")
    panel.bar.relabel()  # re-reads the folder
    panel.bar.pick.value = str(mine / "broken.yaml")
    assert "Cannot open" in panel.bar.status.value and "pue" in panel.bar.status.value
    assert panel.figures["gpus"] == 168  # still the default plan


def test_save_as_new_round_trips_and_never_overwrites(panel, tmp_path):
    panel.controls["rack_kw"].value = 60
    panel.bar.name.value = "华东 推理/二期"
    path = panel.bar.save_current()
    assert path == tmp_path / "mine" / "华东 推理_二期.yaml"
    saved = hubplan.load_scenario(path)
    assert saved.name == "华东 推理/二期"
    assert saved.facility.rack_budget_kw == 60
    assert saved == panel.scenario()  # what is on screen, exactly
    # the new file is listed, and a second save under the same name is refused
    assert str(path) in dict(panel.bar.pick.options).values()
    before = path.read_bytes()
    panel.controls["rack_kw"].value = 30
    assert panel.bar.save_current() is None
    assert "exists already" in panel.bar.status.value
    assert path.read_bytes() == before


def test_export_writes_the_plan_on_screen(panel, tmp_path):
    panel.bar.pick.value = PRETRAIN
    panel.bar.name.value = "client 16K"
    path = panel.bar.export_current()
    assert path == tmp_path / "mine" / "client 16K-appendix.xlsx"
    summary = _summary(path)
    # the 16K plan on screen (2 151 servers, see above), not the default one (21)
    assert summary["title"].startswith("405B pre-training on 16K H100")
    assert summary["Total servers"] == 2151
    # a second export never overwrites the first (which the user may have edited)
    again = panel.bar.export_current()
    assert again == tmp_path / "mine" / "client 16K-appendix (2).xlsx"
    assert _summary(path)["Total servers"] == 2151


def test_export_and_save_are_refused_while_an_input_error_shows(panel, tmp_path):
    # 100 000 B parameters in 15 days need more servers than three switch tiers reach
    panel.controls["params_b"].value = 100_000
    assert panel.error
    assert panel.bar.export_current() is None
    assert panel.bar.save_current() is None
    assert "fix it first" in panel.bar.status.value
    assert not (tmp_path / "mine").exists()


def test_compare_puts_the_screen_beside_a_file(panel):
    panel.bar.other.value = PRETRAIN
    panel.bar.compare.click()
    table = panel.bar.comparison.value
    assert "On screen" in table and "405B pre-training on 16K H100" in table
    assert "17,208" in table and "168" in table


def test_an_input_error_marks_the_figures_stale_until_fixed(panel):
    panel.controls["params_b"].value = 100_000
    assert "hubplan-stale" in panel.widget._dom_classes
    assert 'id="hubplan-stale"' in panel.message.value
    panel.language.value = "zh"  # the note follows the language
    assert "上一次有效输入" in panel.message.value
    panel.controls["params_b"].value = 70
    assert panel.error is None
    assert "hubplan-stale" not in panel.widget._dom_classes
    assert panel.message.value == ""


def test_the_bar_speaks_chinese(panel):
    panel.language.value = "zh"
    assert panel.bar.save.description == "另存为新场景"
    assert dict(panel.bar.pick.options)["示例: pretrain-16k"] == PRETRAIN


def test_file_stem_keeps_chinese_and_drops_what_no_file_system_takes():
    assert file_stem('a:b*c?"d<e>f|g') == "a_b_c__d_e_f_g"
    assert file_stem("  西部 枢纽  ") == "西部 枢纽"
    assert file_stem(" . ") == ""
