"""``/settings/``'s Superset identities (DESIGN §15): the user's identities listed (never the secret), a personal
API key added (checked with one ``GET /api/v1/me/`` before it is saved) or an identity removed.

Thin edge: parse the form, call ``identity.services``, redirect back with a message (POST/redirect/GET).
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from agentchat.errors import ApplicationError, IdentityMissing, UpstreamUnavailable
from agentchat.identity.services import (
    ApiKeyRefused,
    identities_of,
    identity_add_api_key,
    identity_of,
    identity_remove,
)

MAX_KEY_CHARS = 512


@login_required
@require_POST
def identity_api_key_add(request: HttpRequest) -> HttpResponse:
    """``POST /settings/identities/`` ``env_id``, ``api_key``: store the key as the user's ``api_key`` identity in
    that environment when Superset accepts it; the key is never echoed back, logged or shown again."""
    env_id = request.POST.get("env_id", "")
    key = request.POST.get("api_key", "").strip()
    # A key Superset made is printable ASCII; anything else can never be one and cannot go into an HTTP header.
    if not key or len(key) > MAX_KEY_CHARS or not (key.isascii() and key.isprintable()):
        messages.error(request, gettext("Paste the API key Superset showed when it was created."))
        return redirect("settings")
    try:
        identity = identity_add_api_key(user=request.user, env_id=env_id, key=key)  # type: ignore[arg-type]
    except ApiKeyRefused:
        messages.error(request, gettext("Superset %(env)s did not accept this API key.") % {"env": env_id})
    except IdentityMissing:
        messages.error(
            request, gettext("Environment “%(env_id)s” was not found or is switched off.") % {"env_id": env_id}
        )
    except UpstreamUnavailable as exc:
        messages.error(request, exc.text())
    except ApplicationError as exc:  # pragma: no cover - any other expected failure, in the user's words
        messages.error(request, exc.text())
    else:
        text = gettext("API key of %(env)s added: the agent acts there as %(username)s.")
        messages.success(request, text % {"env": env_id, "username": identity.superset_username})
    return redirect("settings")


@login_required
@require_http_methods(["GET", "POST"])
def identity_delete(request: HttpRequest, identity_id: int) -> HttpResponse:
    """``/settings/identities/<id>/delete/``: GET asks to confirm, saying what is removed — agentchat's link to
    that Superset account, not the account — and what follows; POST removes it (another user's: 404).

    The message names what was removed (issue 30: «Учётная запись Superset удалена» said the account was gone).
    """
    user = request.user
    identity = identity_of(user=user, identity_id=identity_id)  # type: ignore[arg-type]
    if identity is None:
        raise Http404
    if request.method == "GET":
        spare = any(
            other.pk != identity.pk and other.environment_id == identity.environment_id and other.state == "active"
            for other, _in_use in identities_of(user=user)  # type: ignore[arg-type]
        )
        return render(request, "pages/identity_delete.html", {"identity": identity, "spare": spare})
    if identity_remove(user=user, identity_id=identity_id):  # type: ignore[arg-type]
        text = gettext(
            "The link to the Superset account “%(username)s” in %(env)s was removed; the account itself did not "
            "change in Superset."
        )
        messages.success(request, text % {"username": identity.superset_username, "env": identity.environment.env_id})
    return redirect("settings")
