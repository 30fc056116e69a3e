"""Who holds each seat, and the one path by which a seat changes hands: sitting down, hand-overs
(R52, R53), bans, blocks and removals, renames."""
