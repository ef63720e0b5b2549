"""The vocabulary of ``reading`` (issue 16): the stems of the objects a question can be about, the verbs that
say make / show / check, and the small words that change a reading (prepositions, "this", search verbs, modals).

Data only: the grammar that uses it is in ``agentchat.toolset.reading``.
"""

import re

from agentchat.toolset.objects import OBJECTS as OBJECTS

MAKE, SHOW, CHECK = "make", "show", "check"

# Imperatives and wishes (a go-ahead: «поехали», «го»; Russian: the imperative forms, the polite plural too:
# «запустите», «перенесите»; a past «делали» or an infinitive «перенести» is not one).
MAKE_RU = re.compile(
    r"^(сделай|создай|заведи|запусти|выполни|сохрани|зафиксируй|закоммить|сгенер\w*|напиши|задокументируй"
    r"|заполни|провалидируй|валидируй|разверни|выкати|задеплой|деплой|перенеси|мигрируй|забэкап\w*|забекап\w*"
    r"|сними|откати(те)?|добавь|открой|экспортируй|выгрузи|копируй|скопируй|отправь|проведи|сгенерь|запушь|нужн[аоы]|нужен|хочу|давай"
    r"|поехали|погнали|вперед|го|стартуем|катим|катни|катн[её]м|выкатываем|деплоим|задеплоим|накатываем"
    r"|выкатывай|разворачивай|запускай|накатывай|применяй|переноси|создавай)(те)?$"
)
# The shape of a Russian imperative («прогони», «допиши», «применяй», «запускай», «поставь»), read at the head of
# a clause only (after a particle such as «ок», «ну», «давай»): there a plural noun rarely stands, and the
# endings of the nouns that do («детали», «подробности», «настройки», «логи») are left out.
IMPERATIVE_RU = re.compile(
    r"^[а-я]{3,}(ай|яй|уй|юй|ни|ши|ди|ри|жи|би|пи|ви|вь|нь)(те)?(сь)?$|^[а-я]{4,}(аем|яем|уем)$"
    r"|^[а-я]{2,3}ей(те)?$"  # «залей», «налей» (short: the genitive plurals of nouns are longer or are objects)
)
# Particles that may open a clause before its verb («ок, применяй», «ну давай», «погнали, запускай»).
LEAD_RU = re.compile(
    r"^(ок|окей|ok|ну|так|теперь|тогда|ладно|хорошо|а|и|пожалуйста|плиз|пжлст|погнали|все|отлично|супер|да|ага"
    r"|слушай|давай|давайте|сейчас|сразу|сначала|еще|уже|подтверждаю|апрув|аппрув|согласен|одобряю|принято"
    r"|привет|здравствуй|здравствуйте|коллеги|добрый|доброе|день|утро|вечер)$"
)
MAKE_EN = re.compile(
    r"^(make|create|run|start|do|take|save|commit|push|generate|write|fill|document|validate|deploy|ship|promote"
    r"|migrate|move|backup|back|add|open|put|export|register|new|need|copy|lint|review|kick|launch|trigger|perform"
    r"|roll|publish|send|execute|apply|proceed|rerun|retry|redo|go)$"
)
# An English wish: "I'd like this dashboard live on prod", "I want it on staging" (a request, unless "to" and a
# verb follow: "I'd like to see…" reads on).
WISH_EN = re.compile(r"^(like|want|wanna)$")
# An English wish to be given something new: "could we get a virtual dataset…", "it would be nice to have docs"
# (a request; "can I get a list / an overview" asks to see).
WISH_HAVE_EN = re.compile(
    r"\b(can|could|may) (we|i|you) (get|have) (a|an|some|new)\b"
    r"(?! (list|look|overview|summary|count|report|idea|status))"
    r"|\b(would|'d|will) be (nice|great|good|cool|helpful|awesome) (to have|to get|if you)\b",
    re.I,
)
# A question how to do something, answered by the request after it («Как это сохранить в гит? Закоммитьте …»).
HOW_ASKED = re.compile(r"\b(как|каким образом|how (do|can|should|to))\b", re.I)
# A need said, no imperative («нужен для графика»: the context of a question).
NEED_RU = re.compile(r"^(нужн\w*|нужен|надо|хочу|хотим|хочется)$")
# A fact wanted ("need the id of last night's one", "I want the list of owners"): it is asked, not made (turns_day10
# f1017: «need» read as a request ran a backup).
FACT_WANTED_EN = re.compile(
    r"\b(need|want|wanna)\s+(to\s+(know|see|check|find out)\b|(the|a|an|its|their)?\s*(id|ids|name|names|list|status"
    r"|number|date|dates|link|url|info|details|count|size|owner|owners|time|figure|figures)\b)",
    re.I,
)
# English verbs lead the sentence (after a politeness), else they are nouns ("the backup", "a new branch").
EN_LEAD = re.compile(
    r"^(please|pls|plz|can|could|would|you|u|let's|lets|i|i'd|id|we|we'd|want|like|to|need|now|ok|okay|so|go|ahead"
    r"|and|then|just|fine|alright|yes|yep|sure|approve|approved|confirm|confirmed|lgtm|hi|hello|hey|morning|team)$"
)
NEW_RU = re.compile(r"^нов(ый|ую|ая|ое)$")  # «новый датасет: …» at the head of a request
SHOW_WORDS = re.compile(
    r"^(покажи|покаж\w*|скажи|подскаж\w*|глянь|взгляни|посмотри|слушай|смотри|список|перечисли|найди|ищу|поищи|какие|какой|какая|каких|кто|когда|где|сколько|есть|ли"
    r"|уточни|напомни|объясни|поясни|сравни|compare|see|know|view|preview|превью"
    r"|результат\w*|итог\w*|results?|outcome"  # «результат ревью дашборда 2»: the result is asked, not a run
    r"|расскажи|раскажи|что|чем|как|куда|откуда|почему|зачем|чей|чья|чьи|был|была|были|прош[её]л|прошла"
    r"|дай|дайте|show|list|find|tell|which|what|whats|who|whos|when|where|wheres|why|whose|hows"
    r"|how|is|are|was|were|did|does|has|have|any|give|summary|overview)(те)?$"  # «скажите», «посмотрите»: polite
)
CHECK_WORDS = re.compile(
    r"^(проверь|провер\w*|check|validate|валидируй|валидни|провалидь|audit|подтверд(и|ите)|убед(ись|итесь)|confirm|verify)$"
)
CLAUSE_AFTER_CHECK = re.compile(
    r"(провер\w*|check)\b([^.?!]*?,\s*|\W+)(что|ли|не|все ли|всё ли|whether|if|that|what)\b"
    r"|провер\w*\b[^.?!]*?\s\w+\s+ли\b",  # «проверь, опубликован ли он»: the particle «ли» makes it a question
    re.I,
)
# Phrases that name an object in more than one word.
PHRASES: dict[str, re.Pattern] = {
    "permission": re.compile(
        r"\b(кто (может|сможет|видит)|кому|who can|who (sees|may))\b"
        r"|\b(can|may)\b(\s+\w+){0,3}\s+(edit|see|read|view|access|open|modify)\b"  # "which users can edit …"
        r"|\ballowed to\b|\bразрешен\w*"
        r"|\b(может|могут|можно)\s+(редактир|видеть|смотреть|открыва|менять|изменять)",
        re.I,
    ),
    # "can you do …?" asks what the agent can do, "can you do it?" asks it to act.
    "agent": re.compile(r"\b(can|could) (you|u) do\b(?!\s+(it|this|that)\b)|\bare (you|u) able\b", re.I),
    "deploy": re.compile(r"\broll(ing)?\b(\s+\w+){0,3}\s+out\b|\brollout\b", re.I),  # "roll it out to prod"
    # How far a run has got, asked in more than one word ("how long will it take?", «сколько ещё ждать»).
    "progress": re.compile(
        r"\bход (выполнения|миграции|задачи|переноса)|\bhow long\b|\bstill running\b|сколько (ещ[её] )?ждать"
        r"|\bещ[её] (ид[её]т|работает)"
        # A past run asked about: its last run, its step, who started it («кто запускал», "who kicked it off").
        r"|\blast (run|attempt)\b|последн\w* (запуск|прогон)|\bна каком (шаге|этапе)\b|\bat what (step|stage)\b"
        r"|\bwho (ran|started|launched|triggered|kicked)\b|\bкто (запускал|запустил|стартовал)"
        # Whether one's run got through, in colloquial words («бэкап … доехал?», «миграция прошла?»).
        r"|\b(доехал|доехала|дошл[аои]|дош[её]л|прош[её]л|прошла|завершил\w*|закончил\w*|отработал\w*)\b|\bготов[аоы]?\s*(ли\b|\?)"
        r"|\bуже (перенес|переех|смигрир|мигрир|скопир)\w*|\balready (moved|migrated|copied|transferred)\b",
        re.I,
    ),
    # Membership in the page's object ("is the sales dashboard part of it?", «входит ли он в миграцию»).
    "membership": re.compile(r"\bpart of\b|\bвход(ит|ят)\b|\bincluded\b|\bв составе\b|\bвключен\w*", re.I),
    # Whether something is all right («всё ли ок с неймингом?», "is the naming ok?"): with what a review judges
    # (names, metadata) a review run, asked in general a state.
    "problems": re.compile(
        r"в порядке|вс[её] ли (ок|окей|норм\w*|хорошо|правильно)|\b(ok|okay|fine|right) with\b", re.I
    ),
    # What a run would do: "what would get broken", «что будет перезаписано», «какие дашборды будут заменены».
    "consequence": re.compile(
        r"\b(would|will|'ll|going to|gonna)\b(\s+\w+){0,3}?\s+(break|broke|overwrit|replac|affect|chang|delet|creat"
        r"|lost|los|fail|happen)"
        r"|готов\w* к (запуску|миграции|переносу|применению)|\bready to (run|go|migrate|apply)\b"  # can it run?
        r"|\bбуд(ет|ут)\b(\s+\w+){0,2}?\s+(перезапис|замен|удал|созда|измен|затрон|потер|слом)"
        # The perfective future of a prefixed reflexive verb says what a run would do to objects («чарты
        # перезатрутся», «датасеты задублируются», «удалятся»); what is carried along with them is in the plan.
        r"|\b(пере|за|про|раз|с|у|об)[а-яё]{3,}(ут|ют|ят|ат)ся\b|\b(come|comes|go|goes|carried|brought) (along|over)\b"
        # Source and target compared, or what maps to what there: the plan's side-by-side (a preview).
        r"|\bсравни\w*|\bcompare\b|\bhow different\b|\bоткуда\b(\s+\w+){0,2}\s+куда\b|\bmaps? to\b"
        r"|\b(мапит|мапят|маппит|смапл|замапл|сопоставл)\w*",  # «energy на деве куда мапится на проде?» (a QA check)
        re.I,
    ),  # «всё ли в порядке с метаданными?» asks for a review run
    "query": re.compile(r"сколько (всего )?(строк|записей)|how many (rows|records)|больше всего|меньше всего", re.I),
}
# What uses an object («какие дашборды используют датасет X», "which charts use the X dataset", «на чём
# построены»): its dependents are asked about (issue 29 item 2).
USES = re.compile(
    r"(использ\w*|построен\w*|стро[ия]тся|на основе|\buses?\b|\bused\b|\busing\b|\bbuilt (on|from)\b"
    r"|\bbased on\b|\bdepend\w*|завис\w*|\bfeeds?\b|питает)",
    re.I,
)


# The person's own run («мой бэкап», "did my backup finish?"): its background task is asked about (issue 29 item 4),
# not the list of what runs made ("did the nightly backup of prod succeed?" reads the backups).
OWN_RUN = re.compile(
    r"(?<!\w)(мо[йяеи]|моего|моей|моих|моим|my|mine|i (ran|started|launched|kicked)"
    r"|я (запускал|запустил|стартовал|делал|сделал)\w*)(?!\w)",
    re.I,
)


# Generic objects: of these, the first one named (not after a preposition: «в таблице», "in the database" is a
# place) is what the question is about; the others are its attributes.
GENERIC = ("dashboards", "datasets", "table", "dashboard", "chart", "attribute", "column", "dataset")
# The read tool of a page's object: what a question about it, or about its parts, is answered with (DESIGN §8).
PAGE_READ = {
    "dashboard": "get_health_summary",
    "dataset": "superset_explore_database",
    "migration": "preview_migration",
}
# A read tool the page does not offer (DESIGN §8) and the one that reports the same state there: the dashboard
# page's summary reports its git state, the dataset page's database explorer describes the dataset.
PAGE_STAND_INS = {
    ("dashboard", "get_git_status"): "get_health_summary",
    ("dataset", "get_dataset_details"): "superset_explore_database",
}
# The parts of a page's object: asked about on its page with nothing else, its read tool answers.
PAGE_PARTS = ("dashboards", "datasets", "dashboard", "dataset", "chart", "attribute", "column", "table", "consequence")
PLACE_OBJECTS = ("table", "environment")
# An interrogative right before a place object makes it what is asked («на какие стенды…», "to which envs").
ASKED_DETERMINER = re.compile(r"^(какие|каких|какой|какая|какую|каком|какое|which|what)$")
# Parts that only the page's object has there (DESIGN §8 offers no dataset search on a dashboard page): named
# bare on that page they are its own («какие датасеты под капотом»).
PAGE_OWN_PARTS = {"dashboard": ("datasets", "chart")}
# A period of time asked about on a dataset page is numbers from its data («а за прошлый месяц?», "by year").
# Time units in the plural after «по» («по месяцам»): a period's grouping, not a column's values.
PERIODS_PLURAL = r"(годам|месяцам|неделям|дням|кварталам)"
PERIOD = re.compile(
    r"\bза\s+(прошл|последн|вчера|сегодня|(19|20)\d\d)\w*|\b(прошл|последн)\w*\s+(год|месяц|недел|квартал|день)"
    rf"|\bпо\s+{PERIODS_PLURAL}\b|\b(last|previous|past)\s+(year|month|week|quarter|day)\b"
    r"|\b(per|by)\s+(year|month|week|day|quarter)\b|\bin\s+(19|20)\d\d\b",
    re.I,
)
# A count of a dataset's own parts («сколько колонок в датасете?», "how many metrics does it have?"): its description
# answers it, not a query of its data (a fresh check asked for SQL).
PARTS_COUNTED = re.compile(
    r"\b(сколько|how many|number of|кол-?во|количество|число)\s+(\w+\s+)?(колон\w*|столбц\w*|столбец|пол[ейя]\b"
    r"|метрик\w*|columns?|metrics?|fields?)",
    re.I,
)
# How far the data goes («до какого числа данные залиты?», «данные за декабрь уже есть?», "how fresh is the data?"):
# its latest date answers it (turns_day9 e921, e965).
DATA_UNTIL = re.compile(
    r"до какого числа|по какое число|до какой даты|на какую дату|up to (what|which) date|how (recent|fresh|up to date)"
    r"|\b(latest|most recent|freshest) data\b|(есть|имеются|залиты|загружены)\s+(ли\s+)?(уже\s+)?данн\w*\s+за\b"
    r"|данн\w*\s+за\s+\S+(\s+\S+)?\s+(уже\s+)?(есть|залит\w*|загружен\w*|появил\w*)|\bis there (any )?data for\b",
    re.I,
)
# A month of the data («в декабре», «за март 2025», "in December"): with no object named, a figure of the data is
# asked («какое потребление было в декабре?»), though no quantity word is said (``Reading.figure``).
MONTH = re.compile(
    r"\b(январ|феврал|март|апрел|ма[йяе]\b|июн|июл|август|сентябр|октябр|ноябр|декабр)"
    r"|\b(january|february|march|april|june|july|august|september|october|november|december)\b"
    r"|\b(in|for|during|since)\s+may\b",  # "may" alone is a modal
    re.I,
)
PREPOSITIONS = re.compile(r"^(в|во|на|из|при|к|ко|по|для|под|of|in|on|from|at|inside|for|by|over)$")
# A specific object named after one of these, once another was named, qualifies it («задача по этой миграции»,
# "dashboards to add to this migration"); "to" is no place ("where can I migrate to? list the targets").
QUALIFYING = re.compile(r"^(в|во|на|из|при|к|ко|по|для|под|of|in|on|from|at|inside|for|by|over|to|into|onto)$")


THIS_WORDS = re.compile(
    r"^(этот|этом|этого|этому|этим|эти|этих|эта|этой|это|эту|его|него|он|она|оно|нем|ней|ним|нее|ее|отсюда|сюда|тут|здесь"
    r"|this|it|its|here|текущ\w*|current)$"
)
# The one place an object goes to, in the singular («куда она идёт?», "the target of this one"); the plural asks
# for the environments to choose from ("list the target environments").
TARGET_WORDS = re.compile(r"^(куда|where|target|destination|цель|целевое|целевой|целевого|целевом)$")
# Possessives: the noun after them is the page object's part («его метаданные», "its filters"), not another object.
POSSESSIVES = re.compile(r"^(его|ее|их|its)$")
# «ещё», "other": the plural is of other objects than the page's («какие ещё дашборды есть?»).
OTHER_WORDS = re.compile(r"^(еще|другие|других|другим|остальные|остальных|other|others|besides|else)$")
# Adding to the page's object: what is added comes from elsewhere («какие дашборды можно добавить в эту миграцию»).
ADD_WORDS = re.compile(r"^(добав\w*|add|include|включи|включить)$")
FIND_WORDS = re.compile(r"^(найди|найти|ищу|поищи|ищи|поиск|find|search|look|where)$")
# Russian verbs take perfective prefixes («смигрируй», «перепроверь», «закомить»): a token that is not a known
# word is read again without one.
PREFIXES_RU = ("пере", "за", "с", "по", "вы", "про", "не")
# «опиши», "describe": a request to be told about the object, unless the object is its charts (their
# descriptions are written: «опиши графики» = run_llm_documentation, holdout set of issue 8).
DESCRIBE = re.compile(r"^(опиши|описать|describe|auto-describe|describes)$")
# A modal of request followed by an infinitive asks for that action («можно ветку завести?», «надо закоммитить»,
# «можешь сделать бекап?»): a request, not a question about the agent or about state. «можно ли …» asks.
MODAL_RU = re.compile(r"^(можно|можешь|можете|могли|надо|нужно|необходимо|хочу|хотим|прошу|давай|давайте)$")
INFINITIVE_RU = re.compile(r"^[а-я]{3,}(ть|ти|чь)(ся)?$")
NOT_INFINITIVE_RU = re.compile(r"(ость|есть|асть|ять|оть|ешь)$|^(быть|путь|суть)$")
# Getting something onto an environment is moving it there ("can we get this onto staging?"): a request.
MOVE_TO_ENV = re.compile(
    r"\b(get|bring|put|move|push|land)\s+(it|this|that|them|these|those|this one|the \w+|\w+ \d+)"
    r"\s+(onto|to|on|into)\s+(prod|production|staging|stage|dev)\b",
    re.I,
)
# English auxiliaries that open a question: "do we have…?", "does it…", "did the deploy…" (not "do a backup").
AUX_EN = re.compile(r"^(do|does|did)$")
SUBJECT_EN = re.compile(r"^(we|you|u|i|they|it|this|these|the|any|there|he|she|our|my)$")
# English nouns that make the word before them a noun too: "backup history", "commit log", "review results".
NOUN_AFTER_EN = re.compile(r"^(history|list|log|logs|status|results?|summary|details|size|sizes|info|report)$")
# A question about whether something exists asks for a search («есть у нас дашборд про продажи?»).
EXISTS_WORDS = re.compile(r"^(есть|имеется|exist|exists)$")
# An environment named by its tier, when nothing else is named, is the object (where is staging, what is prod?).
ENV_NAMES = re.compile(r"^(prod|production|staging|dev|прод|прода|проде|продакшн|стейджинг\w*|стейдж|дев)$")
# SQL in the question, and a verb that runs it: «выполни select …», "run select count(*) … on this dataset" is a
# query to run, whatever object the sentence names besides («сделай датасет из запроса select …» is not).
SQL_IN_TEXT = re.compile(r"\bselect\b.+\bfrom\b|\bselect\s+(\d|\*|count\()|\bwith\s+\w+\s+as\s*\(", re.I | re.S)
RUN_WORDS = re.compile(r"^(run|execute|exec|выполни|запусти|прогони|выполнить|запустить)$")
# A negated action: «не деплой пока», «не надо запускать», "don't run it yet", «без коммита». What is negated is
# not asked for (never read as a request: a read question must not get a write card).
# A verb negated after it («откатывать не надо, просто скажи кто», a QA check refused «откатывать»).
NEGATED_AFTER = re.compile(r"(?<!\w)([\w'-]+)(\s+не\s+(надо|нужно|стоит|требуется)\b)", re.I)
NEGATED = re.compile(
    r"(?<!\w)((не\s+(надо|нужно|стоит|спеши\w*)\s+|не\s+|без\s+|don'?t\s+|do not\s+|never\s+|no need to\s+"
    r"|without\s+)((ничего|пока|это|его|ее|её|их|сейчас|anything|yet|now|it|that|this)\s+)?)"
    r"([\w'-]+)",
    re.I,
)
# The objects whose word, negated, names an action left out («без коммита», "without a deploy").
ACTION_OBJECTS = ("deploy", "migration", "git", "backup", "branch", "validation", "docs")
# On a dataset page, a quantity or a superlative asks for numbers from the data (superset_execute_sql).
QUANTITY_WORDS = re.compile(
    r"^(сколько|скок|скока|скоко|наибольш\w*|наименьш\w*|больше|меньше|чаще|реже|lowest|highest|least|most|biggest|smallest"
    r"|largest|top|much|many|latest|earliest|newest|oldest|последн\w*|ранн\w*|поздн\w*|свеж\w*|самы\w*)$"
)
# Infinitives of seeing after a modal ask to see («хочу посмотреть бэкапы», «можно узнать статус?»).
SEE_INFINITIVE_RU = re.compile(
    r"^(по)?(смотреть|глядеть|глянуть)|^(у)?видеть$|^(у)?знать$|^понять$|^взглянуть$|^найти$|^прочитать$"
    r"|^показать$|^получить$|^вывести$|^перечислить$|^рассказать$"
)
# A name given: quoted, an identifier (energy_consumption), a Title In Capitals after the sentence's start (in
# Russian, a capitalised word after a lower-case one), words
# between "the" and the noun ("the regions overview dashboard") or a topic after it («отчёт по энергопотреблению»).
# A title in «»: words with a space or a Cyrillic letter, not an identifier nor an environment («в «prod»»).
TITLE_QUOTED = re.compile(r"«(?!(?:ss-dev|prod|staging|dev)»)[^»]*[ а-яА-ЯёЁ][^»]*»")
# The tools of one dashboard that a «title» with no noun names (a commit's «message» after «с сообщением» is none).
TITLED = ("get_health_summary", "compare_versions", "deploy_history", "deploy_dashboard", "commit_changes")
NAMED = re.compile(
    r"«[^»]+»|\"[^\"]+\"|\b[a-z]\w*_\w+\b|(?<=\w )[A-Z][a-z]+(?: [A-Z][a-z]+)+\b"
    r"|(?<=[а-яё] )[А-ЯЁ][а-яё]+(?: [а-яёА-ЯЁ]+)?\b"  # «проверь дашборд Обзор продаж»: a Russian title
    r"|(?i:\bthe (?!(this|that|same|whole|new|main|current|last|first|other|previous|next|entire|latest)\b)"
    r"([a-z]+ ){1,3}(dashboard|dataset|report)\b)"
    r"|(?i:(дашборд|отч[её]т|датасет)\w*\s+(по|про|об?)\s+[а-яё]{4,})"
    # A Latin word right after a Russian object noun is its name («датасет meters», «дашик sales на проде»).
    r"|(?i:(дашборд|дашик|датасет|отч[её]т)\w*\s+(?!(in|on|for|from|the|and|with|to|at|by)\b)[a-z][\w-]{2,})"
)
EXISTS_EN = re.compile(r"\b(do (we|you) have|is there|are there|any)\b", re.I)

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
    (SHOW, "consequence"): "preview_migration",
    (CHECK, "consequence"): "preview_migration",
    (CHECK, "content"): "run_llm_validation",  # "check whether it follows our naming rules": a review
    (SHOW, "permission"): "superset_audit_permissions",
    (SHOW, "dashboards"): "search_dashboards",
    (SHOW, "datasets"): "search_datasets",
    (MAKE, "dataset"): "superset_create_dataset",
    (SHOW, "table"): "superset_explore_database",
    (SHOW, "query"): "superset_execute_sql",
}
# Objects a check reviews (run_llm_validation); a check of any other object reads its state («проверь права на
# датасет 2», "check task 12", «проверь гит статус»): there is no review of permissions, tasks or git.
REVIEWED = ("validation", "dashboard", "docs", "problems", "content")
# A tool whose other-verb counterpart is its own first step is not held back by the reading (a migration is
# previewed first, DESIGN §11).
FIRST_STEP = {"execute_migration": "preview_migration"}
# The read shown after a tool found nothing to apply to (``errors.NOT_APPLICABLE``): «откати последний деплой» with no
# copy saved before a deploy there shows what was deployed there (issue 29: the reason, then what can be shown);
# the router keeps it in the top 3 beside the tool, so a top-K cut offers it.
READ_WHEN_MOOT = {"rollback_deploy": "deploy_history"}
# Tools that act on one dashboard or dataset by id; given a name instead, the planner searches for it first
# (issue 16: a name → search_dashboards), so the router keeps the search beside them.
BY_ID = {
    "dashboard": (
        "get_health_summary",
        "get_git_status",
        "commit_changes",
        "run_llm_validation",
        "run_llm_documentation",
        "deploy_dashboard",
        "superset_audit_permissions",
        "compare_versions",
    ),
    "dataset": ("get_dataset_details", "superset_audit_permissions", "compare_versions"),
}
SEARCH_OF = {"dashboard": "search_dashboards", "dataset": "search_datasets"}
# One object's read tool, by the object's noun and the page (a question about something else that names the
# object as its target takes nothing from this tool: «проверь права на датасет 2» is not about its columns).
ONE_OBJECT = {"dashboard": "get_health_summary", "dataset": "get_dataset_details"}
TARGETING = ("permission", "deploy", "migration", "task", "backup")
# A colloquial Russian imperative made from an object's word («коммитни», «бэкапни», «деплойни»): the
# noun forms of these words never end so.
OBJECT_IMPERATIVE_RU = re.compile(r"^[а-я]{2,}(ни|нь)$")  # not -шь: «умеешь», «можешь» are questions
# A count or the first rows of a dataset: on its page the planner reads its table first, then writes the SQL.
COUNT = re.compile(
    r"(сколько|скока|скоко|скок) (всего )?(записей|строк)|количеств\w* (записей|строк)|how many (rows|records)"
    r"|count (the )?rows|number of rows",
    re.I,
)
# A count restricted by a condition (a year, a comparison, a filter, a grouping) is not the plain count the
# planner writes itself: the SQL is asked for («сколько строк за 2023 год», "how many rows have a negative value").
COUNT_CONDITION = re.compile(
    r"\b(19|20)\d\d\b|\bза\s+(?!(этим|ним|ней|этой|this)\b)\w+|\b(где|которых|которые|больше|меньше|выше|ниже"
    r"|отрицат\w*|положит\w*|пуст\w*|по\s+[а-яё]+ам|where|having|with|per|greater|less|more than|negative|positive"
    r"|above|below|since|after|empty|null)\b|\b(have|has) (a|an|no|empty|null)\b",
    re.I,
)
# "top 5 regions by value" is a query, not the first rows: "top" counts only before rows.
FIRST_ROWS = re.compile(
    r"(первые|first)\s+\d+|top\s+\d+\s+(rows|records)|покажи (строки|данные|записи)|show (me )?(the )?(rows|data)"
    r"|(пару|парочку|несколько|пример\w*)\s+(строк|записей|данных)|(a few|some|sample|example)\s+(rows|records|data)"
    r"|sample of (the )?data|(the )?first (few )?(rows|records)|первые (строки|записи)",
    re.I,
)
# A name as written in Superset, a table's above all (``energy_consumption``, ``orders_v2``).
IDENTIFIER = r"[a-z][a-z0-9]*_\w+"
# A column's values («какие значения есть в колонке source», "distinct values of region"): ``sql_steps.sql_for``.
VALUES = re.compile(
    r"\b(значени\w*|values?)\b.{0,20}\b(колонк\w*|столбц\w*|пол[еяю]\w*|columns?|fields?)\b"
    r"|\b(distinct|unique)\s+values\b|\b(уникальн|различн)\w*\s+значени\w*|\bvalues of\b",
    re.I,
)

# «бэкап дева!», "full backup of prod before tonight's release please", «бэкап прода перед релизом, сейчас»: the noun
# and the environment alone are a terse request for one (turns_day6 y45, turns_day9 e961, turns_day12 h1243).
TERSE_BACKUP = (
    r"^\s*(?:(?:полн\w*|full|fresh|свеж\w*|нов\w*|new)\s+)?(?:бэкап|бекап|backup)\s+(?:of\s+|для\s+)?[\w-]+"
    r"(?:\s+(?:before|перед)\b.*?)?(?:\s*,?\s*(?:пожалуйста|please|pls|плиз|плз|сейчас|срочно|немедленно|now|asap))*"
    r"\s*[!.]*\s*$"
)
TERSE_REQUEST = re.compile(TERSE_BACKUP, re.I)  # read as a request to make one (``reading.read_question``)
