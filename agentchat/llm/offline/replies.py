"""What the offline planner says (DESIGN §11): answers from tool results, failures, clarifying questions and honest
"I cannot" texts, in the user's language (ru/en).
"""

from agentchat.errors import ID_ARGUMENTS, not_found_text
from agentchat.llm.offline import answers
from agentchat.llm.offline.answers.base import items
from agentchat.llm.offline.state import Result, Turn
from agentchat.runtime.titles import tool_title

ROWS_KEY = {"search_dashboards": "dashboards", "search_datasets": "datasets"}


def tool_intended(turn: Turn) -> str:
    """The tool the question asks for (set by ``plan_step``; empty when it asks for none)."""
    return turn.intended


def answer_text(turn: Turn) -> str:
    """The answer from the results that matter: the last one, after a search only the search itself."""
    last = turn.results[-1]
    texts = [answers.answer_from_result(last.tool, last.payload, turn.language)]
    intended = tool_intended(turn)
    if last.tool in ROWS_KEY and intended and intended != last.tool:
        rows, total = items((last.payload or {}).get(ROWS_KEY[last.tool]))
        if total > 1:
            texts.append(turn.t("Какой из них вы имеете в виду? Укажите номер.", "Which one do you mean? Give its id."))
    if last.tool == "show_capabilities":
        texts.append(
            turn.t(
                "Я работаю в офлайн-режиме, без языковой модели: понимаю запросы к этим инструментам и отвечаю "
                "по шаблонам.",
                "I am running offline, without a language model: I understand requests for these tools and answer "
                "from templates.",
            )
        )
    if turn.context.get("status") == "unavailable":
        texts.insert(0, turn.t("Контекст недоступен: отвечаю в общем режиме.", "Context unavailable: general mode."))
    return "\n\n".join(texts)


DECLINED = {"denied", "expired", "cancelled"}


def failure_text(turn: Turn, result: Result) -> str:
    """What to say after a failed call: declined, refused, not found (404) or the tool's own error."""
    payload = result.payload if isinstance(result.payload, dict) else {"message": str(result.payload)}
    title = tool_title(result.tool, turn.language)
    if payload.get("error") == "denied":
        # the card and the chat line already say «Операция отменена»; the answer only confirms
        return turn.t(f"Хорошо, ничего не меняю ({title}).", f"OK, I changed nothing ({title}).")
    if payload.get("error") in DECLINED:
        return turn.t(
            f"Операция отменена ({title}): ничего не изменено.",
            f"Operation cancelled ({title}): nothing was changed.",
        )
    if payload.get("error") == "permission_denied":
        return turn.t(
            f"Это недоступно ({title}): для вашей роли здесь такой инструмент не предлагается.",
            f"That is not available ({title}): it is not offered to your role here.",
        )
    if payload.get("status") == 404:
        named = [(ID_ARGUMENTS[k], v) for k, v in (result.args or {}).items() if k in ID_ARGUMENTS]
        if len(named) == 1:
            object_type, object_id = named[0]
            return not_found_text(object_type, object_id, (result.args or {}).get("env_id"), turn.language)
    return answers.answer_from_error(result.tool, payload, turn.language)


# --- texts ------------------------------------------------------------------------------------------------


def _offered_list(turn: Turn) -> str:
    titles = [tool_title(n, turn.language) for n in turn.tools if n != "show_capabilities"]
    return "\n".join(f"- {title[:1].upper()}{title[1:]}" for title in titles)


def unsupported_text(turn: Turn, phrase: str) -> str:
    """Say plainly that no tool does ``phrase`` (delete, rename, grant…) and list what is possible here."""
    head = turn.t(
        f"Этого я сделать не могу («{phrase}»): у меня нет такого инструмента, и я ничего не менял. "
        "Удалять, переименовывать объекты, менять графики и права можно в самом Superset.",
        f"I cannot do that (“{phrase}”): I have no tool for it, and I changed nothing. Deleting or renaming "
        "objects, editing charts and granting rights are done in Superset itself.",
    )
    return head + "\n\n" + turn.t("Здесь я могу:", "Here I can do:") + "\n" + _offered_list(turn)


def not_understood_text(turn: Turn) -> str:
    """Say the offline planner did not understand, and list what it can do here."""
    return (
        turn.t(
            "Я работаю в офлайн-режиме, без языковой модели, и понимаю только запросы к своим инструментам — "
            "этот вопрос я не разобрал. Здесь я могу:",
            "I am running offline, without a language model, and only understand requests for my tools — I did "
            "not understand this one. Here I can do:",
        )
        + "\n"
        + _offered_list(turn)
    )


CLARIFY: dict[str, tuple[str, str]] = {
    "env_id": (
        "Для этого нужно окружение: выберите его в переключателе окружений вверху страницы.",
        "This needs an environment: pick one in the environment selector at the top of the page.",
    ),
    "source_env_id": (
        "Из какого окружения? Выберите его вверху страницы или напишите «из ss-dev».",
        "From which environment? Pick it at the top of the page or write “from ss-dev”.",
    ),
    "target_env_id": (
        "В какое окружение? Напишите, например, «в prod» или «в staging».",
        "To which environment? Write, for example, “to prod” or “to staging”.",
    ),
    "dashboard_id": (
        "О каком дашборде речь? Укажите его номер или название в кавычках — или откройте агента со страницы дашборда.",
        "Which dashboard do you mean? Give its id or its name in quotes — or open the agent from the dashboard's page.",
    ),
    "dashboard_ids": (
        "Какие дашборды? Перечислите их номера, например «дашборды 1 и 2».",
        "Which dashboards? List their ids, for example “dashboards 1 and 2”.",
    ),
    "dataset_id": (
        "О каком датасете речь? Укажите его номер или название в кавычках — или откройте агента со страницы датасета.",
        "Which dataset do you mean? Give its id or its name in quotes — or open the agent from the dataset's page.",
    ),
    "sql": (
        "Пришлите SQL-запрос (SELECT …), можно в обратных кавычках: в офлайн-режиме я не составляю запросы сам.",
        "Send the SQL query (SELECT …), in backticks if you like: offline, I do not write queries myself.",
    ),
    "task_id": ("Укажите номер задачи, например «задача 12».", "Give the task id, for example “task 12”."),
    "name": (
        "Как назвать ветку? Например: «создай ветку feature/energy-report».",
        "What should the branch be called? For example: “create branch feature/energy-report”.",
    ),
    "table_name": (
        "Для какой таблицы создать датасет? Например: «для таблицы regions в базе Energy».",
        "For which table? For example: “for table regions in database Energy”.",
    ),
    "virtual_name": (
        "Как назвать новый виртуальный датасет? Например: «датасет top_regions: SELECT …».",
        "What should the new virtual dataset be called? For example: “dataset top_regions: SELECT …”.",
    ),
    "object_id": (
        "Права на какой объект проверить? Укажите, например, «дашборд 1», «датасет 2» или «база 1».",
        "Whose permissions? Say, for example, “dashboard 1”, “dataset 2” or “database 1”.",
    ),
}


def clarify_text(turn: Turn, tool: str, parameter: str) -> str:
    """Ask for the missing required ``parameter`` of ``tool`` (``CLARIFY`` texts)."""
    if parameter == "object_type":
        parameter = "object_id"
    ru, en = CLARIFY.get(
        parameter,
        (f"Чего-то не хватает: уточните «{parameter}».", f"Something is missing: please give “{parameter}”."),
    )
    return turn.t(ru, en)
