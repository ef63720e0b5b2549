"""What a question names, read by rules (offline planner, DESIGN §11): ids, quoted names, environments, SQL,
branch names, commit messages, tables, databases, schemas, SQL dialects, languages, owners and flags.

Pure functions of the text (and of the list of environments); no database, no network.
"""

import re
from dataclasses import dataclass, field

from agentchat.llm.offline.environments import QUOTED, env_for, envs_named, titles_blanked
from agentchat.llm.offline.naming import kind_words_corrected, named_kind
from agentchat.llm.offline.numbers import OBJECT_WORDS, ids_read
from agentchat.llm.offline.references import named_apart, references_read
from agentchat.llm.offline.sql_said import DIALECTS, sql_said
from agentchat.toolset.clauses import THEN_CLAUSE
from agentchat.toolset.tokens import object_of
from agentchat.toolset.weights import PART_OF_TABLE, ROWS_IN
from agentchat.toolset.words import IDENTIFIER

UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
BRANCH_TOKEN = re.compile(r"(?<![\w/])([A-Za-z][\w.-]*/[\w./-]*[\w])")
NUMBER = re.compile(r"(?<![\w.-])(?:#|№\s?)?(\d{1,9})(?![\w.-])")

STOP_WORDS = set(
    """найди найти поищи ищи поиск покажи список какие какой какая есть ли у нас по про с со о об в на все всех
    все мне дашборд дашборды дашборда дашбордов отчёт отчёты отчет отчеты отчёта отчета отчётов панель панели
    датасет датасеты датасета датасетов набор наборы данных которые который про для
    find search look up list show me all the a an any about with called named in for of dashboards dashboard
    datasets dataset which what are there is do we have title titles
    same whole current other new main entire latest previous next""".split()  # "the same dataset" (a QA check)
)


@dataclass
class Mentions:
    """Everything a question names (empty fields when absent).

    Attributes:
        ids: numbers by the object type named right before them (``{"dashboard": [1, 2]}``); ``any`` holds every
            number in order.
        quoted: texts in «», “”, "" or '' quotes, in order.
        message: the quoted text after «с сообщением» / "message" (a commit's), or None.
        envs: environment ids named, in order (resolved from ids and tier words).
        source_env / target_env: from "из X в Y" / "from X to Y" / "в Y" / "to Y".
        task_kind / task_reference / used_dataset / migration_name: what it refers to beyond ids and names
            (``references.references_read``; issue 29 items 2 and 4).
    """

    ids: dict[str, list[int]] = field(default_factory=dict)
    quoted: list[str] = field(default_factory=list)
    message: str | None = None
    envs: list[str] = field(default_factory=list)
    source_env: str | None = None
    target_env: str | None = None
    sql: str | None = None
    uuid: str | None = None
    branch: str | None = None
    base_branch: str | None = None
    table: str | None = None
    database: str | None = None
    schema: str | None = None
    dialect: str | None = None
    language: str | None = None
    owner: str | None = None
    published: bool | None = None
    certified: bool | None = None
    row_limit: int | None = None
    search_text: str | None = None
    dataset_name: str | None = None
    refers_to_page: bool = False
    names_kind: str | None = None
    task_kind: str | None = None
    task_reference: str | None = None
    used_dataset: str | None = None
    migration_name: str | None = None

    def first_id(self, kind: str) -> int | None:
        values = self.ids.get(kind) or []
        return values[0] if values else None


# How far into a request a title in capitals may start («чем отличается Обзор регионов …»: the third word).
TITLE_START = 3
# Words before "database" that name none («the same database as this one», "which database").
NOT_A_NAME = r"(?:same|this|that|other|its|my|our|your|a|an|the|new|which|what|any|each|every|in|on|of|to|from|for)"
# English words after "database" that name none ("the database behind this dataset", "database it uses").
NOT_AFTER = r"as|of|the|this|that|is|in|on|for|from|with|behind|under|used|uses|it|where|which|and|or|to|at|by|has"


# A commit's message: the quoted text after «с сообщением», "message" ("commit with message 'nightly'").
COMMIT_MESSAGE = r"(?:сообщени\w*|message|msg|комментари\w*)\s*[:=]?\s*[«\"“']([^»\"”']+)[»\"”']"


def _after(text: str, pattern: str) -> str | None:
    match = re.search(pattern, text, re.I)
    return match.group(1).strip(".,;:!?«»\"'") if match else None


def _stem(word: str) -> str:
    """A crude stem so that «регионами» finds «Обзор регионов» and "regions" finds "regions_2024"."""
    if re.search(r"[а-яё]", word, re.I) and len(word) > 5:
        return re.sub(
            r"(ами|ями|ого|его|ому|ему|ыми|ими|ию|ов|ев|ей|ах|ях|ам|ям|ом|ем|ой|ий|ый|ая|ое|ые|ую|[аыиуеоюя])$",
            "",
            word,
        )
    if len(word) > 4 and word.lower().endswith("s"):
        return word[:-1]
    return word


# What introduces a name given without quotes: a naming word ("dashboards about churn", "which dashboards mention
# churn", «дашборды про энергию», «с названием X», «со словом X») or the object noun in the singular («дашборд
# Обзор регионов», "dataset regions"): after a plural noun comes a verb ("which datasets feed …"), not a name.
NAMING_WORDS = re.compile(
    r"^(?:про|по|о|об|с|со|названи\w*|называ\w*|слов\w*|about|mention\w*|with|called|named|titled|title[ds]?"
    r"|words?|containing|contains)$",
    re.I,
)
# Words after which a title follows, to be searched as written ("called Sales Overview", «с названием …»).
TITLE_WORDS = re.compile(r"^(?:названи\w*|называ\w*|called|named|titled|title[ds]?)$", re.I)
SINGULAR_NOUN = re.compile(
    r"^(?:дашборд|дашборда|дашборду|дашбордом|дашборде|дашик\w*|отч[её]т|отч[её]та|отч[её]ту|отч[её]том|отч[её]те"
    r"|датасет|датасета|датасету|датасетом|датасете|dashboard|dataset|report)$",
    re.I,
)
# A noun pointed at or asked about has no name after it («этот дашборд сохранён в git?», "which dataset …").
POINTERS = set(
    """this that these those its our my your their his her which what whose
    этот эта это эти этого этой этому этим этом этих тот
    та те того той том его её их наш наша наше наши мой моя моё мои какой какая какое какие каких каким какого
    каком который которая которое которые""".split()
)
# Words that end a name: places and other filters of the search (an environment, a database, a schema, a table,
# an owner, the published or certified state), another object (a task, a chart) or an id, conjunctions, pronouns,
# verbs and question words that follow it («дашборд Обзор регионов опубликован?», "dataset regions exists?").
NAME_ENDS = re.compile(
    rf"^(?:\d+|{OBJECT_WORDS['task']}|{OBJECT_WORDS['chart']}|{OBJECT_WORDS['dashboard']}|{OBJECT_WORDS['dataset']}"
    r"|миграц\w*|migrations?|бэкап\w*|backups?|ветк\w*|branch\w*|repo\w*|репозитор\w*|users?|пользовател\w*"
    r"|roles?|рол\w*|доступ\w*|access|прав\w*|permissions?|owners?|номер\w*|id|no|number|superset|суперсет\w*"
    r"|на|в|во|из|для|от|у|и|или|а|но|ли|же|есть|нет|где|когда|как|чем|что|кто|ты|вы|я|мы|сейчас|ещё|еще"
    r"|какой|какая|какие|каком|пожалуйста|покажи|найди|расскажи|проверь|задеплой|выкати|опубликуй|посмотри"
    r"|можно|нужно|надо|перед|после|вместе|кроме|к|ко|за|под|над|при|без|не|уже|вообще|плиз|норм\w*|ок|тут|здесь|там"
    r"|чего|чём|чему|кого|кому|ним|нём|нем|ней|ними|него|неё|нее|им|ей|плз"
    r"|on|in|at|to|into|from|for|of|and|or|but|is|are|was|were|be|exist\w*|there|now|please|right|yet|has|have"
    r"|does|do|did|look|looks|show|find|list|deploy|check|summari[sz]e|describe|tell|when|where|how|which|what"
    r"|you|i|we|before|after|since|against|than|by|per|not|already|here|over|pls|plz|ok|okay|fine"
    r"|between|across|vs|versus|with|within|между|против"
    # what is done with it ("where is the regions dataset used?" searched for dashboards on the dataset «used»)
    r"|used|uses|using|feeds?|использ\w*|построен\w*"
    # a comparison's predicate («а датасет одинаковый на деве и в проде?» searched for «одинаков»; a QA check)
    r"|одинаков\w*|идентичн\w*|совпада\w*|отлича\w*|различа\w*|same|identical|differ\w*"
    r"|таблиц\w*|table|баз\w*|database|db|схем\w*|schema|владе\w*|принадлеж\w*|сделал\w*|owned|owns?|created"
    r"|опубликован\w*|неопубликован\w*|черновик\w*|published|unpublished|drafts?|сертифиц\w*|несертифиц\w*"
    r"|certified|uncertified|git|гит\w*|статус\w*|status)$",
    re.I,
)
# Words that are not a name although they follow a marker (articles, pointers, quantifiers, pronouns).
NAME_FILLERS = POINTERS | set(
    """the a an all any some me us it them every each все всех весь мне нам он она оно они любой любые
    какой-нибудь какие-нибудь""".split()
)
QUESTION_HEADS = set(
    """can could would should will may might must shall is are was were do does did has have who what which where
    when how why может можно ли кто что какой какая какие где когда как почему""".split()
)
# The parts of an object named after a lower-case word («пустое описание», «старые графики»): that word says what the
# part is like, it is no title (turns_day6 y23 searched dashboards for «пустое описание» on a dashboard page).
PART_OBJECTS = {"docs", "problems", "attribute", "chart"}
NAME_WORDS = 4  # a title said without quotes is a few words; more is a clause, not a name


def _name_ends(word: str, claimed: set[str], environments: list[tuple[str, str]]) -> bool:
    lowered = word.lower()
    if not re.search(r"\w", word) or NAME_ENDS.match(word) or lowered in NAME_FILLERS or lowered in claimed:
        return True
    return bool(env_for(word, environments) or NAMING_WORDS.match(word) or SINGULAR_NOUN.match(word))


def _name_after_marker(words: list[str], claimed: set[str], environments: list[tuple[str, str]]) -> str | None:
    """The words after the first naming word or singular object noun not pointed at that make a name, without
    fillers, environment words and what ends a name (``NAME_ENDS``); None when no marker is followed by one.

    A title is taken as written: after the noun or a title word («дашборд обзор регионов», "called Sales
    Overview") or in capitals («про Обзор регионов»); after a topic word in lower case («с показателями
    потребления», "about energy consumption") only the topic's first word is kept (its stem is searched)."""
    for i, word in enumerate(words):
        noun = SINGULAR_NOUN.match(word) and not (i and words[i - 1].lower() in POINTERS)
        if not (noun or NAMING_WORDS.match(word)):
            continue
        name: list[str] = []
        titled = bool(noun)  # right after its noun a name is a title («дашборд обзор регионов»)
        for following in words[i + 1 :]:
            object_noun = re.fullmatch(rf"{OBJECT_WORDS['dashboard']}|{OBJECT_WORDS['dataset']}", following, re.I)
            if not name and (NAMING_WORDS.match(following) or object_noun):
                # «про дашборд X», "mention churn", «с названием X»: the name is further on, a title after a noun
                # or a title word, a topic after a topic word («дашборд с показателями потребления»).
                titled = bool(SINGULAR_NOUN.match(following) or TITLE_WORDS.match(following))
                continue
            if not name and following.lower() in {"the", "a", "an", "есть"}:  # «в названии есть регион»
                continue
            if name and object_noun:
                titled = True  # "about the regions overview dashboard": the words before the noun name it
            if name and all(w.islower() for w in name) and object_of(following) in PART_OBJECTS:
                name = []  # «у дашборда пустое описание»: what its part is like, not its title
                break
            if _name_ends(following, claimed, environments) or len(name) == NAME_WORDS:
                break
            titled = titled or bool(TITLE_WORDS.match(words[i]) or not name and following[:1].isupper())
            name.append(following)
        if name:
            return " ".join(name if titled else name[:1])
    return None


def _capitalised_title(words: list[str], claimed: set[str], environments: list[tuple[str, str]]) -> str | None:
    """A title in capitals right after the sentence's verb ("deploy Обзор регионов to prod", «задеплой Обзор
    регионов», «чем отличается Обзор регионов в ss-dev и в prod»: within its first ``TITLE_START`` words, after
    lower-case words only): that word and the lower-case words after it up to what ends a name. Not a word the
    question names as something else (a database, a schema, an owner, an environment), nor a product name."""
    if len(words) < 2 or words[0].lower() in QUESTION_HEADS:  # "can Gamma users see it?": a question
        return None
    start = next(
        (i for i in range(1, min(TITLE_START, len(words))) if re.fullmatch(r"[A-ZА-ЯЁ][a-zа-яё][\w-]+", words[i])),
        None,
    )
    if start is None or any(not w.islower() for w in words[1:start]):
        return None
    if _name_ends(words[start], claimed, environments) or words[start].lower() in {"git", "github", "gitlab"}:
        return None
    name = [words[start]]
    for following in words[start + 1 : start + NAME_WORDS]:
        if _name_ends(following, claimed, environments):
            break
        name.append(following)
    return " ".join(name)


def _search_text(
    text: str, quoted: list[str], claimed: set[str] | None = None, environments: list[tuple[str, str]] | None = None
) -> str | None:
    """What to look for in a search (issue 16 review): a quoted title; else the name said after the object noun or
    a naming word («дашборд Обзор регионов», "dataset regions", "dashboards about churn", «про энергию» → its
    stem), unless an identifier is given (``energy_usage``, taken as written); else the words between "the" and the
    object noun; else a title in capitals after the first word ("deploy Обзор регионов to prod"). None when the
    question names no term
    ("list dashboards on prod", «покажи все дашборды»): the search then lists everything.

    Args:
        text: the question (without its SQL).
        quoted: the quoted texts, in order.
        claimed: lower-cased words the question names as something else (database, schema, owner, table,
            branch): never part of the name.
        environments: ``[(env_id, tier)]``: environment ids and tier words end a name.

    Returns:
        The text for the search's ``query`` (Superset matches it as a case-insensitive part of the title), or None.
    """
    if quoted:
        return quoted[0]
    claimed = claimed or set()
    environments = environments or []
    # An identifier is a name as it is written in Superset («колонки датасета energy_usage»).
    identifier = re.search(rf"\b{IDENTIFIER}\b", text)
    if identifier:
        return identifier.group(0)
    words = re.findall(r"[\w-]+|[^\w\s]", text)
    name = _name_after_marker(words, claimed, environments)
    if name and " " not in name:
        return _stem(name)  # one word is a topic: «про регионы» finds «Обзор регионов»
    if name:
        return name
    # "the regions overview dashboard": the words between the article and the object noun are its name.
    named = re.search(r"\bthe\s+((?:[\w-]+\s+){0,3}?[\w-]{3,})\s+(?:dashboard|dataset|report)\b", text, re.I)
    if named and named.group(1).split()[0].lower() not in STOP_WORDS:
        return named.group(1)
    return _capitalised_title(words, claimed, environments)


def _words_to_the_end(text: str, name: str | None) -> str | None:
    """``name`` with the Latin words after it when they run to the end of ``text`` («создай ветку fix axis label»:
    "fix axis label", which the tool refuses as git does — a card for «fix» dropped two words; a QA check)."""
    if not name:
        return None
    stop = r"(?:from|off|on|in|for|to|and|or|please|pls|plz|now|too|with|then)\b"
    found = re.search(rf"{re.escape(name)}((?:\s+(?!{stop})[A-Za-z][\w./-]*)+)\s*[.!]?\s*$", text)
    return f"{name}{found.group(1)}" if found else None


def mentions_read(text: str, environments: list[tuple[str, str]]) -> Mentions:
    """Read what ``text`` names.

    Args:
        text: the user's question.
        environments: ``[(env_id, tier)]`` of the active environments (to resolve «прод», "staging", "ss-dev").

    Returns:
        A ``Mentions``.
    """
    sql = sql_said(text)  # a literal quoted in the SQL is no name («… where date >= '2025-01-01'»)
    quoted = [next(g for g in m.groups() if g) for m in QUOTED.finditer(text.replace(sql, " ") if sql else text)]
    plain = kind_words_corrected(text.replace(sql, " ") if sql else text)
    own = titles_blanked(plain, environments)  # the user's own words: a quoted title's are its name
    # «валидни его, и если зелёный — катим в прод»: the environment of the step on a condition is not this one's
    envs, source, target = envs_named(THEN_CLAUSE.sub("", own) or own, environments)
    branch_tokens = [b for b in BRANCH_TOKEN.findall(plain) if not re.fullmatch(r"\d+/\d+", b)]
    mentions = Mentions(
        ids=ids_read(own),
        quoted=quoted,
        message=_after(text, COMMIT_MESSAGE),
        envs=envs,
        source_env=source,
        target_env=target,
        sql=sql,
        uuid=(found.group(0) if (found := UUID.search(text)) else None),
    )
    mentions.branch = (
        branch_tokens[0]
        if branch_tokens
        # "a branch for ticket 456": a preposition after the noun is no name.
        else _after(
            plain,
            r"(?:ветк[аеуи]|branch)\s+(?:named\s+|called\s+)?"
            r"(?!(?:for|from|off|of|to|in|on|under|with|please|pls)\b)([A-Za-z][\w./-]*)",
        )
    )
    named = _after(plain, r"(?:назови(?:\s+её)?|called|named|into)\s+([A-Za-z][\w./-]*)")
    if named and ("/" in named or not mentions.branch):
        mentions.branch = named
    # a quoted name is the whole name, spaces and all ("named 'feature/axis label'"): the tool refuses it as git
    # does, rather than a shorter one being made without a word (a fresh check got «feature/axis»)
    whole = next((q for q in quoted if mentions.branch and mentions.branch in q and re.search(r"\s", q)), None)
    mentions.branch = whole or _words_to_the_end(plain, mentions.branch) or mentions.branch
    mentions.base_branch = _after(plain, r"(?:\bот|\bfrom|\boff)\s+(?:ветки\s+|branch\s+)?([A-Za-z][\w./-]*)")
    if mentions.base_branch and mentions.base_branch.lower() in {e.lower() for e in envs}:
        mentions.base_branch = None
    table_words = (r"(?:таблиц\w*|\btable)\s+([A-Za-z_][\w.]*)", r"\bthe\s+([A-Za-z_]\w*)\s+table\b", ROWS_IN)
    mentions.table = next((table for p in table_words if (table := _after(plain, p))), None)
    mentions.database = _after(
        plain,
        rf"(?:\bбаз[аеуы]|\bdatabase)\s+(?!данных|(?:{NOT_AFTER})\b)([A-Za-z_][\w.-]*)",
    ) or _after(plain, rf"\b(?:the\s+)?(?!{NOT_A_NAME}\b)([A-Z][\w-]*)\s+(?:database|db)\b")
    mentions.schema = _after(plain, r"(?:схем[аеуы]|\bschema)\s+([A-Za-z_][\w]*)") or _after(
        plain, r"\b([A-Za-z_]\w*)\s+schema\b"
    )
    mentions.dialect = next((name for name, p in DIALECTS.items() if re.search(p, plain, re.I)), None)
    if re.search(r"на английском|по-английски|in english", text, re.I):
        mentions.language = "en"
    elif re.search(r"на русском|по-русски|in russian", text, re.I):
        mentions.language = "ru"
    mentions.owner = _after(
        plain, r"(?:владе\w+|принадлеж\w+|сделал\w*|owned by|owns?|created by)\s+(?!ли\b)([A-Za-z][\w.@-]*)"
    ) or _after(
        plain, r"\b(?!(?:who|which|what|that|it|he|she)\b)([A-Za-z][\w.@-]*)\s+owns\b"
    )  # "the datasets admin owns"
    if re.search(r"неопубликован|черновик|unpublished|\bdrafts?\b", text, re.I):
        mentions.published = False
    elif re.search(r"опубликован|\bpublished\b", text, re.I):
        mentions.published = True
    if re.search(r"несертифицир|uncertified|not certified", text, re.I):
        mentions.certified = False
    elif re.search(r"сертифицированн|\bcertified\b", text, re.I) and not re.search(r"\?|\bis\b|ли\b", text, re.I):
        mentions.certified = True
    limit = re.search(r"(?:первые|first|top)\s+(\d{1,4})", text, re.I)
    mentions.row_limit = int(limit.group(1)) if limit else None
    # A branch is another thing only when the question speaks of one ("called X" alone names the object searched).
    branch = mentions.branch if re.search(r"ветк|branch|/", plain, re.I) else None
    claimed = {
        str(v).lower() for v in (mentions.database, mentions.schema, mentions.owner, mentions.table, branch) if v
    }
    # a commit's message is no title («закоммить с сообщением «аудит Q3»» searched dashboards for it; turns_day15)
    unmessaged = re.sub(rf"(?:\b(?:с|with|and)\s+)?{COMMIT_MESSAGE}", " ", plain, flags=re.I)
    mentions.search_text = _search_text(unmessaged, [q for q in quoted if q != mentions.message], claimed, environments)
    mentions.dataset_name = _after(
        plain,
        r"(?:датасет\w*|dataset)\s+(?:(?:called|named|под названием|с именем)\s+)?"
        r"(?!(?:для|for|from|из|is|was|are|used|uses|using|feeds?|that|which|has|have|in|on|of|to|and|or)\b)"
        r"([A-Za-z_]\w*)",  # "the regions dataset used …": a verb or a preposition after the noun is no name
    ) or _after(plain, r"(?:назови\w*|назовём|назовем|(?:call|name) it)\s+(?:его\s+|её\s+|ее\s+)?([A-Za-z_]\w*)")
    if named_apart(plain, mentions.dataset_name, mentions.search_text):
        mentions.search_text = mentions.dataset_name
    mentions.names_kind = named_kind(plain, mentions.search_text)
    if mentions.names_kind is None:  # "the regions dataset": a one-word name before the kind's noun
        before_noun = re.search(r"\bthe\s+([A-Za-z][\w-]+)\s+(dataset|dashboard)\b", plain, re.I)
        if before_noun and before_noun.group(1).lower() not in POINTERS | NAME_FILLERS | STOP_WORDS:
            mentions.names_kind = before_noun.group(2).lower()
            mentions.search_text = mentions.search_text or before_noun.group(1)
    if holder := _after(plain, PART_OF_TABLE):  # "the avg_price metric in energy_consumption": that dataset's
        mentions.names_kind, mentions.search_text = "dataset", holder
    other_noun = re.search(rf"\b({OBJECT_WORDS['dashboard']}|{OBJECT_WORDS['chart']})", plain, re.I)
    identifier = re.fullmatch(IDENTIFIER, mentions.search_text or "")
    if mentions.names_kind is None and not other_noun and (identifier or mentions.table):
        mentions.names_kind = "dataset"  # a table named, no noun: "who has access to energy_consumption?"
        mentions.search_text = mentions.search_text or mentions.table
    references_read(plain, mentions)
    mentions.refers_to_page = bool(
        re.search(r"\b(эт(от|ом|ого|у|и|их|а|ой|им)|его|него|нём|this|it|these|here|здесь|тут)\b", plain, re.I)
    )
    return mentions
