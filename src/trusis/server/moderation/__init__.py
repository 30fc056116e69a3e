"""What moderators give: sanctions (warnings, mutes, bans) and what they do to a player.
The rows (sanctions, staff roles, the audit log, reports) are in data/; the moderation
page's routes are in `api/moderation.py`."""
