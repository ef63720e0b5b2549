"""``tokens.object_of`` as one precompiled match (issue 17) names the same object as the rule it replaced: the first
name of ``OBJECTS``, in order, with a stem the token starts with (or equals, for a stem ending in ``$``)."""

from hypothesis import given
from hypothesis import strategies as st

from agentchat.toolset.tokens import object_of
from agentchat.toolset.words import OBJECTS

STEMS = [stem for stems in OBJECTS.values() for stem in stems]


def first_fitting(token: str) -> str | None:
    """The rule in words: a loop over the names and their stems, in order."""
    for name, stems in OBJECTS.items():
        for stem in stems:
            if token == stem[:-1] if stem.endswith("$") else token.startswith(stem):
                return name
    return None


def test_every_stem_names_the_first_object_that_has_it():
    for stem in STEMS:
        word = stem[:-1] if stem.endswith("$") else stem
        assert object_of(word) == first_fitting(word), stem


@given(
    stem=st.sampled_from(STEMS),
    cut=st.integers(min_value=0, max_value=3),
    ending=st.text(alphabet="абвеиоуыяьsdaeiont", max_size=4),
)
def test_a_stem_cut_or_extended_names_what_the_loop_names(stem, cut, ending):
    word = stem.rstrip("$")
    token = word[: len(word) - cut] + ending
    assert object_of(token) == first_fitting(token)


def test_a_word_with_no_stem_names_nothing():
    assert object_of("погода") is None
    assert first_fitting("погода") is None
