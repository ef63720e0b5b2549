"""Date and number formats of the pages, the admin and the answers, per language (Django's ``FORMAT_MODULE_PATH``).

One spelling of a moment everywhere (issue 30 item 5: the pages showed «06.12.2026 07:14 MSK», «6 декабря 2026 г.
7:16» and «06.12.2026 07:17» side by side): ``DATETIME_FORMAT`` is what ``answers.base.when``, the ``moment``
template filter and the admin's lists and forms print. Only the names defined here differ from Django's own
locale formats.
"""
