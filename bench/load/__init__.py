"""``python -m bench.load``: chats on one daphne process beside a bare echo consumer (``__main__`` says what it
prints). Modules: ``setup`` (sessions, the LLM stub), ``clients`` (the chats), ``figures``, ``outage``, ``queries``."""
