"""The SQL statements of one follow-up turn, counted in this process on the run's database (``--queries``)."""

from bench.load.clients import CONTEXT


def count_turn_queries(stub_port: int) -> list[str]:
    """Run two turns in this process against the stub; return the SQL of the second (a follow-up turn)."""
    from asgiref.sync import async_to_sync
    from channels.db import database_sync_to_async
    from django.contrib.auth import get_user_model
    from django.db.backends.signals import connection_created
    from django.test import override_settings

    from agentchat.turn.agent import AgentTurn

    statements: list[str] = []

    def wrapper(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    def installed(sender, connection, **kwargs):
        if wrapper not in connection.execute_wrappers:  # a reconnect of the same wrapper fires again
            connection.execute_wrappers.append(wrapper)

    async def emit(frame):
        pass

    user = get_user_model().objects.get(username="load-0")
    llm = {"LLM_PROVIDER": "openai", "LLM_BASE_URL": f"http://127.0.0.1:{stub_port}/v1", "LLM_API_KEY": "k"}

    def watch(on: bool) -> None:  # runs in the database thread, on its (persistent) connection
        from django.db import connection

        if on:
            installed(None, connection)
        elif wrapper in connection.execute_wrappers:
            connection.execute_wrappers.remove(wrapper)

    async def two_turns() -> None:
        # One event loop for both turns: langchain-openai keeps one pooled HTTP client per base URL.
        turn = AgentTurn(user=user, emit=emit)
        conversation_id = await turn.run(conversation_id=None, text="привет", context=CONTEXT)
        connection_created.connect(installed)
        await database_sync_to_async(watch)(True)
        try:
            await turn.run(conversation_id=conversation_id, text="ещё раз", context=CONTEXT)
        finally:
            await database_sync_to_async(watch)(False)
            connection_created.disconnect(installed)

    with override_settings(**llm, LLM_MODEL="stub", EMBEDDINGS="off"):
        async_to_sync(two_turns)()
    return statements
