"""The read-only JSON API under /api/v1/: what the public pages show, for software."""
