"""The balance lab: many bot games per table size, and the win rates they give."""
