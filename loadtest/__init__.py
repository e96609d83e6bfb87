"""Load test of a tournament night against gunicorn (issue 4, item 8); see loadtest/run.py."""
