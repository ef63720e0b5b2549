"""What a question refers to beyond ids and names (offline planner, DESIGN §11; issue 29 items 2 and 4): the kind of
background task a status question is about, the work item a branch is for, and the dataset whose users are asked
about. Pure functions of the text.
"""

import re
from typing import TYPE_CHECKING

from agentchat.toolset.words import IDENTIFIER, USES

if TYPE_CHECKING:  # the type only: mentions imports this module to fill its fields
    from agentchat.llm.offline.mentions import Mentions

# The kind of background task a status question is about («последний бэкап», "my latest migration"), by task kind.
TASK_KINDS = {
    "backup": r"бэкап\w*|бекап\w*|резервн\w* коп\w*|\bbackups?\b|\bback(ed)? up\b",
    "migration": r"миграц\w*|мигрир\w*|\bmigrat\w*",
    "validation": r"валидац\w*|ревью|провер(ка|ки|ку|кой|ок)\b|\breview\w*|\bvalidation\w*",
    "documentation": r"документац\w*|описани[яей]\b|\bdocumentation\b|\bdocs\b",
}
# A work item a branch is for («ветку под задачу 123», "a branch for ticket BI-77"): its key names the branch.
TASK_REFERENCE = re.compile(
    r"(?:задач\w*|тикет\w*|таск\w*|issue|ticket|task|jira)\s*(?:#|№)?\s*([A-Za-z][A-Za-z0-9]*-\d+|\d+)\b"
    r"|\b(?-i:([A-Z][A-Z0-9]+-\d+))\b",  # a tracker's key in capitals alone: BI-77
    re.I,
)
# A release or a hotfix a branch is for («ветку под релиз 2.4», "a branch for hotfix 1.2.1"): release/2.4.
RELEASE_REFERENCE = re.compile(
    r"(?:(релиз\w*|release)|(хотфикс\w*|hotfix))\s*(?:#|№|v)?\s*(\d+(?:\.\d+)+|\d+)(?![\w.])", re.I
)
DATASET_WORD = re.compile(r"датасет|\bdataset", re.I)
# An identifier before the noun: "the energy_consumption dataset".
NAME_BEFORE_DATASET = re.compile(rf"\b({IDENTIFIER})\s+(?:dataset|датасет)", re.I)


# A saved migration named by its name after the noun («запусти миграцию energy report to prod», "preview the
# migration 'energy report to prod'"): Latin words up to the end of the clause, not a preposition's phrase.
MIGRATION_NAMED = re.compile(
    r"(?:миграци\w*|\bmigration|\bплан\w*|\bplan)\s+(?:«([^»]+)»|“([^”]+)”|\"([^\"]+)\"|'([^']+)'"
    r"|(?!(?:of|for|to|from|now|please|pls|this|that|it|again|status|run|plan|with|in|on)\b)"
    r"([A-Za-z][\w-]*(?:\s+[A-Za-z0-9][\w-]*)*))",
    re.I,
)


def references_read(plain: str, mentions: "Mentions") -> None:
    """Fill ``mentions.task_kind``, ``task_reference``, ``used_dataset`` and ``migration_name`` from ``plain`` (the
    question with its kind nouns' typos corrected; ``dataset_name`` and ids already read), and the branch a release
    or a hotfix names when a branch is asked for and none is named («ветку под релиз 2.4» → ``release/2.4``)."""
    mentions.task_kind = next((kind for kind, p in TASK_KINDS.items() if re.search(p, plain, re.I)), None)
    plan = MIGRATION_NAMED.search(plain)
    plan_name = next((g for g in plan.groups() if g), None) if plan else None
    mentions.migration_name = plan_name if mentions.first_id("migration") is None else None
    reference = TASK_REFERENCE.search(plain)
    mentions.task_reference = next((g for g in reference.groups() if g), None) if reference else None
    release = RELEASE_REFERENCE.search(plain)
    if release and mentions.branch is None and re.search(r"ветк|branch", plain, re.I):
        mentions.branch = f"{'release' if release.group(1) else 'hotfix'}/{release.group(3)}"
    # The dataset by its noun, or by its table's name alone ("where else is energy_consumption used?").
    if USES.search(plain) and (DATASET_WORD.search(plain) or mentions.names_kind == "dataset"):
        by_id = mentions.first_id("dataset")
        before = NAME_BEFORE_DATASET.search(plain)
        # "the regions dataset": a one-word name before the noun (``mentions``: ``names_kind``, ``search_text``)
        one_word = mentions.search_text if mentions.names_kind == "dataset" else None
        named = mentions.dataset_name or (before.group(1) if before else None) or one_word
        mentions.used_dataset = str(by_id) if by_id is not None else named


def named_apart(text: str, dataset: str | None, identifier: str | None) -> bool:
    """The ``dataset`` named after its noun is the one meant, not an ``identifier`` of another sentence («что за
    датасет regions? … federal_district там строка?», turns_day15; "dataset details for energy_consumption" says
    both in one sentence: the identifier is the dataset)."""
    if not dataset or not identifier or not re.fullmatch(IDENTIFIER, identifier):
        return False
    sentence = next((s for s in re.split(r"(?<=[.?!])\s+", text) if identifier in s), "")
    return not re.search(rf"\b{re.escape(dataset)}\b", sentence)
