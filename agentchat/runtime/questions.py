"""The question a person is asked when a tool call misses an argument only they can give (issue 29 item 5).

One table for both providers: the offline planner asks it before calling (``llm.offline.replies.clarify_text``),
and a call an OpenAI-compatible model made without the argument is refused with it in the ToolMessage
(``ask_user``), so the model asks the person in their language instead of showing a validator's text.
"""

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from agentchat.language import in_language

ARGUMENT_QUESTIONS: dict[str, Promise] = {
    "env_id": gettext_lazy("This needs an environment: pick one in the environment selector at the top of the page."),
    "source_env_id": gettext_lazy("From which environment? Pick it at the top of the page or write “from ss-dev”."),
    "target_env_id": gettext_lazy("To which environment? Write, for example, “to prod”."),
    # deploy_dashboard to the environment the page's dashboard is in (llm.offline.arguments)
    "same_environment": gettext_lazy(
        "The dashboard on this page is already there. From which environment should it come? Write, for example, "
        "“from ss-dev to prod”, or open it on the source environment's page."
    ),
    "dashboard_id": gettext_lazy(
        "Which dashboard do you mean? Give its id or its name in quotes — or open the agent from the dashboard's page."
    ),
    "dashboard_ids": gettext_lazy("Which dashboards? List their ids, for example “dashboards 1 and 2”."),
    "dataset_id": gettext_lazy(
        "Which dataset do you mean? Give its id or its name in quotes — or open the agent from the dataset's page."
    ),
    "task_id": gettext_lazy("Give the task id, for example “task 12”."),
    "name": gettext_lazy("What should the branch be called? For example: “create branch feature/energy-report”."),
    "table_name": gettext_lazy("For which table? For example: “for table regions in database Energy”."),
    "virtual_name": gettext_lazy(
        "What should the new virtual dataset be called? For example: “dataset top_regions: SELECT …”."
    ),
    "database_name": gettext_lazy(
        "In which database? Name it, for example “in database Energy” — or ask from a dataset's page: its database "
        "is taken."
    ),
    "other_env_id": gettext_lazy(
        "Compared with what? Name the other environment (“with prod”) or a saved copy (“with copy 12”)."
    ),
    "compared_object": gettext_lazy(
        "Which dashboard or dataset? Give its id (“dashboard 2”) — or open the agent from its page."
    ),
    "object_id": gettext_lazy("Whose permissions? Say, for example, “dashboard 1”, “dataset 2” or “database 1”."),
}
# Arguments asked for by another one's question: a database by id or by name is one question.
SAME_QUESTION = {"database_id": "database_name", "object_type": "object_id"}


def argument_question(name: str, language: str | None = None) -> str | None:
    """The question for the missing argument ``name`` in ``language`` (None: the active one), or None when the
    table has none (the caller then names the argument)."""
    question = ARGUMENT_QUESTIONS.get(SAME_QUESTION.get(name, name))
    if question is None:
        return None
    with in_language(language):
        return str(question)
