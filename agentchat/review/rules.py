"""Rule-based review of a dashboard's metadata: the offline engine of run_llm_validation (DESIGN §8, §11; issue 5).

Input is the metadata dict built by ``agentchat.review.runs.dashboard_metadata``::

    {"dashboard": {"id", "title", "owners": [str], "native_filters": [{"id", "name", "filter_type",
                   "dataset_ids": [int], "charts_in_scope": [int] | None, "excluded": [int]}]},
     "charts": [{"id", "name", "viz_type", "description", "dataset_id", "metrics": [str], "dimensions": [str],
                 "time_grain"}],
     "datasets": [{"id", "name", "owners": [str]}]}

Output findings are ``{"rule", "severity": "warning"|"info", "object_type", "object_id", "object_name",
"message_ru", "message_en"}``.
"""

import re
from collections import Counter, defaultdict
from typing import Any

Finding = dict[str, Any]

# rule: (severity, ru label, en label) — labels name the problem in summaries
RULES: dict[str, tuple[str, str, str]] = {
    "chart_without_description": ("warning", "графики без описания", "charts without a description"),
    "dataset_without_owners": ("warning", "датасеты без владельцев", "datasets without owners"),
    "dashboard_without_owners": ("warning", "дашборд без владельцев", "dashboard without owners"),
    "unused_native_filter": ("warning", "неиспользуемые фильтры", "unused native filters"),
    "default_name": ("warning", "названия по умолчанию", "default or untitled names"),
    "duplicate_chart_name": ("warning", "повторяющиеся названия графиков", "duplicate chart names"),
    "mixed_language_name": ("info", "названия на смеси языков", "names mixing languages"),
    "inconsistent_language": ("info", "разные языки в названиях", "names in different languages"),
}

_DEFAULT_NAMES = re.compile(
    r"^\[?\s*(untitled( (chart|dashboard|slice))?|new (chart|dashboard|slice)|без названия|безымянн\w*|"
    r"новый (график|дашборд)|(chart|dashboard|slice|график|дашборд|диаграмма)\s*\d*|test\s*\d*|тест\s*\d*)\s*\]?$"
    r"|^(copy of|копия)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")


def review_findings(metadata: dict[str, Any]) -> list[Finding]:
    """Return every finding of the rules in ``RULES`` for one dashboard's metadata, in a stable order."""
    dashboard = metadata.get("dashboard") or {}
    charts = metadata.get("charts") or []
    datasets = metadata.get("datasets") or []
    findings: list[Finding] = []
    findings += _descriptions(charts)
    findings += _owners(dashboard, datasets)
    findings += _unused_filters(dashboard, charts)
    findings += _names(dashboard, charts)
    return findings


def findings_summary(findings: list[Finding], language: str, *, title: str | None = None) -> str:
    """Return one line such as «3 замечания: графики без описания — 2, …» in ``language`` (``ru``/``en``)."""
    if not findings:
        return f"Замечаний нет{_of(title, 'ru')}." if language != "en" else f"No findings{_of(title, 'en')}."
    counts = Counter(f["rule"] for f in findings)
    index = 1 if language != "en" else 2
    parts = ", ".join(f"{RULES.get(rule, ('', rule, rule))[index]} — {n}" for rule, n in counts.most_common())
    if language == "en":
        return f"{len(findings)} findings{_of(title, 'en')}: {parts}."
    return f"Замечаний: {len(findings)}{_of(title, 'ru')}: {parts}."


def name_language(name: str) -> str | None:
    """Classify a name as ``ru`` (Cyrillic words only), ``en`` (Latin words only), ``mixed`` or None (no words).

    Latin acronyms of up to five capitals (KPI, SQL, ID, YoY…) and units are not counted as English.
    """
    cyrillic = latin = False
    for word in _WORD.findall(name or ""):
        has_cyr, has_lat = bool(_CYRILLIC.search(word)), bool(_LATIN.search(word))
        if has_cyr and has_lat:
            return "mixed"  # one word in two scripts, e.g. a Latin «c» inside a Russian word
        if has_cyr:
            cyrillic = True
        elif has_lat and not (len(word) <= 5 and word.upper() == word) and not _is_unit(word):
            latin = True
    if cyrillic and latin:
        return "mixed"
    return "ru" if cyrillic else "en" if latin else None


def names_language(names: list[str]) -> str | None:
    """Return the language most of ``names`` are written in (``ru``/``en``), or None when none can be told."""
    counts = Counter(lang for lang in map(name_language, names) if lang in ("ru", "en"))
    if not counts:
        return None
    return "ru" if counts["ru"] >= counts["en"] else "en"


def _finding(rule: str, object_type: str, obj: dict[str, Any], ru: str, en: str) -> Finding:
    return {
        "rule": rule,
        "severity": RULES[rule][0],
        "object_type": object_type,
        "object_id": obj.get("id"),
        "object_name": obj.get("name") if object_type != "dashboard" else obj.get("title"),
        "message_ru": ru,
        "message_en": en,
    }


def _descriptions(charts: list[dict]) -> list[Finding]:
    return [
        _finding(
            "chart_without_description",
            "chart",
            c,
            f"У графика «{c.get('name')}» (id {c.get('id')}) нет описания.",
            f"Chart “{c.get('name')}” (id {c.get('id')}) has no description.",
        )
        for c in charts
        if not (c.get("description") or "").strip()
    ]


def _owners(dashboard: dict, datasets: list[dict]) -> list[Finding]:
    found = [
        _finding(
            "dataset_without_owners",
            "dataset",
            ds,
            f"У датасета «{ds.get('name')}» (id {ds.get('id')}) нет владельцев.",
            f"Dataset “{ds.get('name')}” (id {ds.get('id')}) has no owners.",
        )
        for ds in datasets
        if not ds.get("owners")
    ]
    if dashboard and not dashboard.get("owners"):
        found.insert(
            0,
            _finding(
                "dashboard_without_owners",
                "dashboard",
                dashboard,
                f"У дашборда «{dashboard.get('title')}» нет владельцев.",
                f"Dashboard “{dashboard.get('title')}” has no owners.",
            ),
        )
    return found


def _unused_filters(dashboard: dict, charts: list[dict]) -> list[Finding]:
    """A native filter is unused when no chart of the dashboard is both in its scope and on its target dataset."""
    chart_ids = {c.get("id") for c in charts}
    chart_dataset = {c.get("id"): c.get("dataset_id") for c in charts}
    found = []
    for flt in dashboard.get("native_filters") or []:
        if flt.get("filter_type") == "DIVIDER":
            continue
        in_scope = set(flt["charts_in_scope"]) if flt.get("charts_in_scope") is not None else set(chart_ids)
        in_scope = (in_scope & chart_ids) - set(flt.get("excluded") or [])
        targets = set(flt.get("dataset_ids") or [])
        affected = {cid for cid in in_scope if not targets or chart_dataset.get(cid) in targets}
        if affected:
            continue
        obj = {"id": flt.get("id"), "name": flt.get("name")}
        found.append(
            _finding(
                "unused_native_filter",
                "filter",
                obj,
                f"Фильтр «{flt.get('name')}» не влияет ни на один график дашборда "
                "(его датасет не используется графиками в его области действия).",
                f"Filter “{flt.get('name')}” affects no chart of the dashboard "
                "(no chart in its scope uses its dataset).",
            )
        )
    return found


def _names(dashboard: dict, charts: list[dict]) -> list[Finding]:
    found = []
    named = ([("dashboard", dashboard, dashboard.get("title"))] if dashboard else []) + [
        ("chart", c, c.get("name")) for c in charts
    ]
    for object_type, obj, name in named:
        label_ru, label_en = ("Дашборд", "Dashboard") if object_type == "dashboard" else ("График", "Chart")
        label = (name or "").strip()
        if not label or _DEFAULT_NAMES.search(label):
            found.append(
                _finding(
                    "default_name",
                    object_type,
                    obj,
                    f"{label_ru} «{name}» (id {obj.get('id')}) назван по умолчанию — дайте осмысленное название.",
                    f"{label_en} “{name}” (id {obj.get('id')}) has a default name — give it a meaningful one.",
                )
            )
        if name_language(name or "") == "mixed":
            found.append(
                _finding(
                    "mixed_language_name",
                    object_type,
                    obj,
                    f"В названии «{name}» смешаны русский и английский.",
                    f"The name “{name}” mixes Russian and English.",
                )
            )
    found += _duplicates(charts)
    found += _inconsistent(dashboard, named)
    return found


def _duplicates(charts: list[dict]) -> list[Finding]:
    by_name: dict[str, list[dict]] = defaultdict(list)
    for c in charts:
        if (c.get("name") or "").strip():
            by_name[" ".join(c["name"].split()).casefold()].append(c)
    found = []
    for group in by_name.values():
        if len(group) < 2:
            continue
        ids = ", ".join(str(c.get("id")) for c in group)
        for c in group:
            found.append(
                _finding(
                    "duplicate_chart_name",
                    "chart",
                    c,
                    f"Название «{c.get('name')}» носят несколько графиков дашборда (id {ids}).",
                    f"Several charts of the dashboard are named “{c.get('name')}” (ids {ids}).",
                )
            )
    return found


def _inconsistent(dashboard: dict, named: list[tuple[str, dict, str | None]]) -> list[Finding]:
    by_lang: dict[str, list[str]] = defaultdict(list)
    for _type, _obj, name in named:
        lang = name_language(name or "")
        if name and lang in ("ru", "en"):  # a name without words has no language
            by_lang[lang].append(name)
    if not (by_lang["ru"] and by_lang["en"]):
        return []
    ru_names, en_names = ", ".join(by_lang["ru"][:3]), ", ".join(by_lang["en"][:3])
    return [
        _finding(
            "inconsistent_language",
            "dashboard",
            dashboard,
            f"Названия на разных языках: по-русски — {len(by_lang['ru'])} ({ru_names}), "
            f"по-английски — {len(by_lang['en'])} ({en_names}).",
            f"Names are in different languages: Russian — {len(by_lang['ru'])} ({ru_names}), "
            f"English — {len(by_lang['en'])} ({en_names}).",
        )
    ]


def _is_unit(word: str) -> bool:
    return word.casefold() in {"mwh", "kwh", "gwh", "mw", "kw", "km", "kg", "pct", "usd", "eur", "rub"}


def _of(title: str | None, language: str) -> str:
    if not title:
        return ""
    return f" в «{title}»" if language == "ru" else f" in “{title}”"
