"""What a question asks for, read from its verb and its object (DESIGN §11, §12; issue 16).

The keyword rules of ``intents`` recognise phrasings; this module reads the grammar that every phrasing shares,
so a question nobody wrote a rule for still lands on the right tool:

- the **verb** says the intent: ``make`` (an imperative or a wish: «сделай», "create"), ``show`` (a question or
  a request to see: «покажи», «есть ли», "which", "is …?"), or ``check`` («проверь»), which is a review run
  unless a clause follows ("проверь, что сломается…": then it asks to see something);
- the **object** says which tool family: backups, branches, git, reviews, docs, migrations, deploys, tasks,
  permissions, environments, dashboards, datasets (one, many, a new one), tables, databases, the agent itself;
- words are matched against the vocabulary with ``difflib`` (a typo such as "valdiate" reads as the word meant),
  an unknown Russian word again without its perfective prefix («смигрируй» → «мигрируй»): ``toolset.tokens``;
- grammar around the verb: a modal with an infinitive is a request («можно ветку завести?»), unless the infinitive
  is a seeing one («хочу посмотреть»); English verbs count at the head of the sentence and not before a noun
  they qualify ("backup history", "health check"); "do we have …?" asks; «опиши» / "describe" asks to be told
  about the object, except its charts, whose descriptions are written; a check of something no review covers
  (git, permissions, a task) reads its state; a precondition or purpose clause («… перед миграцией», «…, чтобы
  добавить их в миграцию») is not read; the shape of a Russian imperative at a clause's head is a request
  («прогони», «ок, применяй»), and so is an English wish ("I'd like this dashboard live on prod");
- the **head** noun is asked about: a specific object named after a preposition, once another was named in the
  same sentence, only qualifies it («задача по этой миграции» asks about the task);
- the **page's object**: pointed at («он», «тут», "this", "here") or named by its bare noun on its page, it is
  what is asked about, and the plurals named with it are its parts («а датасеты у него какие?», "which
  dashboards are included here"): the page's read tool answers (``PAGE_READ``); other objects («какие ещё
  дашборды», "this env") and what is to be added to it come from elsewhere; a request with no object on a
  migration page runs that migration (previewed first); what a run would do («что сломается», "what would be
  overwritten") is a preview; a migration's progress is its task's;
- **problems** asked about in general are a state (the summary, seed Story 1: «есть ли проблемы?»); found,
  checked, or asked about in what a review judges (metadata, names, descriptions, the team's rules) a review;
- one object: named without an id it is searched for first (``weights.first_step``), not given by id or on its page;
- two versions compared, past deploys asked about: those reads (a migration page compares in its preview).

The vocabulary and the (verb, object) → tool table are data, in ``agentchat.toolset.words`` and
``agentchat.toolset.objects``; ``agentchat.toolset.weights`` turns a reading into rule weights for the router.
``asks_to_see`` tells a question about state from a request to change something (the planner's read-vs-write guard).
"""

import functools
import itertools
import re
from dataclasses import dataclass, field

from agentchat.toolset.aspects import asked_aspect, unheard_action, unheard_focus
from agentchat.toolset.clauses import PREVIEW_SEEN, main_clause, question_after_context, question_before_context
from agentchat.toolset.part_reads import no_object_read, part_read
from agentchat.toolset.tokens import corrected, object_of, tokens_of, unnegated, unprefixed
from agentchat.toolset.verbs import told_to, verb_of
from agentchat.toolset.versions import asked_tool
from agentchat.toolset.words import (
    ADD_WORDS,
    ASKED_DETERMINER,
    CHECK,
    CLAUSE_AFTER_CHECK,
    DATA_UNTIL,
    DESCRIBE,
    ENV_NAMES,
    EXISTS_EN,
    EXISTS_WORDS,
    FIND_WORDS,
    FIRST_ROWS,
    GENERIC,
    HOW_ASKED,
    MAKE,
    MONTH,
    NAMED,
    OBJECTS,
    OTHER_WORDS,
    OWN_RUN,
    PAGE_OWN_PARTS,
    PAGE_READ,
    PARTS_COUNTED,
    PERIOD,
    PHRASES,
    PLACE_OBJECTS,
    POSSESSIVES,
    PREPOSITIONS,
    QUALIFYING,
    QUANTITY_WORDS,
    READINGS,
    REVIEWED,
    RUN_WORDS,
    SHOW,
    SQL_IN_TEXT,
    TARGET_WORDS,
    THIS_WORDS,
)

__all__ = [
    "CHECK",
    "MAKE",
    "SHOW",
    "Reading",
    "about_page_object",
    "asks_for_review",
    "asks_to_see",
    "read_question",
    "reading_tool",
    "unnegated",
]

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
        pointed: what each "this" word points at: the object named right after it («этой миграции» →
            ``migration``), '' for a bare pronoun or adverb («он», "here", «отсюда»).
        rows: sample or first rows of the data are asked («пару строк для примера», "first 10 rows").
        checking: a check verb is used, as the verb or before a clause ("check whether it follows…").
        other: the question asks about other objects than the page's («какие ещё дашборды», "other dashboards").
        adding: something is added to an object («добавить в эту миграцию»): it comes from elsewhere.
        membership: whether something is part of an object is asked ("is X part of it?", «входит ли»).
        target: the one place an object goes to is asked («куда она идёт?», "the target of this one").
        hunting: problems are to be found («найди ошибки», "find problems in …"): a review, not a search.
        runs_sql: SQL is given with a verb that runs it («выполни select …»): a query to run.
        asked: a tool named by what is asked (``versions.asked_tool``: a rollback, versions compared, deploy history).
        own: the person's own run is asked about («мой бэкап», "my backup": ``words.OWN_RUN``).
        aspect: what the question asks about that no tool returns (``aspects.asked_aspect``'s name: ``views``,
            ``cache``, ``schedule``…; issue 29 item 1), '' for none.
        unheard: the word a question word asks about that no tool was ever asked about (``aspects.unheard_focus``),
            '' for none.
        unheard_action: the verb a request starts with that no tool was ever asked to do
            (``aspects.unheard_action``: «пометь», "upgrade"), '' for none.
        month: a month of the data is named («за декабрь», "in December": ``words.MONTH``), or how far the data goes
            is asked («до какого числа данные?»: ``words.DATA_UNTIL``): data, on a dataset's page.
        parts_counted: a dataset's columns or metrics are counted («сколько колонок?»: ``words.PARTS_COUNTED``).
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
    pointed: tuple[str, ...] = ()
    rows: bool = False
    checking: bool = False
    other: bool = False
    adding: bool = False
    membership: bool = False
    target: bool = False
    hunting: bool = False
    runs_sql: bool = False
    asked: str = ""
    own: bool = False
    aspect: str = ""
    unheard: str = ""
    unheard_action: str = ""
    month: bool = False
    parts_counted: bool = False

    @property
    def figure(self) -> bool:
        """A figure of the data: a quantity or a period, no object but an aggregate ("total cost in December?")."""
        data = self.quantity or self.month
        return self.verb != CHECK and data and not set(self.objects) - {"query"} and not self.asked


@functools.lru_cache(maxsize=512)
def read_question(question: str) -> Reading:
    """Read ``question`` as verb + objects (see the module docstring).

    A precondition clause («… перед миграцией», "… before I deploy") is not read: it says when, not what.

    Args:
        question: the user's text (any language, any case).

    Returns:
        A ``Reading``; ``verb`` is '' when neither an imperative, a question word nor a "?" is found.
    """
    main = unnegated(PREVIEW_SEEN.sub("", main_clause(question)) or question)
    tokens = [unprefixed(corrected(t)) for t in tokens_of(main)]
    # The sentence of each token: a qualifier qualifies an object of its own sentence only.
    sentences = [n for n, part in enumerate(re.split(r"[.?!;]+", main)) for _ in tokens_of(part)]
    found = set()
    in_sentence: set[tuple[int, str]] = set()
    places = []
    qualifiers = []  # named after a preposition once something else was named: «задача по этой миграции»
    head = ""
    for i, token in enumerate(tokens):
        obj = object_of(token)
        asked = i > 0 and ASKED_DETERMINER.match(tokens[i - 1])  # «на какие стенды»: asked, not a place
        after_preposition = not asked and any(PREPOSITIONS.match(t) for t in tokens[max(0, i - 3) : i])
        if obj in PLACE_OBJECTS and after_preposition:
            places.append(obj)
            continue
        if obj is None:
            continue
        qualifying = any(QUALIFYING.match(t) for t in tokens[max(0, i - 3) : i])
        sentence = sentences[i] if i < len(sentences) else 0
        if qualifying and any(n == sentence for n, _ in in_sentence) and obj not in GENERIC:
            qualifiers.append(obj)
        found.add(obj)
        in_sentence.add((sentence, obj))
        head = head or (obj if obj in GENERIC else "")
    found |= {name for name, pattern in PHRASES.items() if pattern.search(main)}
    if asked_part := question_before_context(main) or question_after_context(main):  # context around a question
        own = {object_of(unprefixed(corrected(t))) for t in tokens_of(asked_part)}
        found = (found & (own | {n for n, p in PHRASES.items() if p.search(asked_part)})) or found
        head = head if head in found else ""
    adding = any(ADD_WORDS.match(t) for t in tokens)
    if adding:  # «какие дашборды можно добавить в эту миграцию»: where they are added is a place
        places += qualifiers
        found -= set(qualifiers)
    access_review = {"validation", "permission"} <= found  # "run an access review": the permissions read
    found -= {"validation"} if access_review else set()
    if head == "table" and "dataset" in found and (re.search(r"\b\d+\b", main) or NAMED.search(main)):
        head = "dataset"  # "the schema of dataset 2": a given dataset's table is its attribute
    # What the context after a question asks, points at or counts is not asked («… ? нам он нужен к пятнице»).
    asked_text = f"{asked_part}?" if asked_part else main
    asked_tokens = [unprefixed(corrected(t)) for t in tokens_of(asked_part)] if asked_part else tokens
    clauses = set(itertools.accumulate(len(tokens_of(part)) for part in re.split(r"[,;:.?!—]+", asked_text)))
    verb = SHOW if access_review else verb_of(asked_tokens, asked_text, found, clauses)
    last = re.split(r"(?<=[.!?])\s+", main.strip())[-1]
    before, request_last = main.strip()[: -len(last)], False
    if verb != MAKE and last != main.strip() and ("?" not in before or HOW_ASKED.search(before) and told_to(last)):
        # a request said last, after a sentence of context («… висит как недокументированный. сгенерь документацию»)
        # or a question how to do it («Как сохранить в гит? Если можно, закоммитьте …»); after another question
        # the last sentence is its context («у кого доступ к датасету? нужно для аудита»)
        request_last = verb_of([unprefixed(corrected(t)) for t in tokens_of(last)], last, found) == MAKE
        verb = MAKE if request_last else verb
    if verb == MAKE and "chart" in found and any(DESCRIBE.match(t) for t in tokens):
        found.add("docs")
    specific = [name for name in OBJECTS if name in found and name not in GENERIC and name not in qualifiers]
    specific += [name for name in qualifiers if name in found]
    objects = tuple(dict.fromkeys([*specific, *([head] if head else []), *(o for o in GENERIC if o in found)]))
    has_id = bool(re.search(r"\b\d+\b", main))
    this = any(THIS_WORDS.match(t) for t in asked_tokens)
    following = [*tokens[1:], ""] if tokens else []  # «👍», «?»: no word, nothing follows
    # «она идёт», «это сломает»: a word of a state or an outcome after "this" is its verb, not its noun.
    nouns = [
        o if o not in ("progress", "consequence") else ""
        for o in map(object_of, [*asked_tokens[1:], ""][: len(asked_tokens)])
    ]
    pointed = tuple(
        "" if POSSESSIVES.match(t) else noun or ""
        for t, noun in zip(asked_tokens, nouns, strict=True)
        if THIS_WORDS.match(t)
    )
    # A search verb looks up the object it names, not problems («найди ошибки в описаниях» is a review).
    sought = [object_of(after) for t, after in zip(tokens, following, strict=True) if FIND_WORDS.match(t)]
    finding = any(o not in ("problems", "content") for o in sought)
    # An existence question about an object with no id nor page pointer looks it up («есть у нас дашборд про …?»).
    exists = any(EXISTS_WORDS.match(t) for t in tokens) or bool(EXISTS_EN.search(main))
    return Reading(
        this=this,
        hunting=any(o in ("problems", "content") for o in sought),
        runs_sql=bool(SQL_IN_TEXT.search(question)) and any(RUN_WORDS.match(t) for t in tokens),
        asked=asked_tool(main),
        own=bool(OWN_RUN.search(main)),
        aspect=getattr(asked_aspect(last if request_last else question), "name", ""),
        unheard=unheard_focus(question) or "",
        unheard_action=unheard_action(question) or "",
        find=finding or (exists and not (has_id or this or "problems" in found)),
        check_clause=bool(CLAUSE_AFTER_CHECK.search(main)),
        verb=verb,
        objects=objects,
        has_id=has_id,
        named=bool(NAMED.search(main)),
        quantity=any(QUANTITY_WORDS.match(t) for t in asked_tokens) or bool(PERIOD.search(asked_text)),
        month=bool(MONTH.search(main) or DATA_UNTIL.search(asked_text)),
        parts_counted=bool(PARTS_COUNTED.search(main)),
        env_named=any(ENV_NAMES.match(t) for t in tokens),
        places=tuple(dict.fromkeys(o for o in places if o not in objects)),
        pointed=pointed,
        rows=bool(FIRST_ROWS.search(main)),
        checking=verb == CHECK or bool(CLAUSE_AFTER_CHECK.search(main)),
        other=any(OTHER_WORDS.match(t) for t in tokens),
        adding=adding,
        membership=bool(PHRASES["membership"].search(main)),
        target=any(
            TARGET_WORDS.match(t) and object_of(after) != "environment"
            for t, after in zip(tokens, following, strict=True)
        ),
    )


def about_page_object(reading: Reading, object_type: str | None) -> bool:
    """The question is about one object and its parts: a dashboard or dataset by id ("what datasets does
    dashboard 3 rely on"), or the page's object, pointed at («этим дашбордом», «он», "here") or named by its
    bare noun («на каких датасетах построен дашборд?» on a dashboard page). Not when it asks about other objects
    («какие ещё дашборды», "this env") or about what to add to the page's object (it comes from elsewhere)."""
    if reading.has_id and not reading.find and bool({"dashboard", "dataset"} & set(reading.objects)):
        return True
    if object_type in PAGE_READ and reading.membership and not reading.other:
        return True  # "is the sales dashboard part of it?": the page's object is read
    if object_type not in PAGE_READ or reading.find or reading.named or reading.adding:
        return False
    if reading.other and "attribute" not in reading.objects:
        return False
    own = set(PAGE_OWN_PARTS.get(object_type or "", ()))
    if own & set(reading.objects) and set(reading.objects) <= {*own, object_type} and not reading.env_named:
        return True  # «какие датасеты под капотом» on a dashboard page: only its own datasets are there
    if any(p in ("", object_type) for p in reading.pointed):
        return True
    return object_type in reading.objects and not reading.has_id


def reading_tool(reading: Reading, object_type: str | None) -> str | None:
    """The tool a reading asks for on a page of ``object_type`` (None when the reading names none).

    One dashboard or dataset is the page's object or a given id: on a dashboard page (or with an id) a question
    about "the dashboard" reads its health summary; a dataset with an id outside a dataset page reads its
    details, on a dataset page the database explorer describes it (DESIGN §8 offers no get_dataset_details
    there). A question about the page's object or its parts (``PARTS``) with nothing else named reads it
    (``PAGE_READ``); on a migration page a request with no other object runs the migration (which the planner
    previews first). Problems asked about in general are a state (the summary); found, checked or asked about
    in what a review judges (metadata, names, the team's rules) they are a review run.
    """
    verb = reading.verb or SHOW  # no verb: only the reads of SHOW can be meant (never a change by default)
    about = about_page_object(reading, object_type)
    # "which datasets feed this dashboard?": the page's object is asked about; the plurals are its parts.
    objects = tuple(o for o in reading.objects if not about or o not in ("dashboards", "datasets"))
    if verb == CHECK and objects and objects[0] not in REVIEWED:
        verb = SHOW
    data = reading.quantity or reading.rows or reading.month
    numbers = verb != CHECK and object_type == "dataset" and data and set(objects) <= {"dataset", "table", "column"}
    numbers = numbers and not reading.parts_counted  # «сколько колонок?»: its description tells
    # numbers of a dataset page's data («сколько всего потребили?»), a figure of the data on any page («сколько
    # область потребила в декабре?»), SQL given to run ("run select count(*) … on this dataset"): the query
    if numbers or reading.figure or reading.runs_sql:
        return "superset_execute_sql"
    pointer = any(p in ("", "migration") for p in reading.pointed)
    if reading.asked and (reading.asked, object_type) != ("compare_versions", "migration"):
        return reading.asked  # a migration page's source and target side by side are its preview
    targeted = reading.target and pointer and not reading.other  # «куда она идёт?», "where is it going"
    if object_type == "migration" and verb == SHOW and (targeted or (about and reading.membership)):
        return "preview_migration"  # «куда она идёт?»: the page's migration's own target is in its plan
    run = "task" in objects or "migration" in (object_type, *objects) or ("backup" in objects and reading.own)
    if verb != MAKE and ("progress" in objects and run or "task" in objects and reading.own):
        # «статус этой миграции», «миграция упала? таск 38», "did my backup finish?" (a run of a background task,
        # issue 29 item 4), «что там с моей последней задачей?»; "retry the failed …" runs
        return "get_task_status"
    for obj in objects:
        moved = {"migration", "deploy"} & {*objects}  # "which charts would break if I dropped this dataset?"
        if obj == "consequence" and object_type in ("dataset", "dashboard") and not moved:
            return PAGE_READ[object_type]  # no run is meant: what depends on the page's object is in its read
        if obj == "problems":
            if verb != SHOW or reading.hunting or reading.checking or {"content", "docs"} & set(objects):
                return "run_llm_validation"
            continue  # «дашборд норм или есть проблемы?»: its state is asked
        tool = READINGS.get((verb, obj))
        if tool:
            return tool
        if obj == "content" and reading.checking:
            return "run_llm_validation"
        tool = part_read(reading, verb, obj, object_type)
        if tool:
            return tool
    dashboard = "dashboard" in objects or (about and object_type == "dashboard")
    if verb == MAKE and dashboard and set(objects) <= {"dashboard"} and reading.env_named:
        return "deploy_dashboard"  # "I'd like this dashboard live on prod": a dashboard asked onto an environment
    if object_type in PAGE_READ:
        if verb == SHOW and about:
            return PAGE_READ[object_type]
        if object_type == "migration" and not set(objects) - {"progress"} and verb != SHOW:
            return "execute_migration" if verb == MAKE else "preview_migration"
    return no_object_read(reading, verb, objects, object_type)


def asks_to_see(question: str) -> bool:
    """True when the question asks about state («прошёл ли он валидацию?», "проверь, что сломается…"), not
    for a change: its verb is a question word or a "?" and no imperative comes first. Problems asked about
    («есть ли ошибки?») are a request for a review run, not a question about state."""
    reading = read_question(question)
    if reading.verb == CHECK and reading.objects and reading.objects[0] not in REVIEWED:
        return True  # «проверь гит статус дашборда 1»: there is no review of git, a state is asked about
    return reading.verb == SHOW and not asks_for_review(question)


def asks_for_review(question: str) -> bool:
    """True when the question asks for problems to be found («найди ошибки», "check it for issues") or asks
    about problems in what a review judges ("any problems with this dashboard's metadata?"), or whether the
    object follows the team's rules after a check verb: a review run is meant. Problems asked about in general
    («есть ли на этом дашборде проблемы?») are a state, which the summary reports."""
    reading = read_question(question)
    if "problems" in reading.objects:
        judged = {"content", "docs"} & set(reading.objects)
        return reading.verb != SHOW or reading.hunting or reading.checking or bool(judged)
    return "content" in reading.objects and reading.checking
