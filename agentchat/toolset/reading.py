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
  "valdiate" or "dashbaord" reads as the word meant; Russian typos within a stem too), and a Russian word that
  is not known is read again without its perfective prefix («смигрируй» → «мигрируй»): ``agentchat.toolset.tokens``;
- grammar around the verb: a modal with an infinitive is a request («можно ветку завести?»), unless the infinitive
  is a seeing one («хочу посмотреть»); English verbs count at the head of the sentence and not before a noun
  they qualify ("backup history", "health check"); "do we have …?" asks; «опиши» / "describe" asks to be told
  about the object, except its charts, whose descriptions are written; a check of something no review covers
  (git, permissions, a task) reads its state; a precondition clause («… перед миграцией») is not read;
- one object: named without an id it is searched for first (``first_step``: the router keeps the search next to
  the tool that needs the id), given by id or on its page it is not searched for.

The vocabulary and the (verb, object) → tool table are data, in ``agentchat.toolset.words``.

``intent_scores`` turns (verb, object) into rule weights for the tool router, in the units of ``intents``; the
weights only add to the similarity and the keyword rules, so a question the rules already place stays placed.
``asks_to_see`` tells a question about state from a request to change something (a read question must never get
a write or dangerous tool: the planner's read-vs-write guard uses it).
"""

import functools
import re
from dataclasses import dataclass, field

from agentchat.toolset.tokens import corrected, object_of, tokens_of, unprefixed
from agentchat.toolset.words import (
    AUX_EN,
    BEFORE_CLAUSE,
    BY_ID,
    CHECK,
    CHECK_WORDS,
    CLAUSE_AFTER_CHECK,
    COUNT,
    DESCRIBE,
    EN_LEAD,
    ENV_NAMES,
    EXISTS_EN,
    EXISTS_WORDS,
    FIND_WORDS,
    FIRST_ROWS,
    FIRST_STEP,
    GENERIC,
    INFINITIVE_RU,
    MAKE,
    MAKE_EN,
    MAKE_RU,
    MODAL_RU,
    NAMED,
    NEW_RU,
    NOT_INFINITIVE_RU,
    NOUN_AFTER_EN,
    OBJECT_IMPERATIVE_RU,
    OBJECTS,
    ONE_OBJECT,
    PHRASES,
    PLACE_OBJECTS,
    PREPOSITIONS,
    QUANTITY_WORDS,
    READINGS,
    REVIEWED,
    SEARCH_OF,
    SEE_INFINITIVE_RU,
    SHOW,
    SHOW_WORDS,
    SUBJECT_EN,
    TARGETING,
    THIS_WORDS,
)

__all__ = ["CHECK", "MAKE", "SHOW", "Reading", "asks_for_review", "asks_to_see", "intent_scores", "read_question"]

# Weight of a (verb, object) reading, in cosine units like intents.STRONG / MEDIUM: below MEDIUM, so a reading
# alone never makes the planner call a tool "clearly wanted but not offered" (that takes a keyword rule too).
READING_WEIGHT = 0.08


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
        quantity: a quantity or a superlative is asked («сколько», "lowest"): on a dataset page, numbers.
        env_named: an environment is named by its tier ("where is staging hosted?").
        places: objects named only as a place («в схеме main», "for table regions"): not what is asked about.
    """

    verb: str
    objects: tuple[str, ...] = field(default_factory=tuple)
    has_id: bool = False
    named: bool = False
    this: bool = False
    find: bool = False
    check_clause: bool = False
    quantity: bool = False
    env_named: bool = False
    places: tuple[str, ...] = ()


def _verb(tokens: list[str], question: str, objects: set[str]) -> str:
    """The verb of the question: the first imperative, modal request, check or question word (module docstring).

    English verbs count only at the head of the sentence (after a politeness), and not before a noun they
    qualify ("backup history", "health check"); "do we …?" asks. A Russian modal followed by an infinitive asks
    for that action («можно ветку завести?»), unless the infinitive is a seeing one («хочу посмотреть»)."""
    lead = True  # still at the head of the sentence (English verbs count only there)
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if PHRASES["agent"].search(question):
            return SHOW  # "can you do …?" asks what the agent can do
        if DESCRIBE.match(token):
            return MAKE if "chart" in objects else SHOW  # «опиши графики»: their descriptions are written
        if INFINITIVE_RU.match(token) and after == "бы":
            return MAKE  # «задеплоить бы его на стейдж»: a wish
        if MODAL_RU.match(token) and after != "ли":
            wanted = next(
                (t for t in tokens[i + 1 :] if INFINITIVE_RU.match(t) and not NOT_INFINITIVE_RU.search(t)), ""
            )
            if SEE_INFINITIVE_RU.match(wanted):
                return SHOW
            if wanted:
                return CHECK if CHECK_WORDS.match(wanted) else MAKE
        if lead and AUX_EN.match(token) and SUBJECT_EN.match(after):
            return SHOW
        english = token.isascii()
        if CHECK_WORDS.match(token) and (lead or not english):
            return SHOW if CLAUSE_AFTER_CHECK.search(question) else CHECK
        if lead and english and NOUN_AFTER_EN.match(after) and (MAKE_EN.match(token) or CHECK_WORDS.match(token)):
            return SHOW  # "backup history", "review results": the word qualifies a noun asked about
        if not english and OBJECT_IMPERATIVE_RU.match(token) and object_of(token):
            return MAKE
        if MAKE_RU.match(token) or (lead and (MAKE_EN.match(token) or NEW_RU.match(token))):
            return MAKE
        if SHOW_WORDS.match(token):
            return SHOW
        lead = lead and bool(EN_LEAD.match(token))
    return SHOW if question.rstrip().endswith("?") else ""


@functools.lru_cache(maxsize=512)
def read_question(question: str) -> Reading:
    """Read ``question`` as verb + objects (see the module docstring).

    A precondition clause («… перед миграцией», "… before I deploy") is not read: it says when, not what.

    Args:
        question: the user's text (any language, any case).

    Returns:
        A ``Reading``; ``verb`` is '' when neither an imperative, a question word nor a "?" is found.
    """
    main = BEFORE_CLAUSE.sub("", question) or question
    tokens = [unprefixed(corrected(t)) for t in tokens_of(main)]
    found = set()
    places = []
    head = ""
    for i, token in enumerate(tokens):
        obj = object_of(token)
        after_preposition = any(PREPOSITIONS.match(t) for t in tokens[max(0, i - 3) : i])
        if obj in PLACE_OBJECTS and after_preposition:
            places.append(obj)
            continue
        if obj is None:
            continue
        found.add(obj)
        head = head or (obj if obj in GENERIC else "")
    found |= {name for name, pattern in PHRASES.items() if pattern.search(main)}
    if head == "table" and "dataset" in found and (re.search(r"\b\d+\b", main) or NAMED.search(main)):
        head = "dataset"  # "the schema of dataset 2": a given dataset's table is its attribute
    verb = _verb(tokens, main, found)
    if verb == MAKE and "chart" in found and any(DESCRIBE.match(t) for t in tokens):
        found.add("docs")
    specific = [name for name in OBJECTS if name in found and name not in GENERIC]
    objects = tuple(dict.fromkeys([*specific, *([head] if head else []), *(o for o in GENERIC if o in found)]))
    has_id = bool(re.search(r"\b\d+\b", main))
    this = any(THIS_WORDS.match(t) for t in tokens)
    # An existence question about an object with no id nor page pointer looks it up («есть у нас дашборд про …?»).
    exists = any(EXISTS_WORDS.match(t) for t in tokens) or bool(EXISTS_EN.search(main))
    return Reading(
        this=this,
        find=any(FIND_WORDS.match(t) for t in tokens) or (exists and not has_id and not this),
        check_clause=bool(CLAUSE_AFTER_CHECK.search(main)),
        verb=verb,
        objects=objects,
        has_id=has_id,
        named=bool(NAMED.search(main)),
        quantity=any(QUANTITY_WORDS.match(t) for t in tokens),
        env_named=any(ENV_NAMES.match(t) for t in tokens),
        places=tuple(dict.fromkeys(o for o in places if o not in objects)),
    )


def _about_page_object(reading: Reading, object_type: str | None) -> bool:
    """The question points at one object: the page's by its noun («этим дашбордом» on a dashboard page), or a
    dashboard or dataset by id ("what datasets does dashboard 3 rely on"): the plurals are its parts."""
    if reading.this and object_type in ("dashboard", "dataset") and object_type in reading.objects:
        return True
    return reading.has_id and not reading.find and bool({"dashboard", "dataset"} & set(reading.objects))


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
    if verb == CHECK and objects and objects[0] not in REVIEWED:
        verb = SHOW
    if verb == SHOW and object_type == "dataset" and reading.quantity and set(objects) <= {"dataset", "table"}:
        return "superset_execute_sql"  # «сколько всего потребили?» on a dataset page: numbers from its data
    for obj in objects:
        if obj == "problems":
            return "run_llm_validation"
        tool = READINGS.get((verb, obj))
        if tool:
            return tool
        if verb == SHOW and obj == "attribute" and object_type == "dashboard":
            return "get_health_summary"  # «владельцы?» on a dashboard page: its summary
        if verb == SHOW and obj == "chart" and object_type in ("dashboard", "dataset"):
            # The charts of the page's dashboard are in its summary; those built on the page's dataset in its
            # description.
            return "get_health_summary" if object_type == "dashboard" else "superset_explore_database"
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
    if verb == SHOW and not objects and reading.env_named:
        return "list_environments"  # "where is staging hosted?": the environment itself is asked about
    return None


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
    if reading.check_clause or (reading.verb == CHECK and tool != "run_llm_validation"):
        scores.setdefault("run_llm_validation", -READING_WEIGHT)
    if _about_page_object(reading, object_type):
        for plural, search in (("dashboards", "search_dashboards"), ("datasets", "search_datasets")):
            if plural in reading.objects and search != tool:
                scores[search] = -READING_WEIGHT
    for obj in (*reading.objects, *reading.places):
        # A generic object that is not what the question is about («… в схеме main») loses its tool's weight.
        generic = READINGS.get((SHOW, obj))
        if obj in GENERIC and generic and generic not in scores:
            scores[generic] = -READING_WEIGHT
    _one_object_scores(reading, object_type, tool, scores)
    if reading.verb == MAKE and tool != "show_capabilities":
        scores.setdefault("show_capabilities", -READING_WEIGHT)  # a request to act is not about the agent
    return scores


def first_step(question: str, tool: str, object_type: str | None = None) -> str | None:
    """The tool the planner calls before ``tool`` for ``question`` on a page of ``object_type``, or None (issue 16:
    the router keeps it next to the tool it serves, so an LLM offered the top-K gets it too).

    A migration is previewed first (DESIGN §11); a dashboard or dataset named without an id is searched for
    first (a name → search_dashboards); a count or the first rows of the page's dataset read its table first.
    """
    if tool in FIRST_STEP:
        return FIRST_STEP[tool]
    if (
        tool == "superset_execute_sql"
        and object_type == "dataset"
        and (COUNT.search(question) or FIRST_ROWS.search(question))
    ):
        return "superset_explore_database"
    reading = read_question(question)
    if reading.named and not reading.has_id:
        for noun in ("dashboard", "dataset"):
            if noun in reading.objects and tool in BY_ID[noun]:
                return SEARCH_OF[noun]
    return None


def _one_object_scores(reading: Reading, object_type: str | None, tool: str, scores: dict[str, float]) -> None:
    """Weights for a question about one dashboard or dataset (adds to ``scores``).

    - named without an id: the search for it is the first step (``+READING_WEIGHT / 2``);
    - given by id or on its page: it is one object, not a search (the search ``−READING_WEIGHT``);
    - the target of a tool of ``TARGETING`` (permissions, a deploy, a task…; git off the dashboard page): its
      own read tool ``−READING_WEIGHT`` (not for reviews, whose state its summary reports).
    """
    for noun in ("dashboard", "dataset"):
        if noun not in reading.objects:
            continue
        search = SEARCH_OF[noun]
        on_page = object_type == noun and not reading.named
        if tool in BY_ID[noun] and reading.named and not reading.has_id:
            scores.setdefault(search, READING_WEIGHT / 2)
        elif tool != search and (reading.has_id or on_page) and not reading.find:
            scores.setdefault(search, -READING_WEIGHT)
        one = "superset_explore_database" if object_type == "dataset" and noun == "dataset" else ONE_OBJECT[noun]
        family = reading.objects[0]
        # On the dashboard page its summary reports the git and review state (get_git_status is not offered there).
        targeting = TARGETING if object_type == "dashboard" else (*TARGETING, "git", "branch")
        if tool != one and family in targeting and (reading.has_id or reading.this):
            scores.setdefault(one, -READING_WEIGHT)


def asks_to_see(question: str) -> bool:
    """True when the question asks about state («прошёл ли он валидацию?», "проверь, что сломается…"), not
    for a change: its verb is a question word or a "?" and no imperative comes first. Problems asked about
    («есть ли ошибки?») are a request for a review run, not a question about state."""
    reading = read_question(question)
    if reading.verb == CHECK and reading.objects and reading.objects[0] not in REVIEWED:
        return True  # «проверь гит статус дашборда 1»: there is no review of git, a state is asked about
    return reading.verb == SHOW and "problems" not in reading.objects


def asks_for_review(question: str) -> bool:
    """True when the question asks about problems («есть ли ошибки?», "any issues?"): a review run is meant."""
    return "problems" in read_question(question).objects
