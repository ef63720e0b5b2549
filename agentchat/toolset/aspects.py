"""What a question asks about that no tool returns (issue 29 item 1): the aspects of ``aspects.yaml``, read once.

``asked_aspect`` is part of the reading (``reading.Reading.aspect``): the offline planner answers such a question by
saying in one sentence that it cannot serve it and what it can do instead, and a model is told so in its prompt
(``turn.prompt``), so that no generic summary stands in place of a specific question.

``unheard_focus`` catches what nobody wrote down: the word a question word asks about (``asked_words.yaml``) that no
tool's texts and no labelled question of ``examples.yaml`` ever used — an aspect no tool is known to return; the
planner then says so, hedged («если вы спрашиваете про …»), before the nearest answer. ``unheard_action`` does the
same for a request's leading verb («пометь датасет как сертифицированный», "upgrade ss-dev"): an operation no tool
was ever asked to perform, never answered by a summary with no word that it was not done. ``foreign_verb`` catches a
verb some tool is asked with, but never the tool chosen («сертифицируй дашборд» read as a review run, "add a chart"
read as the dashboard's summary): that tool's card or answer is not what was asked.
"""

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from agentchat.runtime.registry import registry
from agentchat.toolset.clauses import PREVIEW_SEEN, QUOTED
from agentchat.toolset.morphology import imperative_ru
from agentchat.toolset.tokens import corrected, object_of
from agentchat.toolset.words import IDENTIFIER, SQL_IN_TEXT

ASPECTS_PATH = Path(__file__).with_name("aspects.yaml")
ASKED_WORDS_PATH = Path(__file__).with_name("asked_words.yaml")
# The router's labelled examples (``toolset.examples``, which imports the reading: read here by path).
EXAMPLES_PATH = Path(__file__).with_name("examples.yaml")
KINDS = ("question", "action")
# A word is heard when a word of the vocabulary starts like it (Russian endings vary: «колонки», «колонок»).
STEM_RU, STEM_EN = 5, 6
# How many words after a question word are read for what is asked («какой у этого дашборда …»).
FOCUS_WINDOW = 4
_WORD = re.compile(r"[a-zа-я][a-zа-я0-9_-]+")
# How many words from the start are read for a request's verb («ну плиз срочно пометь …»).
VERB_WINDOW = 3


@dataclass(frozen=True)
class Aspect:
    """One aspect of ``aspects.yaml``: ``name``, ``kind`` (``question`` | ``action``), ``about`` (English words for a
    model), ``patterns`` (compiled, case-insensitive), ``examples`` (questions it must be read in)."""

    name: str
    kind: str
    about: str
    patterns: tuple[re.Pattern[str], ...]
    examples: tuple[str, ...]

    def found_in(self, text: str) -> bool:
        """True when one of the aspect's words is in ``text`` (already folded: ``fold``)."""
        return any(p.search(text) for p in self.patterns)

    def without(self, text: str) -> str:
        """``text`` (folded) without what the aspect's patterns match: what else it asks ("start a backup and email
        me when it finishes" → "start a backup and …")."""
        folded = fold(text)
        for pattern in self.patterns:
            folded = pattern.sub(" ", folded)
        return folded


# Quoted parts (titles, commit messages) and branch-like tokens (fix/colors): their words name no aspect.
_NAMES = re.compile(r"«[^»]*»|“[^”]*”|\"[^\"]*\"|'[^']*'|`[^`]*`|\S*\w/\w\S*")


def fold(text: str) -> str:
    """``text`` as the patterns read it: without quoted parts and branch-like tokens, lower case, ё as е."""
    return _NAMES.sub(" ", text).casefold().replace("ё", "е")


@functools.cache
def aspects() -> tuple[Aspect, ...]:
    """The aspects of ``aspects.yaml`` in its order (the first that matches wins), loaded once.

    Raises:
        ValueError: an entry without a name, with an unknown kind, without words, or a name used twice.
    """
    rows = yaml.safe_load(ASPECTS_PATH.read_text(encoding="utf-8")) or []
    out: list[Aspect] = []
    for row in rows:
        name, kind = row.get("name"), row.get("kind")
        if not name or kind not in KINDS or not row.get("words") or name in {a.name for a in out}:
            raise ValueError(f"aspects.yaml: bad entry {name!r}")
        patterns = tuple(re.compile(w, re.IGNORECASE) for w in row["words"])
        out.append(Aspect(name, kind, str(row.get("about") or name), patterns, tuple(row.get("examples") or ())))
    return tuple(out)


UNHEARD = "unheard"
UNHEARD_ACTION = "unheard_action"


def aspect_named(name: str) -> Aspect | None:
    """The aspect called ``name`` ('' or an unknown name: None)."""
    return next((a for a in aspects() if a.name == name), None) if name else None


def unheard_aspect(word: str) -> Aspect:
    """A question about ``word`` (``unheard_focus``) as an aspect of its own: ``name`` ``unheard``, ``about`` the
    word."""
    return Aspect(UNHEARD, "question", word, (), ())


def unheard_action_aspect(verb: str) -> Aspect:
    """A request to ``verb`` (``unheard_action``) as an aspect of its own: ``name`` ``unheard_action``, kind
    ``action``, ``about`` the verb as typed."""
    return Aspect(UNHEARD_ACTION, "action", verb, (), ())


def asked_aspect(question: str) -> Aspect | None:
    """The first aspect of ``aspects.yaml`` whose words ``question`` holds, or None (a question some tool serves,
    or one whose aspect nobody wrote down)."""
    text = fold(question)
    return next((a for a in aspects() if a.found_in(text)), None)


def _stem(word: str) -> str:
    return word[:STEM_RU] if re.match("[а-я]", word) else word[:STEM_EN]


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(fold(re.sub(r"\d+", " ", text))) if len(w) >= 3]


@functools.cache
def _word_lists() -> dict[str, frozenset[str]]:
    """The lists of ``asked_words.yaml`` (``question_words``, ``fillers``, ``any_tool_verbs``), folded, read once."""
    data = yaml.safe_load(ASKED_WORDS_PATH.read_text(encoding="utf-8"))
    return {key: frozenset(map(fold, words)) for key, words in data.items()}


def _asked_words() -> tuple[frozenset[str], frozenset[str]]:
    """``(question words, fillers)`` of ``asked_words.yaml``."""
    lists = _word_lists()
    return lists["question_words"], lists["fillers"]


def plain_words() -> frozenset[str]:
    """The question words, the fillers and the verbs any tool is asked with (``asked_words.yaml``), folded: words
    that name no object, value or condition."""
    lists = _word_lists()
    return lists["question_words"] | lists["fillers"] | lists["any_tool_verbs"]


def _any_tool_verbs() -> frozenset[str]:
    """``any_tool_verbs`` of ``asked_words.yaml``."""
    return _word_lists()["any_tool_verbs"]


@functools.cache
def _asked_texts() -> dict[str, tuple[str, ...]]:
    """``{tool: texts it is asked with}``: each registered tool's descriptions and example questions, and the
    labelled questions of ``examples.yaml`` whose right first tools include it."""
    texts = {
        name: [spec.description_ru, spec.description_en, *spec.examples_ru, *spec.examples_en]
        for name, spec in registry().items()
    }
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml, as toolset.examples reads the same file
    rows = yaml.load(EXAMPLES_PATH.read_text(encoding="utf-8"), Loader=loader) or []  # noqa: S506 - a safe loader
    for row in rows:
        for name in row.get("first") or ():
            texts.setdefault(name, []).append(str(row["q"]))
    return {name: tuple(t) for name, t in texts.items()}


@functools.cache
def tool_heard_stems(tool: str) -> frozenset[str]:
    """The stems of the words ``tool`` is asked with (``_asked_texts``; an unknown tool: none)."""
    return frozenset(_stem(w) for text in _asked_texts().get(tool, ()) for w in _words(text))


@functools.cache
def heard_stems() -> frozenset[str]:
    """The stems of every word the product has heard asked of its tools: the tools' descriptions and example
    questions (the registry's) and the labelled questions of ``examples.yaml`` that a tool answers."""
    return frozenset().union(*(tool_heard_stems(name) for name in _asked_texts()))


def unheard_focus(question: str) -> str | None:
    """The word a question word of ``question`` asks about, when nobody ever asked a tool about it (see the module
    docstring), or None: no question word, SQL in the text, an object's noun (a tool's topic), or a word heard."""
    if SQL_IN_TEXT.search(question):
        return None
    asking, fillers = _asked_words()
    words = _WORD.findall(fold(re.sub(r"\d+", " ", question)))
    for i, word in enumerate(words):
        if word not in asking:
            continue
        focus = next(
            (
                w
                for w in words[i + 1 : i + 1 + FOCUS_WINDOW]
                if w not in fillers | asking and not _swapped_in(w, fillers)
            ),
            None,
        )
        if focus is None or len(focus) < 3 or re.fullmatch(IDENTIFIER, focus):
            return None  # a name as written in Superset ("what does avg_price compute") is an object's part
        fixed = corrected(focus)
        if object_of(focus) or object_of(fixed) or {_stem(focus), _stem(fixed)} & heard_stems():
            return None
        return focus
    return None


def _swapped_in(word: str, words: frozenset[str] | set[str]) -> bool:
    """True when a short ``word`` is one of ``words`` with two neighbouring letters swapped ("teh" for "the", a fresh
    check was asked «Если вы спрашиваете про «teh»…»)."""
    if len(word) > 5:
        return False
    return any(word[:i] + word[i + 1] + word[i] + word[i + 2 :] in words for i in range(len(word) - 1))


# English words a request may start with before its verb, and the words after which a first word is not a verb
# («revenue by region», "top 5 regions": a noun phrase, not a request).
_EN_LEAD = frozenset({"please", "pls", "plz", "ok", "okay", "hey", "hi", "now", "so", "then", "just", "kindly", "and"})
# Words that head an English sentence and are no verb: "last run died…, rerun it", "I need to know…" (turns_day10
# f1065 was told "I cannot do “last”").
_EN_NOT_VERB = re.compile(
    r"^(i|we|you|he|she|it|they|my|our|your|its|their|the|a|an|this|that|these|those|last|first|next|previous"
    r"|latest|all|every|each|some|no|yesterday|today|tonight)$"
)
_EN_NOT_OBJECT = re.compile(
    r"^(by|of|per|for|in|on|at|to|from|with|vs|and|or|is|are|was|were|should|must|will|would|can|could|might|may"
    r"|has|have|had|does|did|\d.*)$"
)


def leading_verb(question: str) -> str | None:
    """The verb a request starts with, or None: a question, SQL in the text, no verb found.

    Russian: the first imperative among the first ``VERB_WINDOW`` words that are not fillers (pymorphy3). English:
    the first word that is not a lead-in («please», "ok"), not a question word or filler, followed by an object
    (not a preposition or a number), in a text that does not end with «?»."""
    if SQL_IN_TEXT.search(question):
        return None
    asking, fillers = _asked_words()
    words = _WORD.findall(fold(re.sub(r"\d+", " ", question)))
    if words and re.match("[а-я]", words[0]):
        for word in [w for w in words if w not in fillers][:VERB_WINDOW]:
            if word in asking:
                return None
            if imperative_ru(word):
                return word
        return None
    tokens = [t for t in fold(question).split() if t not in _EN_LEAD]
    if len(tokens) < 2 or question.rstrip().endswith("?") or not re.fullmatch("[a-z]+", tokens[0]):
        return None
    verb, following = tokens[0], tokens[1]
    if verb in asking or verb in fillers or _EN_NOT_OBJECT.match(following) or _EN_NOT_VERB.match(verb):
        return None
    return verb


# A message's sentences (a heading ended by a colon is one: "Change freeze check: is the prod copy …?").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+|:\s+")
# Most words of a heading before a colon ("Quick one:", «Вопрос по релизу:»).
HEADING_WORDS = 3


def sentences(question: str) -> list[str]:
    """The sentences of ``question`` (split after «.», «!», «?», at line breaks and at a colon followed by a space),
    without the empty ones; SQL in the text keeps it whole (its clauses are no sentences)."""
    if SQL_IN_TEXT.search(question):
        return [question]
    return [part.strip() for part in _SENTENCE_END.split(question) if part.strip()]


def _heard(verb: str) -> bool:
    """True when ``verb`` is asked of some tool: a verb any tool is asked with (``any_tool_verbs``), one whose stem a
    tool's texts hold, or a typo of one."""
    return verb in _any_tool_verbs() or _stem(verb) in heard_stems() or _typo_of_heard(verb)


def unheard_action(question: str) -> str | None:
    """The verb a request starts with (``leading_verb``), when nobody ever asked a tool to do it (no tool's texts
    and no labelled question of ``examples.yaml`` hold its stem, nor a word it is a typo of), or None (a verb some
    tool is known for: «покажи», «задеплой», "deploy"; «пакажи», "shwo" typed for one).

    A message of several sentences is read sentence by sentence: a short heading before a colon ("Quick one: …",
    "Change freeze check: is …?") is no request, and a verb that starts a sentence of context («Freeze lifted at
    10:00. Run it.») is none when another sentence asks a tool's verb or a question (turns_day6 y12, y24, y73)."""
    said = _said(question)
    if len(said) == 1:
        verb = leading_verb(said[0])
        return verb if verb and not _heard(verb) else None
    verbs = [leading_verb(p) for p in said]
    if any(v and _heard(v) for v in verbs) or any(_asks(p) for p in said):
        return None
    return next((v for v in verbs if v), None)


def _said(question: str) -> list[str]:
    """The sentences a request is read in: ``said_sentences`` without an approval (``_approval_cut``) and without
    quoted text, a name or a message («commit message: «charts: fix …»» asked no «fix», turns_day12 h1257)."""
    return said_sentences(_approval_cut(QUOTED.sub(" ", question)))


def _approval_cut(question: str) -> str:
    """``question`` without what says a preview or a comparison was seen and approved ("diff looks fine, ship it":
    «I cannot do “diff”», a QA check; ``clauses.PREVIEW_SEEN``)."""
    return PREVIEW_SEEN.sub("", question).strip(" ,.;:!") or question


def said_sentences(question: str) -> list[str]:
    """``sentences`` of ``question`` without a short heading before a colon (``_heading``); the whole question when
    it is one sentence."""
    parts = sentences(question)
    if len(parts) == 1:
        return [question]
    return [p for i, p in enumerate(parts) if not (i < len(parts) - 1 and _heading(question, p))]


def _heading(question: str, part: str) -> bool:
    """True when ``part`` is a short heading of ``question``: at most ``HEADING_WORDS`` words, ended by a colon."""
    return len(part.split()) <= HEADING_WORDS and bool(re.search(re.escape(part) + r"\s*:", question))


def _asks(sentence: str) -> bool:
    """True when ``sentence`` is a question: it ends with «?» or starts with a question word (``asked_words``)."""
    asking, _fillers = _asked_words()
    words = _WORD.findall(fold(sentence))
    return sentence.rstrip().endswith("?") or bool(words and words[0] in asking)


def asks_anything(question: str) -> bool:
    """True when ``question`` asks something besides a request: a «?», a question word (``asked_words``) or «скажи»,
    "tell" anywhere in it. «запусти миграцию, релиз согласован с CAB» asks nothing: «согласован» is context, not the
    question who approved the plan (turns_day6 y59)."""
    asking, _fillers = _asked_words()
    words = set(_WORD.findall(fold(question)))
    return "?" in question or bool(words & asking) or bool(re.search(r"\b(скаж|расскаж|подскаж|tell)", fold(question)))


# Letters written for one another in Russian as they sound («пакажи» for «покажи», «сделаи» for «сделай»).
_SOUNDS_ALIKE = ({"а", "о"}, {"е", "и"}, {"е", "я"}, {"и", "ы"}, {"и", "й"})


def _typo_of_heard(verb: str) -> bool:
    """True when ``verb`` is a typo of a word the tools are asked with: its letters in another order ("shwo" for
    "show", 4+ letters), or one Russian letter written as it sounds («пакажи»). Any other near word is a verb of its
    own ("mark" is not "make"; a held row of aspects_unserved2 lost its cannot sentence to a looser rule)."""
    same_length = _heard_words().get(len(verb), ())
    if len(verb) >= 4 and "".join(sorted(verb)) in {"".join(sorted(w)) for w in same_length}:
        return True
    for word in same_length:
        differ = [(a, b) for a, b in zip(verb, word, strict=True) if a != b]
        if len(differ) == 1 and set(differ[0]) in _SOUNDS_ALIKE:
            return True
    return False


@functools.cache
def _heard_words() -> dict[int, tuple[str, ...]]:
    """Every word of 4+ letters the tools are asked with (``_asked_texts``), by its length."""
    words = {w for texts in _asked_texts().values() for t in texts for w in _words(t) if len(w) >= 4}
    by_length: dict[int, list[str]] = {}
    for word in sorted(words):
        by_length.setdefault(len(word), []).append(word)
    return {length: tuple(ws) for length, ws in by_length.items()}


# How many first letters of a verb another word of a tool's texts may share to count as the same verb
# ("diff" / "differ", «скопируй» / «скопировать»).
VERB_PREFIX = 4


def foreign_verb(question: str, tool: str) -> str | None:
    """The verb a request starts with (``leading_verb``) when other tools are asked with it but ``tool`` never is
    (``tool_heard_stems``): «сертифицируй дашборд» is no review run, "add a chart" no dashboard summary. None: no
    verb, a verb any tool may be asked with (``any_tool_verbs``), or one ``tool`` is asked with — in any sentence of
    the message (the others are context)."""
    said = _said(question)
    if len(said) > 1 and any(_asks(p) for p in said):
        return None  # a question is asked: the verb of another sentence is context
    verbs = [v for v in map(leading_verb, said) if v]
    if not verbs or any(v in _any_tool_verbs() or _asked_with(v, tool) for v in verbs):
        return None  # a sentence of the message asks the tool chosen (the others are context)
    verb = verbs[0]
    return verb if any(_asked_with(verb, name) for name in _asked_texts() if name != tool) else None


def _asked_with(verb: str, tool: str) -> bool:
    """True when ``tool``'s texts hold ``verb``'s stem, its corrected stem, or a word of its first letters."""
    stems = {_stem(verb), _stem(corrected(verb))}
    heard = tool_heard_stems(tool)
    return bool(stems & heard) or any(s.startswith(verb[:VERB_PREFIX]) for s in heard)
