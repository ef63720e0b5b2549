"""Rule-based review of a dashboard's metadata: the offline engine of run_llm_validation (DESIGN §8, §11; issue 5).

Input is the metadata dict built by ``agentchat.review.runs.dashboard_metadata``::

    {"dashboard": {"id", "title", "owners": [str], "native_filters": [{"id", "name", "filter_type",
                   "dataset_ids": [int], "charts_in_scope": [int] | None, "excluded": [int]}]},
     "charts": [{"id", "name", "viz_type", "description", "dataset_id", "metrics": [str], "dimensions": [str],
                 "time_grain"}],
     "datasets": [{"id", "name", "owners": [str]}]}

Output findings are ``{"rule", "severity": "warning"|"info", "object_type", "object_id", "object_name",
"message", "language"}``: the message is written in the language of the dashboard's names (``language``), so it
reads like the dashboard it is about; summaries are in the user's language.
"""

import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

if TYPE_CHECKING:  # the stubs' type of a text or a lazy msgid (django-stubs-ext is a dev dependency)
    from django_stubs_ext import StrOrPromise

Finding = dict[str, Any]

# rule: (severity, label) — labels name the problem in summaries
RULES: dict[str, tuple[str, "StrOrPromise"]] = {
    "chart_without_description": ("warning", gettext_lazy("charts without a description")),
    "dataset_without_owners": ("warning", gettext_lazy("datasets without owners")),
    "dashboard_without_owners": ("warning", gettext_lazy("dashboard without owners")),
    "unused_native_filter": ("warning", gettext_lazy("unused native filters")),
    "default_name": ("warning", gettext_lazy("default or untitled names")),
    "duplicate_chart_name": ("warning", gettext_lazy("duplicate chart names")),
    "mixed_language_name": ("info", gettext_lazy("names mixing languages")),
    "inconsistent_language": ("info", gettext_lazy("names in different languages")),
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


def metadata_language(metadata: dict[str, Any]) -> str | None:
    """Return the language the dashboard's title and chart names are written in (``ru``/``en``), or None."""
    dashboard = metadata.get("dashboard") or {}
    return names_language([dashboard.get("title") or ""] + [c.get("name") or "" for c in metadata.get("charts") or []])


def review_findings(metadata: dict[str, Any], language: str | None = None) -> list[Finding]:
    """Return every finding of the rules in ``RULES`` for one dashboard's metadata, in a stable order.

    Args:
        metadata: see the module docstring.
        language: the language of the messages (``ru``/``en``); by default that of the dashboard's names
            (``metadata_language``), else the active language.
    """
    language = language or metadata_language(metadata) or translation.get_language() or "ru"
    dashboard = metadata.get("dashboard") or {}
    charts = metadata.get("charts") or []
    datasets = metadata.get("datasets") or []
    findings: list[Finding] = []
    with translation.override(language):
        findings += _descriptions(charts)
        findings += _owners(dashboard, datasets)
        findings += _unused_filters(dashboard, charts)
        findings += _names(dashboard, charts)
    return [{**finding, "language": language} for finding in findings]


def findings_summary(findings: list[Finding], language: str, *, title: str | None = None) -> str:
    """Return one line such as «3 замечания в «Отчёт»: графики без описания — 2, …» in ``language``
    (``ru``/``en``)."""
    with translation.override(language):
        if not findings:
            return _("No findings in “%(title)s”.") % {"title": title} if title else _("No findings.")
        counts = Counter(f["rule"] for f in findings)
        parts = ", ".join(f"{RULES[rule][1] if rule in RULES else rule} — {n}" for rule, n in counts.most_common())
        n = len(findings)
        if title:
            text = ngettext(
                "%(count)d finding in “%(title)s”: %(parts)s.", "%(count)d findings in “%(title)s”: %(parts)s.", n
            )
        else:
            text = ngettext("%(count)d finding: %(parts)s.", "%(count)d findings: %(parts)s.", n)
        return text % {"count": n, "title": title, "parts": parts}


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


def _finding(rule: str, object_type: str, obj: dict[str, Any], message: str) -> Finding:
    return {
        "rule": rule,
        "severity": RULES[rule][0],
        "object_type": object_type,
        "object_id": obj.get("id"),
        "object_name": obj.get("name") if object_type != "dashboard" else obj.get("title"),
        "message": message,
    }


def _descriptions(charts: list[dict]) -> list[Finding]:
    return [
        _finding(
            "chart_without_description",
            "chart",
            c,
            _("Chart “%(name)s” (id %(id)s) has no description.") % {"name": c.get("name"), "id": c.get("id")},
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
            _("Dataset “%(name)s” (id %(id)s) has no owners.") % {"name": ds.get("name"), "id": ds.get("id")},
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
                _("Dashboard “%(title)s” has no owners.") % {"title": dashboard.get("title")},
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
                _("Filter “%(name)s” affects no chart of the dashboard (no chart in its scope uses its dataset).")
                % {"name": flt.get("name")},
            )
        )
    return found


def _names(dashboard: dict, charts: list[dict]) -> list[Finding]:
    found = []
    named = ([("dashboard", dashboard, dashboard.get("title"))] if dashboard else []) + [
        ("chart", c, c.get("name")) for c in charts
    ]
    for object_type, obj, name in named:
        label = (name or "").strip()
        if not label or _DEFAULT_NAMES.search(label):
            params = {"name": name, "id": obj.get("id")}
            if object_type == "dashboard":
                message = _("Dashboard “%(name)s” (id %(id)s) has a default name — give it a meaningful one.")
            else:
                message = _("Chart “%(name)s” (id %(id)s) has a default name — give it a meaningful one.")
            found.append(_finding("default_name", object_type, obj, message % params))
        if name_language(name or "") == "mixed":
            found.append(
                _finding(
                    "mixed_language_name",
                    object_type,
                    obj,
                    _("The name “%(name)s” mixes Russian and English.") % {"name": name},
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
                    _("Several charts of the dashboard are named “%(name)s” (ids %(ids)s).")
                    % {"name": c.get("name"), "ids": ids},
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
    message = _(
        "Names are in different languages: Russian — %(russian)d (%(russian_names)s), English — %(english)d "
        "(%(english_names)s)."
    )
    params = {
        "russian": len(by_lang["ru"]),
        "russian_names": ", ".join(by_lang["ru"][:3]),
        "english": len(by_lang["en"]),
        "english_names": ", ".join(by_lang["en"][:3]),
    }
    return [_finding("inconsistent_language", "dashboard", dashboard, message % params)]


def _is_unit(word: str) -> bool:
    return word.casefold() in {"mwh", "kwh", "gwh", "mw", "kw", "km", "kg", "pct", "usd", "eur", "rub"}
