"""Post a Django admin change form the way a browser would: every field and inline as rendered, plus edits."""

from typing import Any


def _field_items(form) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for bound in form:
        value = bound.value()
        if isinstance(value, bool):
            if value:
                data[bound.html_name] = "on"
        elif isinstance(value, list | tuple):
            data[bound.html_name] = [str(v) for v in value]
        elif value is not None:
            data[bound.html_name] = str(value)
    return data


def change_form_data(response) -> dict[str, Any]:
    """Return the POST data of the admin change page ``response`` unchanged (main form and inline formsets).

    Args:
        response: a Django test client response of an admin add/change view (``response.context`` set).

    Returns:
        ``{field name: value}`` including each inline's management form; unchecked boxes are left out.
    """
    data = _field_items(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        data |= _field_items(formset.management_form)
        for form in formset.forms:
            data |= _field_items(form)
    return data


def inline_rows(response, prefix: str) -> list[dict[str, Any]]:
    """Return the existing rows of the inline ``prefix`` as ``[{"index", field: value}]``."""
    for inline in response.context["inline_admin_formsets"]:
        if inline.formset.prefix == prefix:
            return [
                {"index": n, **{name: form[name].value() for name in form.fields}}
                for n, form in enumerate(inline.formset.initial_forms)
            ]
    raise KeyError(prefix)


def first_extra_index(response, prefix: str) -> int:
    """Return the index of the first empty (extra) form of the inline ``prefix``."""
    for inline in response.context["inline_admin_formsets"]:
        if inline.formset.prefix == prefix:
            return inline.formset.initial_form_count()
    raise KeyError(prefix)
