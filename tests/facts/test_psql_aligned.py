"""psql's aligned output, as sos and foreman-debug store query results (one reader for tasks, table sizes, counts)."""

from __future__ import annotations

import re

import pytest

from foretune.facts.parsers import ParseError
from foretune.facts.parsers.foreman import parse_tasks_csv
from foretune.facts.parsers.process import parse_psql_count, parse_table_sizes
from foretune.facts.parsers.psql import aligned

# what `psql foreman -c 'select id, label, state, output from foreman_tasks_tasks'` prints: a multi-line value ends
# its line with "+" and goes on in a line whose first cell is empty; a "|" inside the last column is data
TASKS = ("  id  |      label       |  state  |     output\n"
         "------+------------------+---------+-----------------\n"
         " 1    | Actions::Sync    | paused  | {\"a\": \"x|y\"}\n"
         " 2    | Actions::Publish | running | line one       +\n"
         "      |                  |         | line two\n"
         "(2 rows)\n")


def test_rows_keep_a_bar_in_the_last_column_and_skip_continuations_and_the_footer() -> None:
    assert aligned(TASKS, "state") == [
        {"id": "1", "label": "Actions::Sync", "state": "paused", "output": '{"a": "x|y"}'},
        {"id": "2", "label": "Actions::Publish", "state": "running", "output": "line one       +"},
    ]
    assert [row["state"] for row in parse_tasks_csv(TASKS)] == ["paused", "running"]


def test_each_reader_finds_its_own_header_and_refuses_anything_else() -> None:
    assert aligned(TASKS, "table_name") is None
    assert parse_psql_count(" count \n-------\n     7\n(1 row)\n") == 7
    with pytest.raises(ParseError, match="no count"):
        parse_psql_count(" count \n-------\n(0 rows)\n")
    with pytest.raises(ParseError, match=re.escape("no 'table_name | total' header")):
        parse_table_sizes(TASKS)
    with pytest.raises(ParseError, match="no 'state' column"):
        parse_tasks_csv(" id | label\n----+------\n 1  | x\n(1 row)\n")
