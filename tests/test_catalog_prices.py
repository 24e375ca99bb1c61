"""The price catalogue as a consultant lists it: `hubplan catalog prices`, each row in the
currency its source lists it in, with its range, date and confidence."""

import json

from hubplan.cli import main


def run(capsys, *args):
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_catalog_prices_lists_rows_in_their_own_currency(capsys):
    rows = {r["name"]: r for r in json.loads(run(capsys, "catalog", "prices", "--json"))}
    # The Atlas 800T A2 is priced in CNY as its market lists it: 8 × 120 000 CNY per 910B
    # card (Reuters, early 2024) + the 520 000 CNY host share an 8-card H20 server's
    # 1 400 000 CNY price leaves over 8 × 110 000 CNY of cards = 1 480 000 CNY.
    atlas = rows["Huawei Atlas 800T A2"]
    assert atlas["currency"] == "CNY"
    assert (atlas["price"], atlas["price_low"]) == (8 * 120_000 + 1_400_000 - 8 * 110_000, 960_000)
    # QM9700: FS.com $36 000, NVIDIA about $50 000 (Aug 2024), a 2025 reseller $21 000.
    qm = rows["QM9700"]
    assert (qm["currency"], qm["price"], qm["price_low"], qm["price_high"]) == (
        "USD",
        36_000,
        21_000,
        50_000,
    )
    # Estimates say so, and say how they are derived.
    estimates = [r for r in rows.values() if r["confidence"] == "estimate"]
    assert estimates and all("ESTIMATE" in r["notes"] for r in estimates)


def test_catalog_prices_text_table_in_both_languages(capsys):
    out = run(capsys, "catalog", "prices")
    # "#,##0.##" (cost labels.csv): whole figures without trailing zeros
    assert "Priced per" in out and " 1,480,000 " in out and "1,480,000.00" not in out
    out = run(capsys, "catalog", "prices", "--lang", "zh")
    assert "计价单位" in out and "可信度" in out


def test_catalog_where_narrows_a_table(capsys):
    # The prices listed in CNY are the Chinese-market servers: the Atlas 800 family (800T
    # A2, 800 A2 280T and 376T, 800T A3, 800I A3), the HGX H20 and the HGX H800
    # (data/prices.csv).
    rows = json.loads(
        run(
            capsys,
            "catalog",
            "prices",
            "--where",
            "currency=cny",
            "--where",
            "item_kind=server",
            "--json",
        )
    )
    assert {r["name"] for r in rows} == {
        "Huawei Atlas 800T A2",
        "Huawei Atlas 800 A2 280T",
        "Huawei Atlas 800 A2 376T",
        "Huawei Atlas 800T A3",
        "Huawei Atlas 800I A3",
        "HGX H20 8-GPU (OEM)",
        "HGX H800 8-GPU (DeepSeek node)",
    }


def test_catalog_where_names_the_columns_it_may_use(capsys):
    assert main(["catalog", "servers", "--where", "colour=red"]) == 2
    err = capsys.readouterr().err
    assert "--where 'colour=red'" in err and "vendor" in err and "accelerator" in err
