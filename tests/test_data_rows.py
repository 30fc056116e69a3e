"""Issue 36: the data package answers typed rows. A row's TypedDict names exactly its
table's columns, in their order (data/rows.py, data/personal.py): a column added by a
migration without its key, or a key no column fills, is a type that lies."""

from __future__ import annotations

import pytest
from sqlalchemy import Table

from trusis.server.data import personal, reports, rows, schema

SHAPES: list[tuple[type, Table, set[str]]] = [
    (rows.TableRow, schema.tables, set()),
    (rows.SeatRow, schema.seats, set()),
    (rows.ActionRow, schema.actions, set()),
    # What `GET /api/me/data` answers: each key a table holding something of yours.
    (personal.PlayerRow, schema.players, {"password_hash"}),  # never sent
    (personal.GameRow, schema.game_players, set()),
    (personal.ActionOfYours, schema.actions, set()),
    (reports.ReportRow, schema.reports, set()),
    (personal.RoleRow, schema.staff_roles, set()),
    (personal.SanctionOfYours, schema.sanctions, {"by_id"}),  # which moderator: not yours
    (personal.BlockOfYours, schema.blocks, set()),
    (personal.MailAddress, schema.mail_addresses, set()),
    (personal.PushSubscription, schema.push_subscriptions, set()),
    (personal.NotificationPrefs, schema.notify_prefs, set()),
    (personal.Delivery, schema.deliveries, set()),
    (personal.ReadMark, schema.reads, set()),
]


@pytest.mark.parametrize(("shape", "table", "left_out"), SHAPES,
                         ids=[shape.__name__ for shape, _, _ in SHAPES])
def test_a_row_s_type_names_its_table_s_columns(shape: type, table: Table,
                                                 left_out: set[str]) -> None:
    columns = [c.name for c in table.columns if c.name not in left_out]
    assert list(shape.__annotations__) == columns


def test_the_data_download_has_a_key_per_table_it_reads() -> None:
    assert list(personal.PersonalData.__annotations__) == [
        "player", "seats", "games", "actions", "reports_filed", "staff_roles", "sanctions",
        "blocks", "email", "push_subscriptions", "notification_settings",
        "notifications_sent", "read_marks"]
