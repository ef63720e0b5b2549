"""Database ids (issue 31 item 5): the range of a 64-bit signed primary key, for every id that comes from outside.

An id of 2^63 or more in a URL, a frame, a page context or a tool argument never reaches a query: PostgreSQL
refuses it (``bigint out of range``) and Superset on SQLite answered HTTP 500, which the agent reported as
«Superset недоступен». URLs answer 404 (``IdConverter``), frames and contexts a validation error, tool arguments
an ``invalid_args`` result the model can repair (``ObjectId``).
"""

from typing import Annotated

from pydantic import AfterValidator, Field

MAX_ID = 2**63 - 1


def id_in_range(value: int) -> int:
    """Return ``value`` when it is at most ``MAX_ID``.

    Raises:
        ValueError: ``Input should be less than or equal to 9223372036854775807`` (pydantic's own wording, which
            ``context.uicontext.validation_text`` translates).
    """
    if value > MAX_ID:
        raise ValueError(f"Input should be less than or equal to {MAX_ID}")
    return value


#: A positive database or Superset id in a tool's arguments. The upper bound is checked without being written
#: into the JSON schema the LLM reads (``maximum``: characters in every prompt for a number no model writes).
ObjectId = Annotated[int, Field(ge=1), AfterValidator(id_in_range)]


class IdConverter:
    """URL converter ``<id:name>``: 1 to ``MAX_ID`` digits as an ``int``; anything larger matches no route (404)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        """Return the id.

        Raises:
            ValueError: beyond ``MAX_ID`` (Django then tries the next route, and none matches: 404).
        """
        number = int(value)
        if number > MAX_ID:
            raise ValueError(value)
        return number

    def to_url(self, value: int) -> str:
        """Return the id's digits."""
        return str(int(value))
