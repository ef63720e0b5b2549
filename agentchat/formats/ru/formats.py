"""Russian formats (see ``agentchat.formats``): 06.12.2026 07:14 MSK; «6 декабря» in the admin's date drill-down
(Django's ``j F`` wrote «6 Декабрь»); 432 421 141 162,26 (non-breaking space groups)."""

DATE_FORMAT = "d.m.Y"
DATETIME_FORMAT = "d.m.Y H:i T"
SHORT_DATE_FORMAT = "d.m.Y"
SHORT_DATETIME_FORMAT = "d.m.Y H:i"
MONTH_DAY_FORMAT = "j E"
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "\xa0"
NUMBER_GROUPING = 3
