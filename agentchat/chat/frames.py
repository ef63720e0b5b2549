"""Client → server WebSocket frames (DESIGN §6), validated strictly: unknown types or extra fields are refused.

A client-sent ``role``, ``tools`` or ``permissions`` is never used: such a frame is a ``bad_frame``. Frames are
decoded by ``strictjson``: duplicate keys or over-deep nesting in the frame itself make a ``bad_frame``; inside
the ``context`` member they are left for the UIContext validator, so they become an ``invalid_context``.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from agentchat.context.ids import MAX_ID
from agentchat.context.strictjson import DuplicateKeys, JSONUnparseable, strict_loads
from agentchat.context.uicontext import printable, validation_text

MAX_FRAME_CHARS = 64 * 1024
MAX_TEXT_CHARS = 8000
Id = Annotated[int, Field(ge=1, le=MAX_ID)]  # database ids are 64-bit; a larger number must not reach a query
# The page's id of a message it sent (issue 31): what it asks about after losing its socket (``resume``).
ClientId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
MAX_RESUMED = 50  # message ids one ``resume`` may ask about


class FrameInvalid(Exception):
    """The frame is not JSON, not an object, of an unknown type or has invalid fields.

    Args:
        message: what is wrong (English, as pydantic and ``strictjson`` say it).
        field: the frame member at fault (``text``, ``context.envId``), or empty for the whole frame.
    """

    def __init__(self, message: str, field: str = ""):
        super().__init__(f"{field}: {message}" if field else message)
        self.message = message
        self.field = field

    def text(self, language: str | None = None) -> str:
        """The detail for the user in ``language`` (None: the active one), translated where the message is known
        (``validation_text``)."""
        message = validation_text(self.message, language)
        return f"{self.field}: {message}" if self.field else message


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class UserMessageFrame(_Frame):
    type: Literal["user_message"]
    conversation_id: Id | None = None
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT_CHARS)]
    # Validated separately (agentchat.context.uicontext) so that its errors become ``invalid_context``.
    context: Any = None
    client_id: ClientId | None = None

    @field_validator("text")
    @classmethod
    def _storable_text(cls, value: str) -> str:
        # PostgreSQL text cannot hold NUL and UTF-8 cannot encode lone surrogates.
        if "\x00" in value or any("\ud800" <= ch <= "\udfff" for ch in value):
            raise ValueError("text must not contain NUL or lone surrogates")
        if not value.strip():
            raise ValueError("text is empty")
        return value


class ConfirmFrame(_Frame):
    type: Literal["confirm"]
    confirmation_id: Id
    decision: Literal["approve", "deny"]
    # The environment id typed on a prod card for a dangerous tool (checked server-side).
    typed_env: Annotated[str, Field(max_length=64)] | None = None
    # The card's ticked options (``GuardrailDecision.options`` names); one the card did not offer is refused.
    options: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=8)] = []
    # Accepted and ignored: what runs is always the stored call (DESIGN §9), never client-sent arguments.
    args: Any = None


class DismissFrame(_Frame):
    type: Literal["dismiss"]
    confirmation_id: Id


class ResumeFrame(_Frame):
    """A page (re)connects: the pending cards of ``conversation_id`` come back, and what became of each message it
    sent and heard nothing final about (``client_ids``: answered, still running, interrupted, never received)."""

    type: Literal["resume"]
    conversation_id: Id | None = None
    client_ids: Annotated[list[ClientId], Field(max_length=MAX_RESUMED)] = []

    @model_validator(mode="after")
    def _asks_something(self) -> "ResumeFrame":
        if self.conversation_id is None and not self.client_ids:
            raise ValueError("give conversation_id or client_ids")
        return self


ClientFrame = Annotated[UserMessageFrame | ConfirmFrame | DismissFrame | ResumeFrame, Field(discriminator="type")]
_ADAPTER: TypeAdapter = TypeAdapter(ClientFrame)


def decode_frame(text: str | None) -> dict[str, Any]:
    """Decode a text frame into a JSON object (``strictjson.strict_loads``).

    Returns:
        The frame object; nested values may hold ``DuplicateKeys``/``Skipped`` (see ``strictjson``).

    Raises:
        FrameInvalid: not text, too long (> 64 KiB characters), not JSON, not an object, or an object with
            duplicate keys at the top level.
    """
    if text is None:
        raise FrameInvalid("binary frames are not accepted")
    if len(text) > MAX_FRAME_CHARS:
        raise FrameInvalid("frame too large")
    try:
        value = strict_loads(text)
    except JSONUnparseable as exc:
        raise FrameInvalid(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise FrameInvalid("frame must be a JSON object")
    if isinstance(value, DuplicateKeys):
        raise FrameInvalid("duplicate keys: " + printable(", ".join(value.duplicates), 200))
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
        path = list(first["loc"])
        if path and path[0] == value.get("type"):
            path = path[1:]  # the union's tag, not a member of the frame
        loc = ".".join(str(p) for p in path)
        message = str(first["msg"]).removeprefix("Value error, ")  # English; ``text`` translates it
        raise FrameInvalid(printable(message, 240), printable(loc, 60)) from None
