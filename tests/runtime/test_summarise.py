"""Structured summarisation of tool results for the LLM (DESIGN §10, seed AGTL-FR-003)."""

import json

import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentchat.runtime.summarise import ELLIPSIS, OMITTED_KEYS, cut_text, list_totals, summarise, to_json

BUDGET = 4000
GRAPHEME = regex.compile(r"\X")


def graphemes(text: str) -> list[str]:
    return GRAPHEME.findall(text)


def assert_clean_cut(original: str, cut: str) -> None:
    """``cut`` is whole grapheme clusters of ``original`` from its start, plus «…» when shortened."""
    if cut == original:
        return
    head = cut.removesuffix(ELLIPSIS)
    assert original.startswith(head)
    clusters = graphemes(original)
    lengths = {sum(len(c) for c in clusters[:i]) for i in range(len(clusters) + 1)}
    assert len(head) in lengths, f"cut inside a grapheme cluster: {head[-3:]!r}"


def assert_faithful(original, summary) -> None:
    """Walk input and summary together: every list is whole or ``{items, total == len, truncated}``, every
    object keeps a subset of its keys (``_omitted_keys`` counts the rest), every string is a clean cut."""
    if isinstance(original, list):
        if isinstance(summary, dict):
            assert summary["truncated"] is True
            assert summary["total"] == len(original)
            items = summary["items"]
            assert len(items) < len(original)
        else:
            items = summary
            assert len(items) == len(original)
        for before, after in zip(original, items, strict=False):
            assert_faithful(before, after)
    elif isinstance(original, dict):
        assert isinstance(summary, dict)
        kept = {k: v for k, v in summary.items() if k != OMITTED_KEYS}
        assert set(kept) <= set(original)
        assert summary.get(OMITTED_KEYS, 0) == len(original) - len(kept)
        for key, value in kept.items():
            assert_faithful(original[key], value)
    elif isinstance(original, str):
        assert isinstance(summary, str)
        assert_clean_cut(original, summary)
    else:
        assert summary == original


def test_small_input_is_returned_untouched():
    value = {"count": 2, "items": [{"id": 1, "name": "Отчёт"}, {"id": 2, "name": "Обзор"}]}

    out, summarised = summarise(value, BUDGET)

    assert out is value
    assert summarised is False


def test_five_thousand_item_list_keeps_first_items_and_the_real_total():
    value = [{"id": i, "slice_name": f"График {i}", "viz_type": "table"} for i in range(5000)]

    out, summarised = summarise(value, BUDGET)

    assert summarised
    text = to_json(out)
    assert len(text) <= BUDGET
    decoded = json.loads(text)
    assert decoded["total"] == 5000
    assert decoded["truncated"] is True
    assert decoded["items"] == value[: len(decoded["items"])]
    assert len(decoded["items"]) >= 10


def test_fifty_kilobyte_string_is_cut_at_a_sentence_boundary():
    sentence = "Дашборд обновляется каждый час. "
    value = {"description": sentence * (50_000 // len(sentence) + 1)}
    assert len(value["description"]) >= 50_000

    out, summarised = summarise(value, BUDGET)

    assert summarised
    assert len(to_json(out)) <= BUDGET
    cut = out["description"]
    assert cut.endswith("час." + ELLIPSIS)
    assert value["description"].startswith(cut.removesuffix(ELLIPSIS))
    assert len(cut) > 1000


def test_string_without_sentences_is_cut_at_a_word():
    text = " ".join(["слово"] * 3000)

    cut = cut_text(text, 100)

    assert len(cut) <= 100
    assert cut.removesuffix(ELLIPSIS).endswith("слово")


def test_emoji_at_the_cut_stay_whole():
    family = "👨\u200d👩\u200d👧\u200d👦"  # one grapheme, seven code points
    flags = "🇷🇺🇺🇸🇩🇪🇯🇵"  # four graphemes of two regional indicators each
    accented = "е\u0301"  # е + combining acute
    for text in (family * 50, flags * 50, "x" + flags * 50, accented * 100, "ab " + family + "🏳️\u200d🌈" * 30):
        for limit in range(1, 40):
            cut = cut_text(text, limit)
            assert len(cut) <= limit
            assert_clean_cut(text, cut)
            assert not cut.removesuffix(ELLIPSIS).endswith("\u200d")


def test_emoji_string_in_a_result_is_summarised_cleanly():
    value = {"title": "📊" + "👨\u200d👩\u200d👧\u200d👦🇷🇺" * 2000}

    out, _ = summarise(value, 500)

    assert len(to_json(out)) <= 500
    assert_clean_cut(value["title"], out["title"])
    out["title"].encode("utf-8")  # no lone surrogates


def test_nested_lists_in_dicts_keep_their_totals():
    value = {
        "count": 1,
        "result": {
            "table_name": "energy_consumption",
            "columns": [{"column_name": f"c{i}", "type": "VARCHAR", "groupby": True} for i in range(300)],
            "metrics": [{"metric_name": f"m{i}", "expression": f"SUM(c{i})"} for i in range(120)],
            "owners": [{"id": 1, "first_name": "admin"}],
        },
    }

    out, summarised = summarise(value, BUDGET)

    assert summarised
    assert len(to_json(out)) <= BUDGET
    assert (
        list_totals(out)
        == list_totals(value)
        == {
            ("result", "columns"): 300,
            ("result", "metrics"): 120,
            ("result", "owners"): 1,
        }
    )
    assert out["result"]["owners"] == value["result"]["owners"]
    assert_faithful(value, out)


def test_wide_object_keeps_lists_first_and_counts_the_omitted_keys():
    value = {f"field_{i:04d}": "значение " * 5 for i in range(2000)}
    value["charts"] = list(range(40))

    out, _ = summarise(value, BUDGET)

    assert len(to_json(out)) <= BUDGET
    assert "charts" in out
    assert out[OMITTED_KEYS] == len(value) - (len(out) - 1)
    assert_faithful(value, out)


def test_pathological_input_still_fits_as_valid_json():
    value = {"k" * 10_000: ["v" * 10_000] * 10}

    out, summarised = summarise(value, 300)

    assert summarised
    assert len(to_json(out)) <= 300
    assert json.loads(to_json(out))["truncated"] is True


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=30) | st.dictionaries(st.text(max_size=20), children, max_size=15),
    max_leaves=200,
)
emoji_text = st.lists(
    st.sampled_from(["a", " ", ". ", "👨\u200d👩\u200d👧", "🇷🇺", "🇺🇸", "е\u0301", "ж", "\n", "🏳️\u200d🌈"]), max_size=400
).map("".join)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, budget=st.integers(min_value=200, max_value=3000))
def test_summary_is_valid_json_within_budget_and_faithful(value, budget):
    out, summarised = summarise(value, budget)

    text = to_json(out)
    json.loads(text)  # valid JSON
    if not summarised:
        assert out is value
        assert len(text) <= budget
        return
    assert len(to_json(value)) > budget
    assert len(text) <= budget
    if isinstance(value, list):
        assert list_totals(json.loads(text))[()] == len(value)
    if not (isinstance(out, dict) and "preview" in out):  # the last-resort stub is checked by its own test
        assert_faithful(value, out)


@settings(max_examples=300, deadline=None)
@given(text=emoji_text, limit=st.integers(min_value=1, max_value=120))
def test_cut_text_never_splits_a_grapheme_and_respects_the_limit(text, limit):
    cut = cut_text(text, limit)

    assert len(cut) <= limit or cut == text
    assert_clean_cut(text, cut)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(min_value=0, max_value=6000), budget=st.integers(min_value=200, max_value=5000))
def test_list_total_always_equals_the_real_count(n, budget):
    value = {"result": [{"id": i, "name": f"n{i}"} for i in range(n)], "count": n}

    out, _ = summarise(value, budget)

    assert len(to_json(out)) <= budget
    assert list_totals(out) == {("result",): n}


def test_a_key_named_like_the_marker_is_counted_never_taken_for_the_count():
    """Superset data with its own ``_omitted_keys`` key: once summarised, the marker is ours and counts that key."""
    value = {f"field_{i:04d}": "значение " * 5 for i in range(2000)}
    value[OMITTED_KEYS] = "from Superset"

    out, summarised = summarise(value, BUDGET)

    assert summarised
    assert isinstance(out[OMITTED_KEYS], int)
    assert out[OMITTED_KEYS] == len(value) - (len(out) - 1)
    assert_faithful(value, out)
