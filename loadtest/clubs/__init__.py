"""Two clubs' nights at once on two app servers, under chaos: ``python -m loadtest.clubs``
(its ``__main__`` says what it does)."""
