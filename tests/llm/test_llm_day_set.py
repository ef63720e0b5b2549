"""The frozen day set of ``bench/llm_eval.py --set day`` (issue 32 item 6) and the bench's own counting.

The set was written from the user's side by someone who had not read the planner, the prompts or the other sets
(its header says what was read), then frozen before any tuning: its sha256 is pinned here, so a change to fit the
product shows. The counting functions are checked on hand-made cases, so a figure they print can be trusted.
"""

import hashlib
import sys
from pathlib import Path

from agentchat.runtime.registry import registry

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.llm_day import SET_PATH, invented_requests, load_day, unsupported  # noqa: E402

FROZEN_SHA256 = "3e9a609efd8fe7d86259380acba6bc4dfdc9f7c74da615ae211b4c1fb51c33f3"


def test_the_set_is_the_frozen_one():
    assert hashlib.sha256(SET_PATH.read_bytes()).hexdigest() == FROZEN_SHA256


def test_the_set_is_large_bilingual_and_names_only_real_tools():
    questions = load_day()
    assert len(questions) >= 40
    assert len({q.id for q in questions}) == len(questions)
    russian = [q for q in questions if q.language == "ru"]
    assert len(russian) >= 20
    assert len(questions) - len(russian) >= 10
    for q in questions:
        assert q.role in ("analyst", "engineer", "admin"), q
        assert set(q.expect) - {""} <= set(registry()), q
        assert not q.card or q.card in registry(), q


def test_an_id_is_invented_when_no_page_question_or_earlier_answer_gave_it():
    answers = [
        ("GET", "/api/v1/dashboard/?q=(filters:!())", 200, {"result": [{"id": 4, "title": "A"}], "ids": [4]}),
        ("GET", "/api/v1/dashboard/4/charts", 200, {"result": [{"id": 9}]}),
        ("GET", "/api/v1/chart/9", 200, {"result": {}}),
        ("GET", "/api/v1/dashboard/123", 404, {"message": "Not found"}),
        ("GET", "/api/v1/dashboard/export/?q=!(1,77)", 200, None),
    ]
    assert invented_requests(answers, {1}) == [
        "GET /api/v1/dashboard/123",
        "GET /api/v1/dashboard/export/?q=!(1,77)",
    ]


def test_a_claim_is_unsupported_when_no_source_holds_it():
    sources = '{"datasets": [{"name": "energy_consumption"}], "findings_total": 0} расскажи про этот дашборд'
    assert unsupported("Датасеты (1): «energy_consumption».", sources) == []
    assert unsupported("Использует «energy_consumption_1» и «metadata».", sources) == [
        "energy_consumption_1",
        "metadata",
    ]
    assert unsupported("Да, есть проблемы с этим датасетом.", sources) == ["«problems» claimed, none in any result"]
    assert unsupported("Да, есть проблемы.", sources + ' "findings_total": 3') == []
    # with no successful call a statement is a claim; a question or a request for what is missing is not
    stated = unsupported("Изменения закоммичены.", sources, any_result=False)
    assert stated == ["a statement with no successful result in the turn"]
    assert unsupported("Пришлите ваш SQL-запрос.", sources, any_result=False) == []


def test_a_statement_with_no_successful_result_is_a_claim():
    assert unsupported("The dashboard's changes are not committed.", "", any_result=False) == [
        "a statement with no successful result in the turn"
    ]
    assert unsupported("Which dashboard do you mean?", "", any_result=False) == []
    assert unsupported("Я не могу удалить дашборд.", "", any_result=False) == []
