"""Client → server WebSocket frames (DESIGN §6), validated strictly: unknown types or extra fields are refused.

A client-sent ``role``, ``tools`` or ``permissions`` is never used: such a frame is a ``bad_frame``.
"""

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

MAX_FRAME_CHARS = 64 * 1024
MAX_TEXT_CHARS = 8000


class FrameInvalid(Exception):
    """The frame is not JSON, not an object, of an unknown type or has invalid fields."""


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class UserMessageFrame(_Frame):
    type: Literal["user_message"]
    conversation_id: int | None = None
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)]
    # Validated separately (agentchat.context) so that its errors become ``invalid_context``.
    context: Any = None


class ConfirmFrame(_Frame):
    type: Literal["confirm"]
    confirmation_id: int
    decision: Literal["approve", "deny"]
    # The environment id typed on a prod card for a dangerous tool (checked server-side).
    typed_env: Annotated[str, Field(max_length=64)] | None = None
    # Accepted and ignored: what runs is always the stored call (DESIGN §9), never client-sent arguments.
    args: Any = None


class DismissFrame(_Frame):
    type: Literal["dismiss"]
    confirmation_id: int


class ResumeFrame(_Frame):
    type: Literal["resume"]
    conversation_id: int


ClientFrame = Annotated[UserMessageFrame | ConfirmFrame | DismissFrame | ResumeFrame, Field(discriminator="type")]
_ADAPTER: TypeAdapter = TypeAdapter(ClientFrame)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise FrameInvalid("duplicate keys")
    return dict(pairs)


def decode_frame(text: str | None) -> dict[str, Any]:
    """Decode a text frame into a JSON object, refusing duplicate keys and oversized or deep input.

    Raises:
        FrameInvalid: not text, too long (> 64 KiB characters), not JSON, too deep, or not an object.
    """
    if text is None:
        raise FrameInvalid("binary frames are not accepted")
    if len(text) > MAX_FRAME_CHARS:
        raise FrameInvalid("frame too large")
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except FrameInvalid:
        raise
    except (ValueError, RecursionError) as exc:
        raise FrameInvalid(f"not JSON: {type(exc).__name__}") from None
    if not isinstance(value, dict):
        raise FrameInvalid("frame must be a JSON object")
    return value


def parse_frame(value: dict[str, Any]) -> UserMessageFrame | ConfirmFrame | DismissFrame | ResumeFrame:
    """Return the typed frame for a decoded object.

    Raises:
        FrameInvalid: unknown ``type`` or invalid/extra fields.
    """
    try:
        return _ADAPTER.validate_python(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise FrameInvalid(f"{loc}: {first['msg']}") from None
