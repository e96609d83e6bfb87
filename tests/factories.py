"""Factories for the club's records; games are started through the real service."""

import factory

from club.games.models import Player, Team
from club.games.services import TeamEntry, create_game


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Player {n}")


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team

    first_player = factory.SubFactory(PlayerFactory)
    second_player = factory.SubFactory(PlayerFactory)
    name = factory.LazyAttribute(lambda team: f"{team.first_player} & {team.second_player}")


PAIRS = [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari")]
_labels = iter(range(1, 10**9))


def start_game(teams: int = 2, *, first_dealer: int = 0, label: str | None = None, **kwargs):
    """A game of ``teams`` teams from Anu & Biju, Chitra & Dev, Esha & Farid, Gita & Hari."""
    return create_game(
        label=label or f"Test game {next(_labels)}",
        teams=[TeamEntry(*pair) for pair in PAIRS[:teams]],
        first_dealer=first_dealer,
        **kwargs,
    )
