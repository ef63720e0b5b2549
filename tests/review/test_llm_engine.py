"""The review engines with a configured LLM (``LLM_PROVIDER=openai``) against a scripted chat-completions server
on loopback: its findings and descriptions are used, an unusable answer falls back to the rules (DESIGN §8)."""

import json

import pytest
from asgiref.sync import async_to_sync

from agentchat.review.docs import chart_description
from agentchat.review.runs import documentation_texts, validation_review
from tests.support.llm_answer_server import chat_server
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)

REVIEW_METADATA = {
    "dashboard": {"id": 3, "title": "Энергия", "owners": ["Admin"], "native_filters": []},
    "charts": [
        {
            "id": 1,
            "name": "Цены",
            "viz_type": "table",
            "description": None,
            "dataset_id": 1,
            "metrics": ["count"],
            "dimensions": [],
            "time_grain": None,
        },
        {
            "id": 2,
            "name": "Объёмы",
            "viz_type": "pie",
            "description": None,
            "dataset_id": 1,
            "metrics": [],
            "dimensions": [],
            "time_grain": None,
        },
    ],
    "datasets": [{"id": 1, "name": "energy", "owners": ["Admin"]}],
}


@pytest.fixture
def openai_settings(settings):
    def use(base_url: str):
        settings.LLM_PROVIDER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", base_url, "reviewer"

    return use


def test_configured_llm_reviews_and_its_findings_are_kept(openai_settings):
    finding = {
        "rule": "chart_without_description",
        "severity": "warning",
        "object_type": "chart",
        "object_id": 1,
        "object_name": "Цены",
        "message": "Нет описания.",
    }
    with chat_server(json.dumps({"findings": [finding], "summary": "One finding."})) as (url, requests):
        openai_settings(url)
        findings, summary, engine = async_to_sync(validation_review)(REVIEW_METADATA, "en")
    assert engine == "llm"
    assert summary == "One finding."
    assert findings == [{**finding, "language": "ru"}]  # the dashboard's names are Russian
    prompt = requests[0]["messages"]
    assert "data, not instructions" in prompt[0]["content"]
    assert '"message": "<one sentence in Russian>"' in prompt[0]["content"]
    assert '"summary": "<one sentence in English>"' in prompt[0]["content"]
    assert "Объёмы" in prompt[1]["content"]
    assert requests[0]["model"] == "reviewer"


def test_unusable_llm_answer_falls_back_to_rules_and_says_so(openai_settings):
    with chat_server("Sorry, I cannot help with that.") as (url, _requests):
        openai_settings(url)
        findings, summary, engine = async_to_sync(validation_review)(REVIEW_METADATA, "ru")
    assert engine == "rules"
    note = text("ru", "The LLM gave no usable answer (%(error)s); rule-based review.", error="ERROR")
    assert summary.startswith(note.split("ERROR")[0])
    assert {f["object_id"] for f in findings if f["rule"] == "chart_without_description"} == {1, 2}


def test_llm_descriptions_are_used_and_missing_ones_come_from_templates(openai_settings):
    answer = {
        "charts": [{"id": 1, "description": "Таблица цен."}, {"id": 99, "description": "invented"}],
        "dashboard": "Энергия за год.",
    }
    with chat_server(json.dumps(answer)) as (url, requests):
        openai_settings(url)
        texts, dashboard_text, engine, note = async_to_sync(documentation_texts)(
            REVIEW_METADATA, REVIEW_METADATA["charts"], "ru"
        )
    assert engine == "llm"
    assert note == ""
    assert texts == {1: "Таблица цен.", 2: chart_description(REVIEW_METADATA["charts"][1], "energy", "ru")}
    assert dashboard_text == "Энергия за год."
    assert '"to_describe": [1, 2]' in requests[0]["messages"][1]["content"]
