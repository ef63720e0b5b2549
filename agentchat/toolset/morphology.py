"""Russian morphology for reading requests (pymorphy3 with its OpenCorpora dictionary, loaded once per process:
about 50 ms, 15 MB): whether a word is a verb in the imperative mood or in the past tense."""

import functools

import pymorphy3


@functools.cache
def morphology() -> pymorphy3.MorphAnalyzer:
    """The process's one analyser."""
    return pymorphy3.MorphAnalyzer()


def imperative_ru(word: str) -> bool:
    """True when some reading of the Russian ``word`` is a verb in the imperative mood («пометь», «запланируй»)."""
    return any(p.tag.POS == "VERB" and p.tag.mood == "impr" for p in morphology().parse(word))


def past_ru(word: str) -> bool:
    """True when the likeliest reading of the Russian ``word`` is a verb in the past tense («удалил», «удалили»;
    not «удали»)."""
    parses = morphology().parse(word)
    return bool(parses) and parses[0].tag.POS == "VERB" and parses[0].tag.tense == "past"
