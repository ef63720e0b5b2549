"""The read-only SQL policy decided by parsing (sqlglot), not by the first keyword (issue 5, DESIGN §8)."""

import pytest
import sqlglot
from hypothesis import given
from hypothesis import strategies as st

from agentchat.superset.sql_safety import SqlNotAllowed, sql_precheck, sql_read_only
from tests.support.wording import text

DIALECTS = [None, "sqlite", "postgres", "mysql"]

REFUSED = {
    "dml_in_cte": "WITH x AS (UPDATE energy_consumption SET cost_rub = 0 RETURNING *) SELECT * FROM x",
    "comment_then_delete": "/*c*/ DELETE FROM energy_consumption",
    "select_then_drop": "SELECT 1; DROP TABLE regions",
    "select_into": "SELECT region INTO regions_copy FROM regions",
    "pragma": "PRAGMA writable_schema = 1",
    "pragma_read_form": "PRAGMA table_info(regions)",
    "attach": "ATTACH DATABASE '/tmp/evil.db' AS evil",
    "insert_select": "INSERT INTO regions SELECT * FROM regions",
    "create_as_select": "CREATE TABLE t2 AS SELECT 1",
    "for_update": "SELECT * FROM regions FOR UPDATE",
    "vacuum": "VACUUM",
    "side_effect_function": "SELECT load_extension('/tmp/x.so')",
    "line_comment_then_update": "-- just a select\nUPDATE regions SET population = 0",
    "two_selects": "SELECT 1; SELECT 2",
    "empty": "  ;  ",
}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_unsafe_sql_is_refused_in_every_dialect(name, dialect):
    """Each listed statement is refused whichever dialect parses it, and so is it before the backend is known."""
    sql = REFUSED[name]
    with pytest.raises(SqlNotAllowed) as refused:
        sql_read_only(sql=sql, dialect=dialect)
    frame = "Query refused: %(reason)s. Only a single read statement (SELECT) is allowed."
    for language in ("ru", "en"):
        assert refused.value.text(language) == text(language, frame, reason=refused.value.reason_text(language))
    assert refused.value.text("ru") != refused.value.text("en")
    assert refused.value.reason_text("ru") != refused.value.reason_text("en")
    with pytest.raises(SqlNotAllowed):
        sql_precheck(sql=sql)


def test_refusal_names_what_was_found():
    """The message says what made the query unsafe (the DML hidden in the CTE, the second statement)."""
    with pytest.raises(SqlNotAllowed) as cte:
        sql_read_only(sql=REFUSED["dml_in_cte"], dialect="sqlite")
    assert "UPDATE" in cte.value.text("ru")
    with pytest.raises(SqlNotAllowed) as two:
        sql_read_only(sql=REFUSED["select_then_drop"], dialect="sqlite")
    assert "DROP" in two.value.text("en")
    assert "2" in two.value.text("en")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_select_with_cte_is_allowed_and_capped(dialect):
    sql = (
        "WITH totals AS (SELECT region, SUM(consumption_mwh) AS mwh FROM energy_consumption GROUP BY region) "
        "SELECT region, mwh FROM totals ORDER BY mwh DESC"
    )
    statement = sql_read_only(sql=sql, dialect=dialect)
    capped = sqlglot.parse_one(statement.with_row_cap(11), read=dialect)
    assert capped.args["limit"].expression.this == "11"
    assert capped.find(sqlglot.exp.CTE).alias == "totals"
    sql_precheck(sql=sql)


@pytest.mark.parametrize(
    ("sql", "cap", "expected"),
    [
        ("SELECT * FROM regions", 5, "5"),
        ("SELECT * FROM regions LIMIT 3", 5, "3"),
        ("SELECT * FROM regions LIMIT 500", 5, "5"),
        ("SELECT 1 UNION ALL SELECT 2", 2, "2"),
    ],
)
def test_row_cap_never_raises_a_smaller_limit(sql, cap, expected):
    capped = sqlglot.parse_one(sql_read_only(sql=sql, dialect="sqlite").with_row_cap(cap), read="sqlite")
    assert capped.args["limit"].expression.this == expected


def test_dialect_specific_select_passes_the_precheck_and_its_dialect():
    """Backticks are MySQL syntax the generic parser rejects: the pre-check does not refuse a safe query."""
    sql = "SELECT `region` FROM `regions`"
    sql_precheck(sql=sql)
    assert "regions" in sql_read_only(sql=sql, dialect="mysql").with_row_cap(10)


_DANGEROUS = st.sampled_from(
    [
        "DELETE FROM regions",
        "UPDATE regions SET population = 0",
        "INSERT INTO regions VALUES ('x', 'y', 1)",
        "DROP TABLE regions",
        "PRAGMA writable_schema = 1",
        "ATTACH DATABASE 'x.db' AS x",
        "CREATE TABLE z (a INT)",
        "ALTER TABLE regions ADD COLUMN z INT",
    ]
)
_COMMENT = st.sampled_from(["", "/* c */ ", "/*select*/", "-- select\n", "\n\t ", "/* a */ /* b */ "])


def _random_case(text: str, flips: list[bool]) -> str:
    return "".join(c.upper() if i < len(flips) and flips[i] else c.lower() for i, c in enumerate(text))


@given(
    dangerous=_DANGEROUS,
    comment=_COMMENT,
    flips=st.lists(st.booleans(), max_size=60),
    shape=st.sampled_from(["alone", "after_select", "before_select"]),
)
def test_dangerous_statement_is_refused_however_it_is_dressed(dangerous, comment, flips, shape):
    """Comments, letter case and a harmless SELECT beside it never get a data/schema change through."""
    statement = comment + _random_case(dangerous, flips)
    sql = {
        "alone": statement,
        "after_select": f"SELECT 1; {statement}",
        "before_select": f"{statement}; SELECT 1",
    }[shape]
    with pytest.raises(SqlNotAllowed):
        sql_precheck(sql=sql)
    with pytest.raises(SqlNotAllowed):
        sql_read_only(sql=sql, dialect="sqlite")


@given(
    values=st.lists(st.integers(min_value=-(10**6), max_value=10**6), min_size=1, max_size=6),
    comment=_COMMENT,
    cap=st.integers(min_value=1, max_value=1000),
)
def test_plain_select_is_allowed_and_limited(values, comment, cap):
    sql = comment + "WITH v AS (SELECT " + ", ".join(f"{v} AS c{i}" for i, v in enumerate(values)) + ") SELECT * FROM v"
    sql_precheck(sql=sql)
    capped = sqlglot.parse_one(sql_read_only(sql=sql, dialect="sqlite").with_row_cap(cap), read="sqlite")
    assert int(capped.args["limit"].expression.this) == cap
    assert len(capped.find(sqlglot.exp.CTE).this.expressions) == len(values)
