"""Strict JSON decoding of hostile input (``agentchat.context.strictjson``): what ``json.loads`` would hide or
crash on."""

import json

import pytest

from agentchat.chat.frames import FrameInvalid, decode_frame, parse_frame
from agentchat.context.strictjson import DuplicateKeys, JSONUnparseable, Skipped, json_flaws, strict_loads


def test_duplicate_keys_stay_visible_with_the_last_value():
    value = strict_loads('{"objectId":"1","objectId":"2","a":{"b":1,"b":2}}')
    assert isinstance(value, DuplicateKeys)
    assert value.duplicates == ("objectId",)
    assert value["objectId"] == "2"
    assert json_flaws(value) == [((), "duplicate keys: objectId"), (("a",), "duplicate keys: b")]


def test_2000_deep_array_decodes_to_a_marker_instead_of_recursion_error():
    with pytest.raises(RecursionError):
        json.loads("[" * 200_000 + "]" * 200_000)
    value = strict_loads('{"x":' + "[" * 2000 + '"]]"' + "]" * 2000 + "}")
    flaws = json_flaws(value)
    assert len(flaws) == 1
    path, message = flaws[0]
    assert path[0] == "x"
    assert message == "nested deeper than 32 levels"


def test_nesting_up_to_the_limit_is_decoded_normally():
    value = strict_loads("[" * 32 + "]" * 32)
    assert json_flaws(value) == []
    assert json_flaws(strict_loads("[" * 33 + "]" * 33)) == [((0,) * 32, "nested deeper than 32 levels")]


@pytest.mark.parametrize(
    "text",
    ["", "{", "NaN", '{"a":Infinity}', "[1,]", '{"a":1} x', "[" * 40 + "}" + "]" * 39, '"\x00"', "\ufeff{}"],
)
def test_text_that_is_not_json_raises_unparseable(text):
    with pytest.raises(JSONUnparseable):
        strict_loads(text)


def test_huge_integer_literal_becomes_a_marker():
    value = strict_loads('{"n":' + "9" * 5000 + "}")
    assert isinstance(value["n"], Skipped)


def test_python_values_deeper_than_the_limit_or_not_json_are_flawed():
    deep: list = []
    node = deep
    for _ in range(3000):
        node.append([])
        node = node[0]
    assert json_flaws(deep)[0][1] == "nested deeper than 32 levels"
    assert json_flaws({"a": {1, 2}}) == [(("a",), "set is not a JSON value")]


def test_frame_with_duplicate_top_level_keys_is_a_bad_frame():
    with pytest.raises(FrameInvalid, match="duplicate keys: text"):
        decode_frame('{"type":"user_message","text":"a","text":"b"}')


def test_frame_context_keeps_its_flaws_for_the_context_validator():
    frame = parse_frame(decode_frame('{"type":"user_message","text":"a","context":{"x":1,"x":2}}'))
    assert isinstance(frame.context, DuplicateKeys)


@pytest.mark.parametrize(
    "raw",
    [
        '{"type":"user_message","text":"a\\u0000b"}',
        '{"type":"user_message","text":"\\ud800"}',
        '{"type":"user_message","text":"a","conversation_id":99999999999999999999}',
        '{"type":"user_message","text":"a","conversation_id":0}',
        '{"type":"user_message","text":' + "[" * 100 + "]" * 100 + "}",
    ],
)
def test_frame_fields_that_cannot_be_stored_are_refused(raw):
    with pytest.raises(FrameInvalid):
        parse_frame(decode_frame(raw))


@pytest.mark.parametrize(
    ("text", "russian"),
    [
        ('{"type": "foo"}', "неизвестный тип «foo»"),
        ('{"text": "hi"}', "не указан type"),
        ('{"type": "user_message", "text": "hi", "role": "admin"}', "role: неизвестное поле"),
        ('{"type": "confirm", "confirmation_id": 0, "decision": "approve"}', "confirmation_id: не меньше 1"),
        ("[1]", "сообщение должно быть объектом JSON"),
        ('{"type": "user_message", "text": "   "}', "text: пустой текст"),
    ],
)
def test_frame_errors_are_told_in_russian(text, russian):
    with pytest.raises(FrameInvalid) as caught:
        parse_frame(decode_frame(text))
    assert caught.value.text("ru") == russian
    assert caught.value.text("en") != russian  # the English original stays for English users and logs
