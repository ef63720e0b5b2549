"""Size of the first model call of a turn, per page kind, with the tool router on and off (issue 16).

Run from the repository root (no database; the default policies of DESIGN §8 for the ``admin`` role):

    .venv/bin/python bench/prompt_size.py [--role admin] [--tokens | --tokenize] [--only dashboard]

For each context kind (dashboard, dataset, migration page; no object with an environment picked; nothing) and a
Russian and an English question, the first call is what ``AgentTurn`` sends: the system prompt
(``turn.prompt.system_prompt`` with the page's context block and the answer language), the user's message and the
offered tool schemas (``ToolSpec.openai_schema``) — all offered tools (router off) or the router's top
``ROUTER_TOP_K`` + ``show_capabilities`` (router on).

Printed per row: characters of the system prompt, of the tool schemas and in total (JSON as sent). With
``--tokens`` the same request goes to ``LLM_BASE_URL`` ``/chat/completions`` (``max_tokens: 1``) and the
``usage.prompt_tokens`` the server counts is printed: its own tokenizer, nothing is fetched here (no tiktoken).
``--tokenize`` (llama.cpp's server only) counts the same prompt without processing it: the server's chat template
applied (``/apply-template``, tools included) and tokenized (``/tokenize``) — milliseconds instead of a minute of
prompt processing per request on a CPU server; the count equals ``usage.prompt_tokens`` of that request.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")

# (kind, page, Russian question, English question): the seed's main job on each page.
CASES = [
    ("dashboard", "dashboard/3@ss-dev", "расскажи про этот дашборд", "summarise this dashboard"),
    ("dataset", "dataset/1@ss-dev", "из какой таблицы этот датасет?", "which columns does this dataset have?"),
    ("migration", "migration/5@ss-dev", "что перезапишется при этом переносе?", "what would this migration overwrite?"),
    ("env only", "@ss-dev", "какие дашборды есть?", "which dashboards do we have?"),
    ("none", "", "какие окружения подключены?", "which environments are configured?"),
]


def first_call(question, page: str, names: list[str], specs: dict) -> dict:
    """The chat-completions body of the turn's first model call (without model and limits)."""
    from agentchat.language import detect_language
    from agentchat.runtime.binding import page_bound
    from agentchat.turn.prompt import system_prompt

    context = question.context()
    system = system_prompt(context, unavailable=False, language=detect_language(question.q))
    return {
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": question.q}],
        "tools": [specs[n].openai_schema(page=page_bound(specs[n], context)) for n in names],
    }


def prompt_tokens(body: dict) -> tuple[int | None, float]:
    """``usage.prompt_tokens`` of ``body`` at ``LLM_BASE_URL`` (one token generated) and the seconds it took."""
    import httpx
    from django.conf import settings

    request = {**body, "model": settings.LLM_MODEL or "local", "max_tokens": 1, "stream": False}
    started = time.perf_counter()
    reply = httpx.post(
        settings.LLM_BASE_URL.rstrip("/") + "/chat/completions",
        json=request,
        headers={"Authorization": f"Bearer {settings.LLM_API_KEY or 'x'}"},
        timeout=settings.LLM_TIMEOUT_S,
    )
    reply.raise_for_status()
    return reply.json().get("usage", {}).get("prompt_tokens"), time.perf_counter() - started


def template_tokens(body: dict) -> tuple[int | None, float]:
    """The token count of ``body``'s prompt as llama.cpp's server builds it (its chat template applied to the
    messages and tools, then tokenized with special tokens), and the seconds it took; nothing is generated."""
    import httpx
    from django.conf import settings

    root = settings.LLM_BASE_URL.rstrip("/").removesuffix("/v1")
    started = time.perf_counter()
    with httpx.Client(timeout=settings.LLM_TIMEOUT_S, trust_env=False) as client:
        prompt = client.post(f"{root}/apply-template", json=body).raise_for_status().json()["prompt"]
        tokens = client.post(f"{root}/tokenize", json={"content": prompt, "parse_special": True}).raise_for_status()
    return len(tokens.json()["tokens"]), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--role", default="admin", help="role whose default policy set is offered")
    parser.add_argument("--tokens", action="store_true", help="ask LLM_BASE_URL for usage.prompt_tokens")
    parser.add_argument("--tokenize", action="store_true", help="count with llama.cpp's /apply-template + /tokenize")
    parser.add_argument("--only", default="", help="one context kind (a CPU server takes a minute per request)")
    opts = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings

    from agentchat.runtime.registry import registry
    from agentchat.toolset.router import tool_router
    from bench.router import routed
    from policies.defaults import TOOLS
    from tests.support.question_set import Question
    from tests.toolset.test_question_set import offered_by_default

    specs = registry()
    router = tool_router()
    if router is not None:
        router.index(list(specs.values()))
    print(f"role {opts.role} | ROUTER_TOP_K={settings.ROUTER_TOP_K} | embeddings {settings.EMBEDDINGS}")
    if opts.tokens or opts.tokenize:
        how = "usage.prompt_tokens" if opts.tokens else "/apply-template + /tokenize"
        print(f"tokens: {how} of {settings.LLM_BASE_URL} (model {settings.LLM_MODEL or '?'})")
    print(f"{'context':<10} {'lang':<4} {'router':<6} {'tools':>5} {'system':>7} {'schemas':>8} {'total':>7}  tokens")
    for kind, page, ru, en in CASES:
        if opts.only and kind != opts.only:
            continue
        for lang, text in (("ru", ru), ("en", en)):
            question = Question(text, page, (), ())
            names = [
                n
                for n in sorted(specs)
                if offered_by_default(question, n) and opts.role in TOOLS.get(n, ("", False, (), ()))[3]
            ]
            for state in ("off", "on"):
                chosen = names
                if state == "on" and router is not None:
                    ranked = router.rank(
                        question=text, specs=[specs[n] for n in names], object_type=question.object_type
                    )
                    kept = routed(ranked, settings.ROUTER_TOP_K)
                    chosen = [n for n in names if n in kept]
                body = first_call(question, page, chosen, specs)
                system = len(body["messages"][0]["content"])
                schemas = len(json.dumps(body["tools"], ensure_ascii=False, separators=(",", ":")))
                total = len(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
                tokens = ""
                if opts.tokens or opts.tokenize:
                    count, seconds = (prompt_tokens if opts.tokens else template_tokens)(body)
                    tokens = f"{count}  ({seconds:.1f} s)"
                print(f"{kind:<10} {lang:<4} {state:<6} {len(chosen):>5} {system:>7} {schemas:>8} {total:>7}  {tokens}")


if __name__ == "__main__":
    main()
