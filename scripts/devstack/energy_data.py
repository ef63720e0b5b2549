"""The demo data: a deterministic SQLite file of electricity consumption, one per instance (``energy.db``).

Registered in Superset as the ``Energy`` database by the seeder (``scripts/devstack/seed.py``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import os
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from scripts.devstack.config import Instance

# region, federal district, population (Rosstat, 1 January 2024, rounded)
REGIONS: tuple[tuple[str, str, int], ...] = (
    ("Москва", "Центральный", 13_150_000),
    ("Санкт-Петербург", "Северо-Западный", 5_600_000),
    ("Краснодарский край", "Южный", 5_820_000),
    ("Республика Татарстан", "Приволжский", 4_000_000),
    ("Свердловская область", "Уральский", 4_240_000),
    ("Новосибирская область", "Сибирский", 2_780_000),
)
# source → tariff in roubles per MWh (2024)
SOURCES: dict[str, float] = {"Газ": 2900.0, "Уголь": 2600.0, "Атом": 2300.0, "Гидро": 1600.0, "ВИЭ": 4800.0}
# region → share of each source in its supply (sums to 1)
SOURCE_MIX: dict[str, dict[str, float]] = {
    "Москва": {"Газ": 0.72, "Уголь": 0.03, "Атом": 0.17, "Гидро": 0.05, "ВИЭ": 0.03},
    "Санкт-Петербург": {"Газ": 0.55, "Уголь": 0.02, "Атом": 0.33, "Гидро": 0.07, "ВИЭ": 0.03},
    "Краснодарский край": {"Газ": 0.60, "Уголь": 0.05, "Атом": 0.15, "Гидро": 0.10, "ВИЭ": 0.10},
    "Республика Татарстан": {"Газ": 0.80, "Уголь": 0.02, "Атом": 0.08, "Гидро": 0.08, "ВИЭ": 0.02},
    "Свердловская область": {"Газ": 0.58, "Уголь": 0.27, "Атом": 0.10, "Гидро": 0.02, "ВИЭ": 0.03},
    "Новосибирская область": {"Газ": 0.20, "Уголь": 0.55, "Атом": 0.00, "Гидро": 0.22, "ВИЭ": 0.03},
}
DATA_START_YEAR = 2024
DATA_YEARS = 2


def _decades() -> Iterator[tuple[dt.date, int]]:
    """Yield (first day, length in days) of each ten-day period («декада»: 1-10, 11-20, 21-end of month)."""
    for year in range(DATA_START_YEAR, DATA_START_YEAR + DATA_YEARS):
        for month in range(1, 13):
            next_month = dt.date(year + month // 12, month % 12 + 1, 1)
            month_days = (next_month - dt.date(year, month, 1)).days
            for first, length in ((1, 10), (11, 10), (21, month_days - 20)):
                yield dt.date(year, month, first), length


_SCHEMA = """
CREATE TABLE energy_consumption (
    date DATE NOT NULL,
    region TEXT NOT NULL,
    source TEXT NOT NULL,
    consumption_mwh REAL NOT NULL,
    cost_rub REAL NOT NULL
);
CREATE TABLE regions (
    region TEXT PRIMARY KEY,
    federal_district TEXT NOT NULL,
    population INTEGER NOT NULL
);
"""


def energy_rows() -> list[tuple[str, str, str, float, float]]:
    """Return the ``energy_consumption`` rows: ``(date, region, source, consumption_mwh, cost_rub)``.

    Consumption of each region from each of its sources per ten-day period («декада», ``date`` = its first day,
    ISO format) over 2024-2025 (2,088 rows), with a winter peak, a small growth trend, tariff inflation and
    noise. Deterministic: a fixed random seed.
    """
    rng = random.Random(20240101)
    rows = []
    for day, length in _decades():
        years = (day - dt.date(DATA_START_YEAR, 1, 1)).days / 365.25
        season = 1 + 0.22 * math.cos(2 * math.pi * (day.timetuple().tm_yday + length / 2 - 20) / 365.25)
        trend = 1 + 0.015 * years
        inflation = 1 + 0.09 * years
        for region, _district, population in REGIONS:
            total = population * 7.1 / 365.25 * length * season * trend  # ~7.1 MWh per person and year
            for source, tariff in SOURCES.items():
                share = SOURCE_MIX[region][source]
                if share == 0:
                    continue
                mwh = round(total * share * rng.gauss(1.0, 0.03), 1)
                cost = round(mwh * tariff * inflation * rng.gauss(1.0, 0.02), 2)
                rows.append((day.isoformat(), region, source, mwh, cost))
    return rows


def build_energy_db(path: Path) -> int:
    """Create the demo SQLite data file, atomically.

    Tables: ``energy_consumption(date, region, source, consumption_mwh, cost_rub)`` (see ``energy_rows``) and
    ``regions(region, federal_district, population)`` (6 rows).

    Args:
        path: target file; replaced atomically (written beside it, then renamed).

    Returns:
        The number of ``energy_consumption`` rows.
    """
    rows = energy_rows()
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(tmp)) as conn, conn:
        conn.executescript(_SCHEMA)
        conn.executemany("INSERT INTO energy_consumption VALUES (?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO regions VALUES (?, ?, ?)", REGIONS)
    os.replace(tmp, path)
    return len(rows)


def energy_file_ok(path: Path) -> bool:
    """True when ``path`` is an SQLite file whose ``energy_consumption`` table has rows."""
    if not path.is_file():
        return False
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT count(*) FROM energy_consumption").fetchone()[0] > 0
    return False


def ensure_energy_db(inst: Instance) -> bool:
    """Create the instance's ``energy.db`` unless a complete one exists.

    Returns:
        Whether it was created.
    """
    path = inst.energy_db
    if energy_file_ok(path):
        return False
    inst.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    build_energy_db(path)
    return True
