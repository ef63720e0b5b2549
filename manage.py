#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    # Imported after DJANGO_SETTINGS_MODULE is set, as django-admin's own manage.py template does.
    from django.core.management import execute_from_command_line  # noqa: PLC0415 - see the comment above

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
