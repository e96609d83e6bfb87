"""Load test of a tournament night against gunicorn; see loadtest/run.py."""
