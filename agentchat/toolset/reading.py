"""What a question asks for, read from its verb and its object (DESIGN §11, §12; issue 16).

The keyword rules of ``intents`` recognise phrasings; this module reads the grammar that every phrasing shares,
so a question nobody wrote a rule for still lands on the right tool:

- the **verb** says the intent: ``make`` (an imperative or a wish: «сделай», «сохрани», «нужна», "create",
  "please validate"), ``show`` (a question or a request to see: «покажи», «какие», «есть ли», «ли», "which",
  "is …?"), or ``check`` («проверь», "check"), which is a review run unless a clause follows ("проверь, что
  сломается…", "check whether…": then it asks to see something);
- the **object** says which tool family: backups, branches, git, validation, documentation, migrations, deploys,
  tasks, permissions, environments, dashboards (one or many), datasets (one, many, a new one), tables and
  databases, the agent itself;
- words are first matched against the vocabulary of the objects and verbs with ``difflib`` (a typo such as
  "valdiate" or "dashbaord" reads as the word meant).

``intent_scores`` turns (verb, object) into rule weights for the tool router, in the units of ``intents``; the
weights only add to the similarity and the keyword rules, so a question the rules already place stays placed.
``asks_to_see`` tells a question about state from a request to change something (a read question must never get
a write or dangerous tool: the planner's read-vs-write guard uses it).
"""

import difflib
import re
from dataclasses import dataclass, field

MAKE, SHOW, CHECK = "make", "show", "check"
# Weight of a (verb, object) reading, in cosine units like intents.STRONG / MEDIUM: below MEDIUM, so a reading
# alone never makes the planner call a tool "clearly wanted but not offered" (that takes a keyword rule too).
READING_WEIGHT = 0.08

# Objects: name → stems (a token matches a stem when it starts with it; "$" ends a stem for an exact word), in
# the order they are tried: the specific families first, a bare dashboard or dataset last.
OBJECTS: dict[str, tuple[str, ...]] = {
    "agent": ("умеешь", "можешь$", "хелп", "помощ", "help$", "commands$", "capabilit", "features$"),
    "environment": (
        "окружени",
        "сред$",
        "среды$",
        "средах$",
        "стенд",
        "инстанс",
        "суперсетов$",
        "суперсеты$",
        "environment",
        "envs$",
        "env$",
        "енвайронмент",
        "url$",
        "адрес",
        "targets$",
        "куда$",
    ),
    "backup": ("бэкап", "бекап", "резервн", "backup", "забэкап", "забекап"),
    "branch": ("ветк", "ветку$", "branch"),
    "git": ("git$", "гит", "репозитор", "repo$", "коммит", "закоммит", "закоммич", "зафиксир", "commit"),
    # Problems asked about are a review run (DESIGN §8: «найди проблемы», "any issues?" start run_llm_validation).
    "problems": ("проблем", "ошибк", "issues$", "problems$"),
    # An aggregate over data is a query (superset_execute_sql).
    "query": (
        "max$",
        "min$",
        "avg$",
        "average$",
        "total$",
        "sum$",
        "сумм",
        "средн",
        "максимальн",
        "минимальн",
        "посчитай",
    ),
    "validation": ("валидац", "валидир", "провалид", "validat", "проверк", "review", "lint$"),
    "docs": ("описани", "документ", "задокумент", "descriptions$", "document", "опиши$"),
    "migration": (
        "миграц",
        "мигрир",
        "migrat",
        "перенос",
        "перенес",
        "переноса$",
        "moving$",
        "move$",
        "перезапиш",
        "overwrit",
    ),
    "deploy": ("деплой", "задеплой", "выкат", "разверн", "deploy", "ship$", "promote", "копир", "скопир"),
    "task": ("задач", "task$", "job$"),
    "permission": (
        "доступа$",
        "доступ$",
        "доступом$",
        "права$",
        "прав$",
        "роли$",
        "ролей$",
        "access$",
        "permission",
        "roles$",
    ),
    "table": ("таблиц", "table$", "tables$", "баз$", "база$", "базы$", "database", "схем", "schema"),
    "datasets": ("датасеты$", "датасетов$", "datasets$"),
    "dashboards": ("дашборды$", "дашбордов$", "дашбордах$", "отчеты$", "отчетов$", "панели$", "dashboards$"),
    "dashboard": ("дашборд", "отчет", "панел", "dashboard", "dash$"),
    "dataset": ("датасет", "dataset"),
}
# Imperatives and wishes (Russian: the imperative forms; a past «делали» or an infinitive «перенести» is not one).
MAKE_RU = re.compile(
    r"^(сделай|создай|заведи|запусти|выполни|сохрани|зафиксируй|закоммить|сгенер\w*|напиши|задокументируй"
    r"|заполни|провалидируй|валидируй|разверни|выкати|задеплой|деплой|перенеси|мигрируй|забэкап\w*|забекап\w*"
    r"|сними|добавь|открой|экспортируй|выгрузи|опиши|копируй|скопируй|нужн[аоы]|нужен|хочу|давай)$"
)
MAKE_EN = re.compile(
    r"^(make|create|run|start|do|take|save|commit|push|generate|write|fill|document|validate|deploy|ship|promote"
    r"|migrate|move|backup|back|add|open|put|export|register|new|need|copy|lint|review)$"
)
# English verbs lead the sentence (after a politeness), else they are nouns ("the backup", "a new branch").
EN_LEAD = re.compile(r"^(please|pls|plz|can|could|would|you|u|let's|lets|i|we|want|to|need|now)$")
NEW_RU = re.compile(r"^нов(ый|ую|ая|ое)$")  # «новый датасет: …» at the head of a request
SHOW_WORDS = re.compile(
    r"^(покажи|покаж\w*|список|перечисли|найди|ищу|поищи|какие|какой|какая|каких|кто|когда|где|сколько|есть|ли"
    r"|расскажи|раскажи|что|чем|как|был|была|были|прош[её]л|прошла|show|list|find|tell|which|what|who|when|where"
    r"|how|is|are|was|were|did|does|has|have|any|give|summary|overview)$"
)
CHECK_WORDS = re.compile(r"^(проверь|провер\w*|check|validate|валидируй)$")
CLAUSE_AFTER_CHECK = re.compile(
    r"(провер\w*|check)\b([^.?!]*?,\s*|\W+)(что|ли|не|все ли|всё ли|whether|if|that|what)\b", re.I
)
# Phrases that name an object in more than one word.
PHRASES: dict[str, re.Pattern] = {
    "permission": re.compile(r"\b(кто (может|сможет|видит)|кому|who can|who (sees|may))\b", re.I),
    "agent": re.compile(r"\b(can|could) (you|u) do\b", re.I),
    "problems": re.compile(r"в порядке", re.I),  # «всё ли в порядке с метаданными?» asks for a review run
    "query": re.compile(r"сколько (всего )?(строк|записей)|how many (rows|records)|больше всего|меньше всего", re.I),
}
# Generic objects: of these, the first one named (not after a preposition: «в таблице», "in the database" is a
# place) is what the question is about; the others are its attributes.
GENERIC = ("dashboards", "datasets", "table", "dashboard", "dataset")
PLACE_OBJECTS = ("table", "environment")
PREPOSITIONS = re.compile(r"^(в|во|на|из|при|к|ко|of|in|on|from|at|inside)$")


THIS_WORDS = re.compile(r"^(этот|этом|этого|этому|этим|эти|этих|эта|этой|это|эту|его|него|this|it|here|тут|здесь)$")
FIND_WORDS = re.compile(r"^(найди|найти|ищу|поищи|ищи|поиск|find|search|look|where)$")


def _vocabulary() -> list[str]:
    words = [stem.rstrip("$") for stems in OBJECTS.values() for stem in stems if len(stem.rstrip("$")) >= 5]
    words += ["validate", "validation", "dashboard", "dashboards", "environments", "environment", "descriptions"]
    return sorted(set(words))


VOCABULARY = _vocabulary()


@dataclass(frozen=True)
class Reading:
    """A question read as verb + objects.

    Attributes:
        verb: ``make``, ``show``, ``check`` or '' (none found).
        objects: the object names of ``OBJECTS`` found, in order of appearance.
        has_id: a number is given (an id: «дашборд 2», "task 9").
        named: a quoted name or a «…» title is given.
        this: a word points at the page's object («этот», «его», "this", "here").
        find: a search verb («найди», «ищу», "find", "look for"): the object is looked up by name.
        check_clause: a check verb followed by a clause ("проверь, что сломается…"): a question, not a review.
    """

    verb: str
    objects: tuple[str, ...] = field(default_factory=tuple)
    has_id: bool = False
    named: bool = False
    this: bool = False
    find: bool = False
    check_clause: bool = False


def _tokens(question: str) -> list[str]:
    return re.findall(r"[\w'-]+", question.casefold().replace("ё", "е"))


def _object_of(token: str) -> str | None:
    for name, stems in OBJECTS.items():
        for stem in stems:
            if stem.endswith("$") and token == stem[:-1]:
                return name
            if not stem.endswith("$") and token.startswith(stem):
                return name
    return None


def _corrected(token: str) -> str:
    """``token`` or the vocabulary word it is a typo of (``difflib`` ratio ≥ 0.8, Latin words of 6+ letters).

    Russian words are not corrected: their endings change with case and number, so an inflected word is as
    close to another stem as a typo is («суперсету» ~ «суперсеты», «проверь» ~ «проверк»)."""
    if len(token) < 6 or not token.isascii() or _object_of(token):
        return token
    close = difflib.get_close_matches(token, VOCABULARY, n=1, cutoff=0.8)
    if not close or close[0].rstrip("s") == token.rstrip("s"):
        return token  # "feature" is not a typo of "features": another word's plural or singular is kept
    return close[0]


def read_question(question: str) -> Reading:
    """Read ``question`` as verb + objects (see the module docstring).

    Args:
        question: the user's text (any language, any case).

    Returns:
        A ``Reading``; ``verb`` is '' when neither an imperative, a question word nor a "?" is found.
    """
    tokens = [_corrected(t) for t in _tokens(question)]
    verb = ""
    lead = True  # still at the head of the sentence (English verbs count only there)
    for token in tokens:
        if PHRASES["agent"].search(question):
            verb = SHOW  # "can you do …?" asks what the agent can do
            break
        if CHECK_WORDS.match(token):
            verb = SHOW if CLAUSE_AFTER_CHECK.search(question) else CHECK
            break
        if MAKE_RU.match(token) or (lead and (MAKE_EN.match(token) or NEW_RU.match(token))):
            verb = MAKE
            break
        if SHOW_WORDS.match(token):
            verb = SHOW
            break
        lead = lead and bool(EN_LEAD.match(token))
    if not verb and question.rstrip().endswith("?"):
        verb = SHOW
    found = set()
    head = ""
    for i, token in enumerate(tokens):
        obj = _object_of(token)
        after_preposition = any(PREPOSITIONS.match(t) for t in tokens[max(0, i - 3) : i])
        if obj is None or (obj in PLACE_OBJECTS and after_preposition):
            continue
        found.add(obj)
        head = head or (obj if obj in GENERIC else "")
    found |= {name for name, pattern in PHRASES.items() if pattern.search(question)}
    specific = [name for name in OBJECTS if name in found and name not in GENERIC]
    objects = tuple(dict.fromkeys([*specific, *([head] if head else []), *(o for o in GENERIC if o in found)]))
    return Reading(
        this=any(THIS_WORDS.match(t) for t in tokens),
        find=any(FIND_WORDS.match(t) for t in tokens),
        check_clause=bool(CLAUSE_AFTER_CHECK.search(question)),
        verb=verb,
        objects=objects,
        has_id=bool(re.search(r"\b\d+\b", question)),
        named=bool(re.search(r"«[^»]+»|\"[^\"]+\"", question)),
    )


# (verb, object) → tool. Objects are tried in the order the question names them; the first that maps wins.
READINGS: dict[tuple[str, str], str] = {
    (SHOW, "agent"): "show_capabilities",
    (SHOW, "environment"): "list_environments",
    (MAKE, "backup"): "run_backup",
    (SHOW, "backup"): "list_backups",
    (MAKE, "branch"): "create_branch",
    (SHOW, "branch"): "get_git_status",  # «в ветке X дашборд актуален?» asks about the git state
    (MAKE, "git"): "commit_changes",
    (SHOW, "git"): "get_git_status",
    (MAKE, "validation"): "run_llm_validation",
    (CHECK, "validation"): "run_llm_validation",
    (CHECK, "dashboard"): "run_llm_validation",
    (SHOW, "validation"): "get_health_summary",
    (MAKE, "docs"): "run_llm_documentation",
    (SHOW, "docs"): "get_health_summary",
    (MAKE, "migration"): "execute_migration",
    (SHOW, "migration"): "preview_migration",
    (CHECK, "migration"): "preview_migration",
    (MAKE, "deploy"): "deploy_dashboard",
    (SHOW, "deploy"): "preview_migration",
    (SHOW, "task"): "get_task_status",
    (SHOW, "permission"): "superset_audit_permissions",
    (SHOW, "dashboards"): "search_dashboards",
    (SHOW, "datasets"): "search_datasets",
    (MAKE, "dataset"): "superset_create_dataset",
    (SHOW, "table"): "superset_explore_database",
    (SHOW, "query"): "superset_execute_sql",
}


def _about_page_object(reading: Reading, object_type: str | None) -> bool:
    """The question points at the page's object by its noun («этим дашбордом» on a dashboard page)."""
    return reading.this and object_type in ("dashboard", "dataset") and object_type in reading.objects


def reading_tool(reading: Reading, object_type: str | None) -> str | None:
    """The tool a reading asks for on a page of ``object_type`` (None when the reading names none).

    One dashboard or dataset is the page's object or a given id: on a dashboard page (or with an id) a question
    about "the dashboard" reads its health summary; a dataset with an id outside a dataset page reads its
    details, on a dataset page the database explorer describes it (DESIGN §8 offers no get_dataset_details
    there).
    """
    verb = reading.verb or SHOW  # no verb: only the reads of SHOW can be meant (never a change by default)
    objects = reading.objects
    if _about_page_object(reading, object_type):
        # "which datasets feed this dashboard?": the page's object is asked about; the plurals are its parts.
        objects = tuple(o for o in objects if o not in ("dashboards", "datasets"))
    for obj in objects:
        if obj == "problems":
            return "run_llm_validation"
        tool = READINGS.get((verb, obj))
        if tool:
            return tool
        if verb == SHOW and obj == "dashboard":
            if reading.find and not reading.has_id:
                return "search_dashboards"
            if object_type == "dashboard" or reading.has_id:
                return "get_health_summary"
        if verb == SHOW and obj == "dataset":
            if reading.find and not reading.has_id:
                return "search_datasets"
            if object_type == "dataset":
                return "superset_explore_database"
            return "get_dataset_details" if reading.has_id else "search_datasets"
    return None


# A tool whose other-verb counterpart is its own first step is not held back by the reading (a migration is
# previewed first, DESIGN §11).
FIRST_STEP = {"execute_migration": "preview_migration"}


def intent_scores(question: str, object_type: str | None) -> dict[str, float]:
    """Rule weights from the question's reading (positive for the tool it asks for, negative for the ones it
    rules out).

    The verb decides between the tools of one object: the reading's tool gets ``+READING_WEIGHT`` and the same
    object's tool for the other verb (make ↔ show: run_backup ↔ list_backups) ``−READING_WEIGHT``; a check
    followed by a clause takes the weight from the review run; on a page whose object the question points at
    («какие датасеты под этим дашбордом»), the searches for other objects lose it.

    Returns:
        ``{tool name: weight}`` (empty when the reading names no tool).
    """
    reading = read_question(question)
    tool = reading_tool(reading, object_type)
    if not tool:
        return {}
    scores = {tool: READING_WEIGHT}
    if FIRST_STEP.get(tool):
        scores[FIRST_STEP[tool]] = READING_WEIGHT / 2
    for (verb, obj), other in READINGS.items():
        if obj in reading.objects and verb != (reading.verb or SHOW) and other not in scores:
            if other != FIRST_STEP.get(tool) and (verb, obj) != (SHOW, "agent"):
                scores[other] = -READING_WEIGHT
    if reading.check_clause:
        scores.setdefault("run_llm_validation", -READING_WEIGHT)
    if _about_page_object(reading, object_type):
        for plural, search in (("dashboards", "search_dashboards"), ("datasets", "search_datasets")):
            if plural in reading.objects and search != tool:
                scores[search] = -READING_WEIGHT
    for obj in reading.objects:
        # A generic object that is not what the question is about («… в схеме main») loses its tool's weight.
        generic = READINGS.get((SHOW, obj))
        if obj in GENERIC and generic and generic not in scores:
            scores[generic] = -READING_WEIGHT
    return scores


def asks_to_see(question: str) -> bool:
    """True when the question asks about state («прошёл ли он валидацию?», "проверь, что сломается…"), not
    for a change: its verb is a question word or a "?" and no imperative comes first. Problems asked about
    («есть ли ошибки?») are a request for a review run, not a question about state."""
    reading = read_question(question)
    return reading.verb == SHOW and "problems" not in reading.objects


def asks_for_review(question: str) -> bool:
    """True when the question asks about problems («есть ли ошибки?», "any issues?"): a review run is meant."""
    return "problems" in read_question(question).objects
