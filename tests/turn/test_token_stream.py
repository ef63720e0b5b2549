"""Streamed tokens are coalesced into few ``token`` frames (``turn.streaming.TokenStream``: at most one per 50 ms or 400
characters), so a busy process sends a handful of frames per answer instead of one per token (bench/load.py)."""

import asyncio

from agentchat.turn.streaming import TOKEN_FLUSH_CHARS, TOKEN_FLUSH_S, TokenStream
from tests.support.frames import Frames


async def test_an_instant_50_token_answer_is_one_frame():
    frames = Frames()
    stream = TokenStream(frames, message_id=7)
    tokens = [f"слово{i} " for i in range(50)]

    for token in tokens:
        await stream.add(token)
    await stream.flush()

    assert [f["text"] for f in frames] == ["".join(tokens)]
    assert frames[0] == {"event": "token", "message_id": 7, "text": "".join(tokens)}


async def test_a_long_burst_is_cut_every_400_characters_and_keeps_every_character():
    frames = Frames()
    stream = TokenStream(frames, message_id=1)
    tokens = [f"{i:04d}:abcdef " for i in range(100)]  # 12 characters each, 1,200 in all

    for token in tokens:
        await stream.add(token)
    await stream.flush()

    assert "".join(f["text"] for f in frames) == "".join(tokens)
    assert len(frames) == 3
    assert all(len(f["text"]) >= TOKEN_FLUSH_CHARS for f in frames[:-1])


async def test_a_slow_stream_sends_a_frame_once_50_ms_have_passed():
    frames = Frames()
    stream = TokenStream(frames, message_id=1)

    await stream.add("a")
    assert frames == []
    await asyncio.sleep(TOKEN_FLUSH_S * 0.5)
    await stream.add("b")
    assert frames == []
    await asyncio.sleep(TOKEN_FLUSH_S * 1.2)
    await stream.add("c")

    assert [f["text"] for f in frames][:1] == ["ab"]


async def test_text_before_a_pause_is_sent_without_waiting_for_the_next_chunk():
    """A model that stops mid-reply (it is thinking, or holds before a tool call): the text so far reaches the page
    while it waits; the next chunk is produced only once that frame arrived (else this test times out)."""
    frames = Frames()
    arrived = asyncio.Event()

    async def emit(event):
        await frames(event)
        arrived.set()

    stream = TokenStream(emit, message_id=3)
    await stream.add("Сейчас посмотрю")
    await asyncio.wait_for(arrived.wait(), timeout=5)
    await stream.add(" дашборд.")
    await stream.flush()

    assert [f["text"] for f in frames] == ["Сейчас посмотрю", " дашборд."]


async def test_a_timer_flush_and_the_final_flush_keep_the_text_in_order():
    frames = Frames()
    stream = TokenStream(frames, message_id=1)
    sent = []
    for i in range(30):
        token = f"{i} "
        sent.append(token)
        await stream.add(token)
        await asyncio.sleep(TOKEN_FLUSH_S / 7)
    await stream.flush()
    await asyncio.sleep(TOKEN_FLUSH_S * 2)  # a timer left behind would add a frame now

    assert "".join(f["text"] for f in frames) == "".join(sent)
    assert all(f["text"] for f in frames)
