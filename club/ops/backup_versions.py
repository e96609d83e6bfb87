"""The backup format's history: what each older version lacks, so that a restore can read
the backups still in the clubs' cupboards (club.ops.backup writes the current version)."""

from __future__ import annotations

from club.games.models import FORM_OF_PLAY_FIELDS

# Columns each older version lacks, by table. Version 2 keeps each rating
# change's skill estimate (mu, sigma after the game); a version 1 backup
# restores without them and its ratings are recomputed from the games.
# Version 3 keeps when a scorer link expired (its game ended); a link of an
# older backup restores without, as the migration that added it left them.
# Version 4 keeps the forms clubs play (docs/rules.md section D): a game's and a
# tournament's settings, teams of three and four, thani rounds, each team's
# points and kodis; an older backup's rows take the columns' defaults, which
# are today's game, as its migration gave the rows it found.
_FORMS_OF_PLAY = {
    "games.game": FORM_OF_PLAY_FIELDS,
    "tournaments.tournament": FORM_OF_PLAY_FIELDS,
    "games.team": ("third_player", "fourth_player"),
    "games.gameteam": ("third_player", "fourth_player", "score", "kodis"),
    "games.round": ("thani",),
}
# Version 5 keeps a standing's score difference (a points tournament's tie-break)
# and when a team withdrew from a tournament; an older backup's standings are
# rebuilt from the games on restore where it counts, and its teams are all in.
_VERSION_5 = {
    "tournaments.standing": ("score_difference",),
    "tournaments.tournamentteam": ("withdrawn_at",),
}
# Version 6 keeps a tournament's stages (a table of its own), the stage each
# sitting was drawn in, a knockout game's tie rule and the stage an event of a
# tournament's history concerns; an older backup has no stages, so its
# sittings are Swiss sittings and its games have no tie rule, as they were.
# Version 6 also keeps why a deal was rejected (a change's note), a deal both
# teams sent differently (the waiting deal's other entry) and the rejected
# deal kept for the phone that sent it (a table of its own).
_VERSION_6 = {
    "games.game": ("tie_deals",),
    "games.change": ("note",),
    "games.pendingdeal": ("counter_entry", "counter_by", "counter_at"),
    "tournaments.sitting": ("stage",),
    "tournaments.tournamentevent": ("stage_number",),
}


# Version 7 keeps each registered team's captain (an older backup's teams have their
# first player as captain, as the migration that added captains gave them), whether a
# tournament asks teams to check in, each sitting's teams left out for not checking in,
# and the check-ins (a table of its own); an older backup's tournaments ask for none.
_VERSION_7 = {
    "tournaments.tournamentteam": ("captain_key", "captain"),
    "tournaments.tournament": ("check_in",),
    "tournaments.sitting": ("absent",),
}


# Version 8 keeps how many substitutions a tournament allows a team, and the substitutions
# (a table of its own); an older backup's tournaments allow one, the default, and made none.
_VERSION_8 = {"tournaments.tournament": ("substitutions",)}


# Version 9 keeps each player's identifier, which travels with their results, and the
# identifiers merged records were known by (a table of its own); an older backup's players
# are given new identifiers on restore, as the migration that added them gave them.
_VERSION_9 = {"games.player": ("identifier",)}


# Version 10 keeps the site's clubs, their organisers and their players (tables of their
# own) and the club of each game and tournament; an older backup is of a site of one club:
# its games and tournaments are the home club's and its players its members, as the
# migration that added clubs made them (club/games/migrations/0017_into_home_club.py).
_VERSION_10 = {"games.game": ("club",), "tournaments.tournament": ("club",)}


# Version 11 keeps the clubs' competitions and the federation's circuits, and the
# tournaments each counts (tables of their own); it changes no column of an older table, so
# a version 10 backup lacks nothing but those tables, and restores with no competition.


# Version 12 keeps how each sitting was drawn and its clock (the length the director set,
# when time is up), and the tables' calls for the director (a table of its own); an older
# backup's sittings restore with no explanation and no clock, and no call.
_VERSION_12 = {"tournaments.sitting": ("explained", "minutes", "ends_at")}


def _joined(older: dict, *later_versions: dict) -> dict:
    """The columns an older version lacks, joined with the later versions' (one table may
    lack several)."""
    joined = dict(older)
    for later in later_versions:
        for table, names in later.items():
            joined[table] = (*joined.get(table, ()), *names)
    return joined


def _before_6(older: dict) -> dict:
    return _joined(older, _VERSION_6, _VERSION_7, _VERSION_8, _VERSION_9, _VERSION_10, _VERSION_12)


MISSING_IN = {
    1: _before_6(
        {
            "leaderboards.ratingchange": ("mu_after", "sigma_after"),
            "games.scorerlink": ("expired_at",),
            **_FORMS_OF_PLAY,
            **_VERSION_5,
        }
    ),
    2: _before_6({"games.scorerlink": ("expired_at",), **_FORMS_OF_PLAY, **_VERSION_5}),
    3: _before_6({**_FORMS_OF_PLAY, **_VERSION_5}),
    4: _before_6(_VERSION_5),
    5: _before_6({}),
    6: _joined(_VERSION_7, _VERSION_8, _VERSION_9, _VERSION_10, _VERSION_12),
    7: _joined(_VERSION_8, _VERSION_9, _VERSION_10, _VERSION_12),
    8: _joined(_VERSION_9, _VERSION_10, _VERSION_12),
    9: _joined(_VERSION_10, _VERSION_12),
    10: dict(_VERSION_12),
    11: dict(_VERSION_12),
}
# Tables a backup holds from the version named on: an older one restores them empty.
TABLE_SINCE = {
    "tournaments.stage": 6,
    "games.rejecteddeal": 6,
    "tournaments.checkin": 7,
    "tournaments.substitution": 8,
    "games.playeralias": 9,
    "clubs.club": 10,
    "clubs.club_organisers": 10,
    "games.membership": 10,
    "competitions.competition": 11,
    "competitions.competition_events": 11,
    "games.directorcall": 12,
}
# The tables of the clubs: a file without them is of a site of one club, the home club.
CLUBS_SINCE = TABLE_SINCE["clubs.club"]
