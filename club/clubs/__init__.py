"""The clubs a site holds: each with its name, its address, its languages and time zone,
and its organisers; the games and tournaments a club plays are its own (docs/clubs.md)."""
