"""Who a player is: guest and program identities, accounts and passwords, and names that cannot
pass for someone else's."""
