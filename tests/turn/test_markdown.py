"""Answers rendered as Markdown on the server (issue 15 item 4): markdown-it-py + the nh3 allow-list.

The unit tests feed the renderer directly; the turn test sends the same Markdown from a scripted
OpenAI-compatible server on loopback and checks the ``message`` frame the page receives.
"""

from html.parser import HTMLParser

import pytest

from agentchat.turn.markdown import lists_closed, markdown_html, visible_format_characters
from tests.llm.test_provider import ask, openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Reply

ANSWER = """Дашборд **«Отчёт по энергопотреблению»**:

- 6 графиков
- 2 датасета

| регион | МВт·ч |
|---|---:|
| Север | 120.5 |

```sql
SELECT region, SUM(consumption_mwh) FROM energy_consumption GROUP BY region
```

<script>window.pwned = 1</script> [жми](javascript:window.pwned=2) [Superset](https://superset.apache.org/docs/)
"""


class Elements(HTMLParser):
    """The elements of an HTML fragment as ``(tag, {attribute: value})`` (what a browser would build)."""

    def __init__(self, html: str):
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def test_markdown_becomes_lists_bold_tables_and_code():
    html = markdown_html(ANSWER)

    assert "<strong>«Отчёт по энергопотреблению»</strong>" in html
    assert "<ul>\n<li>6 графиков</li>\n<li>2 датасета</li>\n</ul>" in html
    assert "<th>регион</th>" in html
    assert '<td style="text-align:right">120.5</td>' in html
    assert '<pre><code class="language-sql">SELECT region' in html


def test_raw_html_is_escaped_and_javascript_links_are_dropped():
    html = markdown_html(ANSWER)

    assert "<script" not in html
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html
    assert "javascript:" not in html.replace("[жми](javascript:window.pwned=2)", "")  # stays visible text only
    assert 'href="javascript' not in html
    assert '<a href="https://superset.apache.org/docs/" rel="noopener noreferrer">Superset</a>' in html


@pytest.mark.parametrize(
    "text",
    [
        '<img src="x" onerror="alert(1)">',
        "[x](JaVaScRiPt:alert(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](vbscript:msgbox)",
        '<a href="https://ok.example/" onclick="alert(1)">x</a>',
        "<iframe src=https://evil.example/></iframe>",
        "![x](https://evil.example/track.png)",
    ],
)
def test_no_script_vector_survives(text):
    elements = Elements(markdown_html(text)).found

    assert {tag for tag, _ in elements} <= {"p", "a"}
    for _tag, attrs in elements:
        assert not [name for name in attrs if name.startswith("on")]
        assert (attrs.get("href") or "https:").startswith(("https:", "http:"))


def test_links_always_get_noopener_noreferrer_even_when_the_model_sets_rel():
    html = markdown_html('[a](http://example.com/ "t")')

    assert html == '<p><a href="http://example.com/" title="t" rel="noopener noreferrer">a</a></p>\n'


def test_format_characters_stay_visible():
    html = markdown_html("дашборд «\u202eтчёто\u202c» \u200b")

    assert "⟨U+202E⟩" in html
    assert "⟨U+202C⟩" in html
    assert "⟨U+200B⟩" in html
    assert "\u202e" not in html
    assert "\u200b" not in html
    assert visible_format_characters("a\tb\nc\x07") == "a\tb\nc⟨U+0007⟩"


def test_single_line_breaks_stay_line_breaks():
    assert markdown_html("Владельцы: admin\nИзменён: вчера") == "<p>Владельцы: admin<br>\nИзменён: вчера</p>\n"


@pytest.mark.django_db(transaction=True)
async def test_scripted_llm_markdown_reaches_the_page_as_sanitised_html(users, openai_provider):  # noqa: F811
    """Tokens carry the raw Markdown as it streams (what came before the last flush interval: the tail comes with
    the ``message``, issue 17); the final ``message`` frame carries the whole text and the rendered HTML."""
    openai_provider(Reply(text=ANSWER, chunk_chars=40))

    frames, _ = await ask(users["engineer"], "расскажи про этот дашборд", None)

    (message,) = frames.of("message")
    assert ANSWER.startswith("".join(f["text"] for f in frames.of("token")))
    assert message["text"] == ANSWER
    html = message["html"]
    assert html.startswith('<div class="msg msg-assistant msg-md">')
    assert "<strong>«Отчёт по энергопотреблению»</strong>" in html
    assert "<li>6 графиков</li>" in html
    assert '<td style="text-align:right">120.5</td>' in html
    assert '<code class="language-sql">' in html
    assert "<script" not in html
    assert 'href="javascript' not in html
    assert 'rel="noopener noreferrer"' in html


def test_a_line_after_a_list_is_a_paragraph_not_part_of_the_last_item():
    """Issue 30 item 1: «Датасеты», «Владельцы» written on the lines after the chart list were drawn inside the
    last bullet (CommonMark's lazy continuation)."""
    html = markdown_html("Графики (2):\n- Потребление\n- Структура\nДатасеты (1): energy\nВладельцы: admin")

    assert "<li>Структура</li>\n</ul>\n<p>Датасеты (1): energy<br>\nВладельцы: admin</p>" in html


def test_indented_continuations_nested_lists_and_code_fences_are_left_as_written():
    assert lists_closed("- a\n  still a\n  - nested\n- b") == "- a\n  still a\n  - nested\n- b"
    assert lists_closed("```\n- x\ny\n```\nz") == "```\n- x\ny\n```\nz"
    assert lists_closed("1. one\n2) two\nafter") == "1. one\n2) two\n\nafter"
    assert lists_closed("-not a list\nnext") == "-not a list\nnext"
