"""The verb of a question (issue 16): make, show or check, read from its grammar (``agentchat.toolset.reading``).

Imperatives (listed, or by the shape of a Russian imperative at a clause's head), wishes, modals with an
infinitive, check verbs with or without a clause after them, English auxiliaries that open a question, question
words, and a question mark. The words are data, in ``agentchat.toolset.words``.
"""

from agentchat.toolset.morphology import past_ru
from agentchat.toolset.tokens import object_of, tokens_of
from agentchat.toolset.words import (
    ACTION_OBJECTS,
    AUX_EN,
    CHECK,
    CHECK_WORDS,
    CLAUSE_AFTER_CHECK,
    DESCRIBE,
    EN_LEAD,
    FACT_WANTED_EN,
    IMPERATIVE_RU,
    INFINITIVE_RU,
    LEAD_RU,
    MAKE,
    MAKE_EN,
    MAKE_RU,
    MODAL_RU,
    MOVE_TO_ENV,
    NEED_RU,
    NEW_RU,
    NOT_INFINITIVE_RU,
    NOUN_AFTER_EN,
    OBJECT_IMPERATIVE_RU,
    PHRASES,
    SEE_INFINITIVE_RU,
    SHOW,
    SHOW_WORDS,
    SUBJECT_EN,
    TERSE_REQUEST,
    WISH_EN,
    WISH_HAVE_EN,
)


def verb_of(
    tokens: list[str], question: str, objects: set[str], clauses: frozenset[int] | set[int] = frozenset()
) -> str:
    """The verb of the question: the first imperative, modal request, check or question word
    (``agentchat.toolset.reading``'s module docstring).

    Args:
        tokens: the question's words, read through typos and prefixes; question: its text (the main clause);
        objects: the objects found; clauses: the indices of the tokens that open a clause (after a comma).

    Returns:
        ``MAKE``, ``SHOW``, ``CHECK`` or '' (none found).

    English verbs count only at the head of the sentence (after a politeness), and not before a noun they
    qualify ("backup history", "health check"); "do we …?" asks. A Russian modal followed by an infinitive asks
    for that action («можно ветку завести?»), unless the infinitive is a seeing one («хочу посмотреть»)."""
    if WISH_HAVE_EN.search(question):
        return MAKE  # "could we get a virtual dataset…", "it would be nice to have docs": something new is asked for
    if MOVE_TO_ENV.search(question):
        return MAKE  # "can we get this onto staging?": moving it there is asked for
    if TERSE_REQUEST.search(question):
        return MAKE  # «бэкап прода сейчас»: a backup asked for without its verb
    lead = True  # still at the head of the sentence (English verbs count only there)
    head_ru = True  # still at the head of a Russian clause (after particles only)
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        head_ru = head_ru or i in clauses  # «дашборд, обнови описания»: a clause starts after the comma
        lead = lead or i in clauses  # "Freeze lifted at 10:00. Run it.": the request's sentence has its own head
        if PHRASES["agent"].search(question):
            return SHOW  # "can you do …?" asks what the agent can do
        if DESCRIBE.match(token):
            return MAKE if "chart" in objects else SHOW  # «опиши графики»: their descriptions are written
        if INFINITIVE_RU.match(token) and after == "бы":
            return MAKE  # «задеплоить бы его на стейдж»: a wish
        if MODAL_RU.match(token) and after != "ли":
            wanted = next((t for t in tokens[i + 1 :] if _infinitive(t)), "")
            if SEE_INFINITIVE_RU.match(wanted):
                return SHOW
            if wanted:
                return CHECK if CHECK_WORDS.match(wanted) else MAKE
        if lead and AUX_EN.match(token) and SUBJECT_EN.match(after):
            return SHOW
        if lead and WISH_EN.match(token) and i and after != "to":
            return MAKE  # "I'd like this dashboard live on prod": a wish
        english = token.isascii()
        if lead and english and token in ("need", "want", "wanna") and FACT_WANTED_EN.search(question):
            return SHOW  # "need the id of last night's one": a fact is asked for
        if CHECK_WORDS.match(token) and (lead or not english) and (english or not past_ru(token)):
            # «всё проверили, задеплой его» says what was done: the request's verb comes after (a QA check)
            return SHOW if CLAUSE_AFTER_CHECK.search(question) else CHECK
        if lead and english and NOUN_AFTER_EN.match(after) and (MAKE_EN.match(token) or CHECK_WORDS.match(token)):
            return SHOW  # "backup history", "review results": the word qualifies a noun asked about
        if not english and OBJECT_IMPERATIVE_RU.match(token) and object_of(token):
            return MAKE
        if MAKE_RU.match(token) or (lead and (MAKE_EN.match(token) or NEW_RU.match(token))):
            return MAKE
        if SHOW_WORDS.match(token):
            return SHOW
        if head_ru and INFINITIVE_RU.match(token) and object_of(token) in ACTION_OBJECTS and "?" not in question:
            return MAKE  # «закоммитить дашборд», «перенести на прод»: an action's infinitive heading a request
        if head_ru and not english and IMPERATIVE_RU.match(token) and not object_of(token):
            return MAKE  # «прогони валидацию», «ок, применяй»: the shape of an imperative at the clause's head
        lead = lead and bool(EN_LEAD.match(token))
        head_ru = head_ru and bool(LEAD_RU.match(token))
    return SHOW if "?" in question else ""


def told_to(sentence: str) -> bool:
    """True when ``sentence`` holds an imperative («Если можно, закоммитьте …», "please commit it"), not a need
    («нужен для графика»), an infinitive or a question («можно ли это сделать?»): the request that answers a question
    how to do it («Как это сохранить в гит? …») or follows a precondition (``clauses.main_clause``)."""
    if sentence.rstrip().endswith("?"):
        return False  # «можно ли это сделать?» asks (``verb_of`` reads it)
    tokens = tokens_of(sentence)
    head = next((t for t in tokens if not EN_LEAD.match(t)), "")
    ordered = [t for t in tokens if MAKE_RU.match(t) and not NEED_RU.match(t) and not _infinitive(t)]
    return bool(ordered) or bool(head.isascii() and MAKE_EN.match(head))


def _infinitive(token: str) -> bool:
    """True when ``token`` is a Russian infinitive («сделать», «закоммитить»), not a word of its shape."""
    return bool(INFINITIVE_RU.match(token)) and not NOT_INFINITIVE_RU.search(token)
