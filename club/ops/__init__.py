"""Running the club: backup and restore, synthetic data for benchmarks, /health/.

Above the apps (it reads and writes all of them); nothing imports it but the
URLs and its own commands.
"""
