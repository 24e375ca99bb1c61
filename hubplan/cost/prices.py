"""The price catalogue (``data/prices.csv``), read by the cost stage: its loader lives in
:mod:`hubplan.core.prices` so the accelerator and server stages can price a card from a
catalogue server's price too. Names are re-exported here for the cost stage's callers."""

from ..core.prices import (
    CURRENCIES,
    DEFAULT_CNY_PER_USD,
    KINDS,
    PRICE_SCHEMA,
    Price,
    catalogue_price,
    check_prices,
    in_usd,
    optics_key,
    price_table,
    scaled_range,
)

__all__ = [
    "CURRENCIES",
    "DEFAULT_CNY_PER_USD",
    "KINDS",
    "PRICE_SCHEMA",
    "Price",
    "catalogue_price",
    "check_prices",
    "in_usd",
    "optics_key",
    "price_table",
    "scaled_range",
]
