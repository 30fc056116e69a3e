"""Play again (D19): a rematch of a finished game, the seats it keeps, the series, and telling
the finished table."""
