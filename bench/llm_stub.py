"""An instant scripted chat-completions server for load runs (loopback only): every streamed request gets the same
``--tokens``-token answer with no tool call, as fast as the socket takes it, over keep-alive HTTP/1.1 (aiohttp).

It records, per request, when it arrived and when its last chunk was written (``time.monotonic()``, the
machine-wide monotonic clock, so a load client in another process can subtract its own timestamps), keyed by the
``[n:<nonce>]`` marker found in the last user message; ``GET /stats`` returns them as JSON. The wire format is the
one ``tests/support/chat_server.py`` speaks (OpenAI chunk objects, ``data: [DONE]``).

Run: ``python bench/llm_stub.py --port 0 --tokens 50`` (prints ``listening <port>`` when ready).
"""

import argparse
import asyncio
import json
import re
import time

from aiohttp import web

NONCE = re.compile(r"\[n:([0-9a-z_-]+)\]")


def chunk(delta: dict, finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "stub",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body, ensure_ascii=False).encode() + b"\n\n"


def make_app(tokens: int) -> web.Application:
    stats: dict[str, dict[str, float]] = {}
    pieces = [chunk({"role": "assistant", "content": ""})]
    pieces += [chunk({"content": f"слово{i} "}) for i in range(tokens)]
    pieces += [chunk({}, "stop"), b"data: [DONE]\n\n"]
    body = b"".join(pieces)  # written in one go: an instant model (the agent still parses 50 chunks)

    async def completions(request: web.Request) -> web.StreamResponse:
        arrived = time.monotonic()
        payload = await request.json()
        last_user = next((m for m in reversed(payload.get("messages", [])) if m.get("role") == "user"), {})
        found = NONCE.search(str(last_user.get("content") or ""))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(body)
        done = time.monotonic()
        await response.write_eof()
        if found:
            stats[found.group(1)] = {"arrived": arrived, "done": done}
        return response

    async def get_stats(request: web.Request) -> web.Response:
        return web.json_response(stats)

    async def reset(request: web.Request) -> web.Response:
        stats.clear()
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_get("/stats", get_stats)
    app.router.add_post("/reset", reset)
    return app


async def serve(port: int, tokens: int) -> None:
    runner = web.AppRunner(make_app(tokens), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=2048)
    await site.start()
    print(f"listening {site._server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tokens", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.tokens))


if __name__ == "__main__":
    main()
