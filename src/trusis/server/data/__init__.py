"""What is stored: the schema, the store (SQLite or PostgreSQL, one code), group commits, the
leases, the migrations, and the queries that read stored facts back."""
