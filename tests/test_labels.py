"""Every label exists in English and Chinese, with the same placeholders."""

import pandas as pd
import pytest

import hubplan
from hubplan.core import labels


def test_every_label_has_both_languages():
    cat = labels.catalog()
    assert (cat["en"].str.strip() != "").all()
    missing = cat.index[cat["zh"].str.strip() == ""].tolist()
    assert not missing, f"no Chinese label for {missing}"


def test_placeholders_match_across_languages():
    cat = labels.catalog()
    for key, row in cat.iterrows():
        assert labels.placeholders(row["en"]) == labels.placeholders(row["zh"]), key


def test_every_table_column_and_finding_has_a_label(default):
    plan = hubplan.build_plan(default)
    cat = labels.catalog()
    for name, df in plan.tables.items():
        missing = [c for c in df.columns if c not in cat.index and not c.endswith("_zh")]
        assert not missing, f"table {name}: no label for {missing}"
    for code in plan.findings["code"]:
        assert f"finding.{code}" in cat.index and f"fix.{code}" in cat.index


def test_localize_headers_and_values():
    df = pd.DataFrame({"gpus": [136], "binding": ["compute"], "model_state_gb": [1120.0]})
    zh = labels.localize(df, "zh-CN")
    assert list(zh.columns) == ["GPU 数", "瓶颈", "模型状态显存 [GB]"]
    assert zh.iloc[0, 1] == "算力"


def test_language_aliases():
    assert labels.label("gpus", "zh_CN") == labels.label("gpus", "zh-Hans") == "GPU 数"
    with pytest.raises(hubplan.HubplanError, match="language = 'de'"):
        labels.label("gpus", "de")


def test_format_value_uses_catalogue_formats():
    assert labels.format_value("gpus", 1234) == "1,234"
    assert labels.format_value("time_margin", 0.3) == "30%"
    assert labels.format_value("fits", True) == "True"
    assert labels.format_value("gpus", float("nan")) == ""


def test_general_format_keeps_the_precision_that_decides_a_check():
    # A 1.9 GHz CPU against a 2.0 GHz floor must not read "2" beside a "warn".
    assert labels.format_value("value", 1.9) == "1.9"
    assert labels.format_value("required", 2.0) == "2"
    assert labels.format_value("value", 0.375) == "0.375"


def test_a_torn_label_row_is_refused(tmp_path, monkeypatch):
    # An unquoted comma in the English text pushed the Chinese into the wrong column of a
    # row (fix.third_tier_early printed half a sentence in both languages).
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "labels.csv").write_text(
        "key,unit,en,zh,excel_format,description\nfix.x,,Fewer switches, optics,少,,\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(labels, "_PACKAGE", tmp_path)
    labels.catalog.cache_clear()
    try:
        with pytest.raises(hubplan.HubplanError, match=r"rows \['fix.x'\] do not have the 6"):
            labels.catalog()
    finally:
        monkeypatch.undo()
        labels.catalog.cache_clear()
