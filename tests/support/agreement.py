"""Russian texts that put a name into a sentence: does any word have to agree with it? (issue 30 item 2)

A placeholder that receives a tool's title («резервная копия окружения») or a model's name («группа», «роль»)
carries a noun in the nominative. Russian inflects it for its role in the sentence and makes verbs, adjectives
and numerals agree with its gender — «Агент попытался вызвать резервная копия окружения, недоступный вашей
роли», «Добавить еще один Роль». A text is right *by construction* when no word has to agree with the name:

- it is cited under a head noun that carries the case: «Инструмент «%(tool_title)s» недоступен», «объект типа
  «%(name)s»» (``HEADS``);
- or it stands alone as a value or a label: after a colon, a dash or an opening parenthesis, or first, and
  followed by nothing but punctuation, a quoted or parenthesised apposition («%(name)s «%(obj)s».») or an id
  («%(object_type)s #7»): «Добавить: %s», «Результат (%(tool_title)s):», «%(tool_title)s — не выполнено».

``agreement_problems`` finds every other occurrence. It is a rule of construction, not a grammar: it refuses
some sentences that happen to agree (a masculine name after «один»), which is the point.
"""

import re
from collections.abc import Iterable

# Head nouns (stems) under which a quoted name needs no declension: «инструмента «…»», «объекту типа «…»».
HEADS = ("инструмент", "объект", "тип", "операци", "приложени", "раздел")
_QUOTES = {"«": "»", "“": "”", '"': '"', "„": "“"}
_TAGS = re.compile(r"(?:<[^>]*>)+")
_APPOSITION = re.compile(r"^(?: ?«[^»]*»| ?“[^”]*[”“]| ?\"[^\"]*\"| \((?:%\(\w+\)s|[^)])*\)| #\S+)+")


def placeholder_tokens(name: str) -> list[str]:
    """The spellings of a placeholder ``name`` in a message: ``%(name)s``, ``{name}``; ``%s`` for ``"%s"``."""
    return ["%s"] if name == "%s" else [f"%({name})s", f"{{{name}}}"]


def agreement_problems(text: str, names: Iterable[str]) -> list[str]:
    """Return a description of each occurrence of the placeholders ``names`` in ``text`` that is neither cited
    under a head noun nor a standalone value or label (see the module docstring); empty when the text is right.

    Args:
        text: one Russian msgstr (one plural form).
        names: the placeholder names that carry a nominal name (``tool_title``, ``verbose_name``, ``%s``, …).
    """
    problems = []
    for name in names:
        for token in placeholder_tokens(name):
            for match in re.finditer(re.escape(token), text):
                before = _TAGS.sub("", text[: match.start()])
                after = _TAGS.sub("", text[match.end() :])
                if not _cited(before, after) and not _standalone(before, after):
                    problems.append(f"{token} in «{text}»: a word around it must agree with the name")
    return problems


def _cited(before: str, after: str) -> bool:
    """«… инструмент «P» …»: quoted, and the word before the opening quote is a head noun."""
    if not before or before[-1] not in _QUOTES or not after.startswith(_QUOTES[before[-1]]):
        return False
    words = re.findall(r"\w+", before[:-1].lower())
    return bool(words) and words[-1].startswith(HEADS)


def _standalone(before: str, after: str) -> bool:
    """First, or after «:», «—», «(», and followed only by punctuation (after an optional apposition or id)."""
    head = before.rstrip()
    if head and head[-1] not in "(:—\n":
        return False
    rest = _APPOSITION.sub("", after)
    return rest == "" or rest[0] in ").,:;!?\n" or rest.startswith(" —")
