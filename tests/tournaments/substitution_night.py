"""One night of the 56 International, six teams of three, worked out by hand: a late team
and a substitution. The browser test plays it on phones (tests/browser/
test_substitution_night.py); tests/tournaments/test_substitution_night.py plays the same
night through the services on both databases. Both check the results against the figures
below, worked out here from docs/rules.md, never read back from the app.

The night (the 56 International preset: two teams of three, a points sheet; each game is
one deal, then the director calls time):

- Sitting 1: the Panthers are late, not checked in: left out of the draw, no game, no bye,
  nothing scored. Five teams: Tuskers v Lions, Cobras v Eagles, the Sharks sit out (a bye).
- Before sitting 2, Sunil sits in for Biju of the Tuskers (the tournament's one
  substitution a team). Sitting 2: Tuskers (Anu, Sunil, Chitra) v Panthers, Lions v
  Cobras, Eagles v Sharks.
- Before sitting 3, Biju is back. Sitting 3: Tuskers (Anu, Biju, Chitra) v Eagles, Lions v
  Sharks, Cobras v Panthers.

A points sheet scores a made contract the band's "made" figure for the declaring team
(docs/rules.md section D): bids 28-39 score 1, 40-47 score 2, 48-55 score 3. Every deal below
is made, so the declaring team wins its game by that many points. Tournament points (the
default scheme): 3 for a win, 1 for a loss; a bye and an absence score nothing.

    sitting 1: Tuskers 2-0 Lions (Anu 40), Eagles 1-0 Cobras (Jacob 28), Sharks bye
    sitting 2: Tuskers 1-0 Panthers (Sunil 28), Lions 3-0 Cobras (Dev 48),
               Sharks 1-0 Eagles (Meena 28)
    sitting 3: Tuskers 1-0 Eagles (Biju 28), Sharks 1-0 Lions (Nikhil 28),
               Panthers 2-0 Cobras (Prakash 40)

    team      points       games won  score difference
    Tuskers   3+3+3 = 9    3     3    +2+1+1 = +4
    Sharks    0+3+3 = 6    2     2    +1+1   = +2      (the bye scores nothing)
    Lions     1+3+1 = 5    3     1    -2+3-1 =  0
    Eagles    3+1+1 = 5    3     1    +1-1-1 = -1
    Panthers  0+1+3 = 4    2     1    -1+2   = +1      (absent from sitting 1)
    Cobras    1+1+1 = 3    3     0    -1-3-2 = -6

Places: by points, then games won, then score difference: Tuskers, Sharks, Lions (5, 1,
0) before Eagles (5, 1, -1), Panthers, Cobras.

The team's standing counts its three games whoever sat; each player is credited with the
games they sat in: Anu and Chitra 3 (3 won), Biju 2 (sittings 1 and 3, 2 won, declared
and made 1), Sunil 1 (sitting 2: won, declared and made 1); the points their team scored
while they sat are theirs: Anu 2+1+1 = 4, Biju 2+1 = 3, Sunil 1. Ratings likewise: Biju is
rated for 2 games, Sunil for 1, the Tuskers as a team for 3.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from club.scoring import rules as core

NAME = "Onam International"
TEAMS = {
    "Tuskers": ("Anu", "Biju", "Chitra"),
    "Lions": ("Dev", "Esha", "Farid"),
    "Cobras": ("Gita", "Hari", "Indu"),
    "Eagles": ("Jacob", "Kavya", "Latif"),
    "Sharks": ("Meena", "Nikhil", "Omana"),
    "Panthers": ("Prakash", "Qadir", "Radhika"),
}
LATE = "Panthers"  # not checked in for sitting 1
SUBSTITUTE = ("Tuskers", "Biju", "Sunil")  # team, player out, substitute: sitting 2 only


@dataclass(frozen=True)
class Game:
    """A game of a sitting: its teams in seat order, and its one deal: the declarer (a
    player of ``winner``), the bid, and the card points the declaring team took."""

    teams: tuple[str, str]
    winner: str
    declarer: str
    bid: int
    taken: int

    def piles(self) -> dict[int, int]:
        ours = self.teams.index(self.winner)
        return {ours: self.taken, 1 - ours: 56 - self.taken}


SITTINGS = [
    {
        "present": ["Tuskers", "Lions", "Cobras", "Eagles", "Sharks"],
        "games": [
            Game(("Tuskers", "Lions"), "Tuskers", "Anu", 40, 44),
            Game(("Cobras", "Eagles"), "Eagles", "Jacob", 28, 30),
        ],
        "byes": ["Sharks"],
    },
    {
        "present": list(TEAMS),
        "games": [
            Game(("Tuskers", "Panthers"), "Tuskers", "Sunil", 28, 30),
            Game(("Lions", "Cobras"), "Lions", "Dev", 48, 50),
            Game(("Eagles", "Sharks"), "Sharks", "Meena", 28, 30),
        ],
        "byes": [],
    },
    {
        "present": list(TEAMS),
        "games": [
            Game(("Tuskers", "Eagles"), "Tuskers", "Biju", 28, 30),
            Game(("Lions", "Sharks"), "Sharks", "Nikhil", 28, 30),
            Game(("Cobras", "Panthers"), "Panthers", "Prakash", 40, 42),
        ],
        "byes": [],
    },
]

# (place, team, tournament points, games, won, score difference, byes), from the docstring.
STANDINGS = [
    (1, "Tuskers", 9, 3, 3, 4, 0),
    (2, "Sharks", 6, 2, 2, 2, 1),
    (3, "Lions", 5, 3, 1, 0, 0),
    (4, "Eagles", 5, 3, 1, -1, 0),
    (5, "Panthers", 4, 2, 1, 1, 0),
    (6, "Cobras", 3, 3, 0, -6, 0),
]
# Who sat for the Tuskers in each sitting.
TUSKERS_SAT = [["Anu", "Biju", "Chitra"], ["Anu", "Sunil", "Chitra"], ["Anu", "Biju", "Chitra"]]
# A player's (played, won, declared, made) over the night.
PLAYERS = {
    "Anu": (3, 3, 1, 1),
    "Biju": (2, 2, 1, 1),
    "Chitra": (3, 3, 0, 0),
    "Sunil": (1, 1, 1, 1),
    "Prakash": (2, 1, 1, 1),
    "Meena": (2, 2, 1, 1),
    "Qadir": (2, 1, 0, 0),
}
# A player's points for and against on the night's points sheets: the games' scores.
POINTS = {"Anu": (4, 0), "Biju": (3, 0), "Sunil": (1, 0), "Prakash": (2, 1), "Meena": (2, 0)}
RATED_GAMES = {"Anu": 3, "Biju": 2, "Sunil": 1, "Prakash": 2}


def register():
    """The tournament and its six teams, registered before the night, asking for check-in."""
    from club.tournaments import services

    tournament = services.create_tournament(
        name=NAME,
        starts_on=datetime.date(2026, 12, 5),
        rules=core.preset_rules(core.Preset.INTERNATIONAL),
        check_in=True,
    )
    for name, (first, second, third) in TEAMS.items():
        services.register_team(
            tournament=tournament, first=first, second=second, third=third, name=name
        )
    return tournament
