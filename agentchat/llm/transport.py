"""The ``openai`` provider's HTTP client: the SDK's aiohttp client with its connection errors named right (issue 17).

The SDK's aiohttp transport (``openai.DefaultAioHttpClient``) maps every ``aiohttp.ClientConnectionError`` to
``httpx2.ConnectTimeout`` — a refused port, a name that does not resolve, a TLS failure and a server that closed before
answering too — so the SDK's own request path (``ainvoke``: an LLM review, ``review.llm``) raised
``openai.APITimeoutError`` («Request timed out») for them. Here each such error is raised again as the class httpx2's
own transport raises (``ConnectError``, ``ProxyError``, ``RemoteProtocolError``, ``ReadError``), from the same aiohttp
error, and so is an aiohttp error the SDK's transport lets through unmapped (a malformed answer); aiohttp's timeouts
stay timeouts. Callers therefore see httpx2's classes only (``llm.streams``). Everything else (proxies from the
environment, TLS, limits) is the SDK's client as it is.
"""

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx2
import openai


class AioHttpClient(openai.DefaultAioHttpClient):
    """``openai.DefaultAioHttpClient`` (the same arguments) whose transports, the direct one and one per proxy of
    the environment, raise httpx2's error classes for aiohttp's connection errors (``NamedErrors``)."""

    def _init_transport(self, *args: Any, **kwargs: Any) -> httpx2.AsyncBaseTransport:
        return NamedErrors(super()._init_transport(*args, **kwargs))

    def _init_proxy_transport(self, *args: Any, **kwargs: Any) -> httpx2.AsyncBaseTransport:
        return NamedErrors(super()._init_proxy_transport(*args, **kwargs))


class NamedErrors(httpx2.AsyncBaseTransport):
    """A transport that sends through ``transport`` and raises its failures as ``named_error`` names them, for the
    request and for the body's stream.

    Args:
        transport: the SDK's aiohttp transport.
    """

    def __init__(self, transport: httpx2.AsyncBaseTransport):
        self._transport = transport

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` through the wrapped transport; return its response, the body's stream wrapped.

        Raises:
            httpx2.TransportError: the wrapped transport's, with a connection error's class named by ``named_error``.
        """
        try:
            response = await self._transport.handle_async_request(request)
        except (httpx2.ConnectTimeout, aiohttp.ClientError) as exc:
            raise named_error(exc, reading=False) from _cause(exc)
        response.stream = _NamedBody(response.stream)
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport (its aiohttp session)."""
        await self._transport.aclose()


class _NamedBody(httpx2.AsyncByteStream):
    """A response body whose failures are raised as ``named_error`` names them."""

    def __init__(self, stream: Any):
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._stream:
                yield chunk
        except (httpx2.ConnectTimeout, aiohttp.ClientError) as exc:
            raise named_error(exc, reading=True) from _cause(exc)

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        except (httpx2.ConnectTimeout, aiohttp.ClientError) as exc:
            raise named_error(exc, reading=True) from _cause(exc)


def _cause(exc: BaseException) -> BaseException | None:
    """The aiohttp error behind ``exc``: itself when unmapped, else the one the SDK's transport mapped."""
    return exc if isinstance(exc, aiohttp.ClientError) else exc.__cause__


def named_error(exc: httpx2.ConnectTimeout | aiohttp.ClientError, *, reading: bool) -> httpx2.TransportError:
    """The error httpx2's own transport would raise for the failure ``exc`` stands for.

    Args:
        exc: what the SDK's aiohttp transport raised: its ``ConnectTimeout`` (``__cause__``: the aiohttp error) or
            an aiohttp error it did not map.
        reading: whether the answer's body was being read (else the request was being sent).

    Returns:
        A ``ConnectTimeout`` itself for a timeout or a cause that is no aiohttp error; else a new ``ProxyError`` (no
        connection to the proxy), ``ConnectError`` (no connection: refused, unresolvable, TLS),
        ``RemoteProtocolError`` (the server closed before answering, or answered what is not HTTP) or ``ReadError``
        (anything else, and any failure while reading), with ``exc``'s message and, when it has one, its request.
    """
    cause = _cause(exc)
    if isinstance(exc, httpx2.ConnectTimeout) and (
        not isinstance(cause, aiohttp.ClientConnectionError) or isinstance(cause, TimeoutError)
    ):
        return exc
    named: type[httpx2.TransportError]
    if isinstance(cause, aiohttp.ClientProxyConnectionError):
        named = httpx2.ProxyError
    elif reading:
        named = httpx2.ReadError
    elif isinstance(cause, aiohttp.ClientConnectorError):
        named = httpx2.ConnectError
    elif isinstance(cause, aiohttp.ServerDisconnectedError | aiohttp.ClientResponseError):
        named = httpx2.RemoteProtocolError
    else:
        named = httpx2.ReadError
    error = named(str(exc))
    try:
        error.request = exc.request  # type: ignore[union-attr]  # an aiohttp error has none: AttributeError
    except (AttributeError, RuntimeError):  # raised without a request
        pass
    return error
