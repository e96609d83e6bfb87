"""The read-only JSON API under /api/v1/ (issue 16): what the public pages show, for software."""
