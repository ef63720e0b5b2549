"""Names from Superset shown visibly (issue 13 item 6): ``context.display.visible``, the ``visible`` filter, the
chat answer and card HTML, and the «Спросить агента» link whose context stays valid."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.template import Context, Template
from hypothesis import given, settings
from hypothesis import strategies as st

from agentchat.context.display import _shown, visible, visible_cut
from agentchat.context.uicontext import MAX_OBJECT_NAME_CHARS, ContextInvalid, validate_ui_context
from agentchat.guard.cards import card_confirm
from agentchat.guard.decision import target_env_id
from agentchat.runtime.registry import tool_spec
from agentchat.turn.rendering import message_html
from agentchat.web.pages import agent_link

RLO = "\u202e"
HOSTILE = f"Отчёт {RLO}txt.exe\u200b\ufeff\u2066x\u2069"
SHOWN = "Отчёт ⟨U+202E⟩txt.exe⟨U+200B⟩⟨U+FEFF⟩⟨U+2066⟩x⟨U+2069⟩"
FORMAT_CHARS = [RLO, "\u200b", "\ufeff", "\u2066", "\u2069", "\u200e", "\u061c"]


def test_visible_writes_bidi_zero_width_and_format_characters_as_code_points():
    assert visible(HOSTILE) == SHOWN
    assert visible("a\nb\tc\x00") == "a⟨U+000A⟩b⟨U+0009⟩c⟨U+0000⟩"
    assert visible("a\nb\tc\x00", keep_breaks=True) == "a\nb\tc⟨U+0000⟩"
    assert visible("Энергия ⚡ 東京 مرحبا") == "Энергия ⚡ 東京 مرحبا"  # letters of every script and emoji stay


def test_visible_cut_never_splits_a_marker():
    name = "a" * (MAX_OBJECT_NAME_CHARS - 3) + RLO + "tail"
    cut = visible_cut(name, MAX_OBJECT_NAME_CHARS)
    assert cut == "a" * (MAX_OBJECT_NAME_CHARS - 3)
    assert visible_cut("ab" + RLO, 10) == "ab⟨U+202E⟩"


def test_the_template_filter_shows_the_characters_and_still_escapes():
    html = Template("{% load agentchat_format %}{{ name|visible }}").render(Context({"name": HOSTILE + "<b>"}))
    assert html == SHOWN + "&lt;b&gt;"
    assert not any(ch in html for ch in FORMAT_CHARS)


def test_an_answer_quoting_a_title_shows_it_visibly_with_its_line_breaks():
    html = message_html(text=f"Дашборд «{HOSTILE}»:\n\n- графики", role="assistant")
    assert "⟨U+202E⟩txt.exe" in html
    assert "<li>" in html  # the Markdown layout is kept
    assert not any(ch in html for ch in FORMAT_CHARS)


@pytest.mark.django_db
def test_a_card_shows_names_visibly_and_takes_risk_and_target_from_ids():
    def decision(name: str) -> dict:
        return {
            "risk_level": "high",
            "tone": "danger",
            "env_id": "prod",
            "tier": "prod",
            "operation": "write",
            "prompt": "",
            "typed_confirmation": False,
            "impact": {
                "summary": f"Dashboard “{name}” will be exported.",
                "objects": [{"type": "dashboard", "name": name, "action": "update"}],
                "counts": {"update": 1},
            },
        }

    args = {"env_id": "prod", "dashboard_id": 7}
    hostile = card_confirm(
        confirmation_id=1, tool="commit_changes", args=args, decision=decision(HOSTILE), language="ru"
    )
    plain = card_confirm(confirmation_id=1, tool="commit_changes", args=args, decision=decision("x"), language="ru")
    assert "«Отчёт ⟨U+202E⟩txt.exe" in hostile
    assert not any(ch in hostile for ch in FORMAT_CHARS)
    head = hostile[: hostile.index(">")]
    assert head == plain[: plain.index(">")]  # data-risk, data-env, data-tier: the same whatever the name
    # the target environment comes from the call's env id (or the page's envId), never from a name
    spec = tool_spec("commit_changes")
    context = {"contextVersion": 1, "objectType": "dashboard", "objectId": "7", "objectName": "prod", "envId": None}
    assert target_env_id(spec, {"env_id": "ss-dev", "dashboard_id": 7}, context) == "ss-dev"


def test_the_ask_agent_link_of_a_hostile_title_makes_a_valid_context():
    url = agent_link(object_type="dashboard", object_id=7, object_name=HOSTILE, env_id="ss-dev", route="/dashboards/7/")
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert query["objectName"] == SHOWN
    payload = {"contextVersion": 1, "route": None, **query}
    context = validate_ui_context(payload, active_env_ids={"ss-dev"})
    assert context.objectName == SHOWN
    with pytest.raises(ContextInvalid):  # the server rule itself is unchanged
        validate_ui_context({**payload, "objectName": HOSTILE}, active_env_ids={"ss-dev"})
    long = agent_link(object_type="dashboard", object_id=7, object_name=RLO * 300, env_id=None, route="/")
    assert len(parse_qs(urlsplit(long).query)["objectName"][0]) <= MAX_OBJECT_NAME_CHARS


@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=40), st.booleans())
def test_the_printable_fast_path_gives_what_the_character_walk_gives(text, keep_breaks):
    """``visible`` skips the walk for printable text (issue 17); any text, the result is the walk's."""
    assert visible(text, keep_breaks=keep_breaks) == "".join(_shown(ch, keep_breaks) for ch in text)
