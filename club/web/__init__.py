"""What every app's web side shares: who may write, form fields and widgets.

Imports nothing of the apps but the rules core (club.scoring, plain Python):
the apps import it, never the other way round.
"""
