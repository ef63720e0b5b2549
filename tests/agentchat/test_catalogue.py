"""The Russian catalogue (``locale/ru/LC_MESSAGES``) is complete, current and compiled (issue 14).

English msgids live in the code; every one has a Russian translation, none is fuzzy, the Russian plural rule has
three forms, the committed ``django.mo`` is the compilation of ``django.po`` (``make run`` needs no gettext), and
``makemessages`` finds no message of the code or templates that the catalogue lacks (``make messages``).
"""

import gettext as gnu_gettext
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.catalogue import RU_MO, RU_PO, po_entries, po_header, po_messages
from tests.support.processes import ROOT

# The Russian plural rule: 1, 21, 101 → form 0 (дашборд); 2–4, 22 → form 1 (дашборда); 0, 5–20, 25, 111 → form 2.
RUSSIAN_FORMS = {0: 2, 1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 12: 2, 14: 2, 20: 2, 21: 0, 22: 1, 25: 2, 101: 0, 111: 2}
SOURCES = ("agentchat", "policies", "templates", "locale", "manage.py")


def test_every_russian_message_is_translated_and_none_is_fuzzy():
    """An empty or fuzzy msgstr (any plural form) is a message Russian users would see in English."""
    entries = po_entries(RU_PO)
    untranslated = [e.msgid for e in po_messages(RU_PO) if not e.msgstr or not all(s.strip() for s in e.msgstr)]
    fuzzy = [e.msgid or "(header)" for e in entries if e.fuzzy and not e.obsolete]
    assert len(po_messages(RU_PO)) > 100
    assert untranslated == []
    assert fuzzy == []  # msgfmt skips fuzzy entries, a fuzzy header too (then no charset and no plural rule)


def test_russian_plural_rule_has_three_forms():
    """1 дашборд, 2 дашборда, 5 дашбордов: the header's rule, as gettext compiles it, and every plural entry."""
    header = po_header(RU_PO)
    assert header["Language"] == "ru"
    assert header["Plural-Forms"].startswith("nplurals=3;")
    plural = gnu_gettext.c2py(header["Plural-Forms"].split("plural=", 1)[1].rstrip(";"))
    assert {n: plural(n) for n in RUSSIAN_FORMS} == RUSSIAN_FORMS
    plurals = [e for e in po_messages(RU_PO) if e.msgid_plural is not None]
    assert plurals
    assert [e.msgid for e in plurals if len(e.msgstr) != 3] == []


def test_compiled_catalogue_is_the_compilation_of_the_po():
    """The committed django.mo holds exactly the messages of django.po (``make messages`` compiles it)."""
    with RU_MO.open("rb") as handle:
        compiled = gnu_gettext.GNUTranslations(handle)
    expected: dict[object, str] = {}
    for entry in po_messages(RU_PO):
        msgid = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            expected[msgid] = entry.msgstr[0]
        else:
            expected |= {(msgid, i): s for i, s in enumerate(entry.msgstr)}
    catalog = {k: v for k, v in compiled._catalog.items() if k != ""}  # "" is the header
    assert sorted(map(str, set(expected) ^ set(catalog))) == []
    assert [k for k in expected if expected[k] != catalog[k]] == []
    assert compiled.plural(21) == 0
    assert compiled.plural(22) == 1
    assert compiled.plural(25) == 2


@pytest.mark.processes
def test_makemessages_finds_no_message_the_catalogue_lacks(tmp_path: Path):
    """Extracting into a copy of the sources gives exactly the catalogue's msgids: none missing, none stale."""
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tmp_path / name)
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "agentchat.settings"}
    env.pop("PYTHONPATH", None)
    command = [sys.executable, "manage.py", "makemessages", "-l", "ru", "--no-obsolete", "--no-location"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    extracted = {e.key for e in po_messages(tmp_path / "locale" / "ru" / "LC_MESSAGES" / "django.po")}
    catalogue = {e.key for e in po_messages(RU_PO)}
    assert sorted(map(str, extracted - catalogue)) == []  # in the code, not in the catalogue: run `make messages`
    assert sorted(map(str, catalogue - extracted)) == []  # in the catalogue, gone from the code
