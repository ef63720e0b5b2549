"""Branch names follow git's ref rules (git-check-ref-format(1), plus what ``git branch`` refuses)."""

import pytest
from dulwich.refs import check_ref_format
from hypothesis import assume, given
from hypothesis import strategies as st

from agentchat.gitstore.refs import MAX_BRANCH_BYTES, PROBLEMS, branch_name_message, branch_name_problem

# Cases after git's own t/t1402-check-ref-format.sh, as branch names (refs/heads/<name>).
VALID = [
    "main",
    "foo/bar",
    "foo/bar/baz",
    "feature/energy-report",
    "foo.bar",
    "foo_bar",
    "foo@bar",
    "foo@",
    "foo.lockx",
    "foo.lock2/bar",
    "lock",
    "x-",
    "release/2024.10",
    "фича/дашборд",
    "a" * MAX_BRANCH_BYTES,
]
INVALID = {
    "": "empty",
    "-foo": "leading_dash",
    "-": "leading_dash",
    "HEAD": "reserved",
    "@": "reserved",
    "foo\x01": "control_char",
    "foo\x7fbar": "control_char",
    "foo\tbar": "control_char",
    "foo\nbar": "control_char",
    "foo bar": "forbidden_char",
    "foo~1": "forbidden_char",
    "foo^": "forbidden_char",
    "foo:bar": "forbidden_char",
    "foo?": "forbidden_char",
    "foo*": "forbidden_char",
    "foo[": "forbidden_char",
    "foo\\bar": "forbidden_char",
    "foo..bar": "double_dot",
    "..": "double_dot",
    "foo@{1}": "at_brace",
    "@{u}": "at_brace",
    "/foo": "slash",
    "foo/": "slash",
    "foo//bar": "slash",
    "foo.": "trailing_dot",
    ".foo": "component_dot",
    "foo/.bar": "component_dot",
    "foo.lock": "lock_suffix",
    "foo.lock/bar": "lock_suffix",
    "foo/bar.lock": "lock_suffix",
    "a" * (MAX_BRANCH_BYTES + 1): "too_long",
    "ф" * (MAX_BRANCH_BYTES // 2 + 1): "too_long",
    "foo\ud800": "encoding",
}


@pytest.mark.parametrize("name", VALID)
def test_valid_branch_names_pass(name):
    assert branch_name_problem(name) is None


@pytest.mark.parametrize(("name", "problem"), INVALID.items())
def test_invalid_branch_names_are_refused_with_their_rule(name, problem):
    assert branch_name_problem(name) == problem


def test_every_rule_has_russian_and_english_text():
    for problem in PROBLEMS:
        ru, en = branch_name_message(problem, "ru"), branch_name_message(problem, "en")
        assert ru
        assert en
        assert ru != en


NAME_CHARS = st.sampled_from(list("abcXYZ019-_./@{}~^:?*[\\ ") + ["\x00", "\x1f", "\x7f", "ё", "Ж"])


@given(st.text(NAME_CHARS, max_size=30))
def test_agrees_with_dulwichs_check_ref_format(name):
    """Apart from git branch's extra rules (leading «-», HEAD, @) the verdict is dulwich's for refs/heads/<name>."""
    assume(name not in ("HEAD", "@") and not name.startswith("-") and name)
    assert (branch_name_problem(name) is None) == check_ref_format(b"refs/heads/" + name.encode())


SAFE_COMPONENT = st.from_regex(r"\A[A-Za-z0-9_][A-Za-z0-9_\-]{0,10}(\.[A-Za-z0-9_\-]{1,5})?\Z").filter(
    lambda c: not c.endswith(".lock")
)


@given(st.lists(SAFE_COMPONENT, min_size=1, max_size=4))
def test_slash_joined_plain_components_are_valid(components):
    name = "/".join(components)
    assume(name != "HEAD" and not name.startswith("-"))
    assert branch_name_problem(name) is None


@given(st.lists(SAFE_COMPONENT, min_size=1, max_size=3), st.sampled_from(sorted(" ~^:?*[\\\x00\x7f")), st.data())
def test_a_forbidden_character_anywhere_makes_it_invalid(components, bad, data):
    name = "/".join(components)
    at = data.draw(st.integers(0, len(name)))
    assert branch_name_problem(name[:at] + bad + name[at:]) is not None
