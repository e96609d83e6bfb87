"""Running the club: backup and restore, synthetic data for benchmarks, /health/.

Above the apps (it reads and writes all of them); nothing imports it but the
URLs, its own commands, and the venue (club/venue.py), which refuses the demo's login
(``club.ops.demo``, plain Python).
"""
