"""The backup's format stays what each version wrote: every table of the club is in it, and
the columns of each version are pinned here, so a change to a backed-up model fails
until ``backup_format.VERSION`` is raised and the older versions are still read.
"""

from __future__ import annotations

from django.apps import apps

from club.ops import backup_format
from tests.ops.backup_helpers import User

# --- the format stays what version 1 says ----------------------------------------


def test_every_table_of_the_club_is_in_the_backup():
    club_models = {
        model
        for app in ("clubs", "games", "tournaments", "competitions", "leaderboards")
        for model in apps.get_app_config(app).get_models(include_auto_created=True)
    }
    backed_up = {model for _key, model in backup_format.TABLES}
    left_out = {
        model for model in club_models if model._meta.label_lower in backup_format.NOT_BACKED_UP
    }
    assert club_models - backed_up - left_out == set()
    assert User in backed_up
    # A club's organisers are its own table (the many-to-many's), of logins.
    assert apps.get_model("clubs", "Club").organisers.through in backed_up


def test_the_columns_of_each_version_are_pinned():
    # A model change fails this test: bump backup_format.VERSION, keep reading the older versions.
    assert backup_format.VERSION == 12
    assert backup_format.READABLE_VERSIONS == {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
    assert backup_format.columns(1) == VERSION_1_COLUMNS
    assert backup_format.columns(2) == VERSION_2_COLUMNS
    assert backup_format.columns(3) == VERSION_3_COLUMNS
    assert backup_format.columns(4) == VERSION_4_COLUMNS
    assert backup_format.columns(5) == VERSION_5_COLUMNS
    assert backup_format.columns(6) == VERSION_6_COLUMNS
    assert backup_format.columns(7) == VERSION_7_COLUMNS
    assert backup_format.columns(8) == VERSION_8_COLUMNS
    assert backup_format.columns(9) == VERSION_9_COLUMNS
    assert backup_format.columns(10) == VERSION_10_COLUMNS
    assert backup_format.columns(11) == VERSION_11_COLUMNS
    assert backup_format.columns() == backup_format.columns(12) == VERSION_12_COLUMNS


def test_the_clubs_come_before_what_they_hold():
    """A restore writes the tables in the format's order: a club before its organisers,
    games, tournaments and members; a login before the clubs it organises; a player
    before the clubs they are a member of."""
    order = [key for key, _model in backup_format.TABLES]
    assert order[:6] == [
        "auth.user",
        "clubs.club",
        "clubs.club_organisers",
        "games.player",
        "games.playeralias",
        "games.membership",
    ]
    assert order.index("clubs.club") < order.index("games.game")
    assert order.index("clubs.club") < order.index("tournaments.tournament")
    assert [key for key, _model in backup_format.tables_of(9)] == [
        key
        for key in order
        if not key.startswith(("clubs.", "competitions."))
        and key not in ("games.membership", "games.directorcall")
    ]


def test_the_competitions_come_after_the_clubs_and_tournaments_they_count():
    """A competition is a club's (or a circuit, no club's) and counts tournaments, perhaps of
    several clubs: its rows, then the tournaments each counts, after all of those."""
    order = [key for key, _model in backup_format.TABLES]
    competition = order.index("competitions.competition")
    assert order.index("competitions.competition_events") == competition + 1
    assert competition > order.index("tournaments.tournament")
    assert competition > order.index("clubs.club") and competition > order.index("auth.user")
    assert [key for key, _model in backup_format.tables_of(10)] == [
        key for key in order if not key.startswith("competitions.") and key != "games.directorcall"
    ]


def test_the_calls_for_the_director_come_after_the_games_links_and_logins_they_name():
    """Version 12's table of calls names a game, the scorer link it was made through and
    the organiser who answered it: a restore writes it after all three."""
    order = [key for key, _model in backup_format.TABLES]
    calls = order.index("games.directorcall")
    assert calls > order.index("games.game")
    assert calls > order.index("games.scorerlink")
    assert calls > order.index("auth.user")
    assert "games.directorcall" not in dict(backup_format.tables_of(11))
    assert "games.directorcall" in dict(backup_format.tables_of(12))


VERSION_1_COLUMNS = {
    "auth.user": [
        "id",
        "username",
        "first_name",
        "last_name",
        "email",
        "is_staff",
        "is_superuser",
        "is_active",
        "password",
        "date_joined",
        "last_login",
    ],
    "games.player": ["id", "name", "nickname", "member_number", "active", "created_at"],
    "games.team": ["id", "name", "first_player", "second_player"],
    "games.game": [
        "id",
        "label",
        "status",
        "first_dealer_seat",
        "tables_per_team",
        "payout_bands",
        "double_factor",
        "redouble_factor",
        "deal_limit",
        "ended_early",
        "require_confirmation",
        "results_locked",
        "deals_played",
        "finished_at",
        "dealer_seat",
        "winner",
        "created_at",
        "updated_at",
        "created_by",
    ],
    "games.gameteam": [
        "id",
        "game",
        "team",
        "position",
        "first_player",
        "second_player",
        "tables",
        "place",
        "out_in_deal",
    ],
    "games.round": [
        "id",
        "game",
        "number",
        "all_pass",
        "declarer",
        "bid",
        "trump",
        "doubling",
        "dealer",
        "declaring_team",
        "made",
        "recorded_at",
        "recorded_by",
    ],
    "games.pile": ["id", "round", "game_team", "points"],
    "games.ledgerentry": ["id", "round", "game_team", "change", "balance"],
    "games.scorerlink": [
        "id",
        "game",
        "game_team",
        "token",
        "created_at",
        "created_by",
        "revoked_at",
    ],
    "games.change": [
        "id",
        "game",
        "number",
        "action",
        "before",
        "after",
        "made_by",
        "scorer_link",
        "made_at",
    ],
    "games.pendingdeal": ["id", "game", "number", "entry", "sent_by", "sent_at"],
    "tournaments.tournament": [
        "id",
        "name",
        "starts_on",
        "ends_on",
        "venue",
        "status",
        "is_final",
        "tables_per_team",
        "payout_bands",
        "double_factor",
        "redouble_factor",
        "deal_limit",
        "points_scheme",
        "require_confirmation",
        "results_version",
        "created_at",
        "created_by",
    ],
    "tournaments.tournamentteam": ["id", "tournament", "team", "registered_at"],
    "tournaments.sitting": [
        "id",
        "tournament",
        "number",
        "status",
        "game_size",
        "proposal",
        "proposed_byes",
        "created_at",
        "confirmed_at",
    ],
    "tournaments.sittinggame": ["id", "sitting", "game", "table_label", "position"],
    "tournaments.bye": ["id", "sitting", "entry"],
    "tournaments.standing": [
        "id",
        "tournament",
        "entry",
        "place",
        "shared",
        "points",
        "games",
        "won",
        "net_tables",
        "declared",
        "made",
        "byes",
    ],
    "tournaments.tournamentevent": [
        "id",
        "tournament",
        "action",
        "sitting_number",
        "note",
        "made_by",
        "made_at",
    ],
    "leaderboards.playerrating": ["id", "player", "mu", "sigma", "rating", "games"],
    "leaderboards.ratingchange": ["id", "game", "player", "before", "after", "position"],
    "leaderboards.ratingsstate": ["id", "rebuilt_at", "games"],
}

VERSION_2_COLUMNS = {
    **VERSION_1_COLUMNS,
    "leaderboards.ratingchange": [
        "id",
        "game",
        "player",
        "before",
        "after",
        "position",
        "mu_after",
        "sigma_after",
    ],
}

# Version 3 signs the manifest, and keeps when a scorer link expired.
VERSION_3_COLUMNS = {
    **VERSION_2_COLUMNS,
    "games.scorerlink": [*VERSION_2_COLUMNS["games.scorerlink"], "expired_at"],
}

# Version 4 keeps the forms clubs play: settings, teams of three and four, thani rounds.
FORM_OF_PLAY = [
    "team_size",
    "scoring",
    "doubling_mode",
    "all_pass",
    "kodi",
    "thani_made",
    "thani_failed",
    "small_deck",
]


def _after(columns, name, added):
    at = columns.index(name) + 1
    return [*columns[:at], *added, *columns[at:]]


VERSION_4_COLUMNS = {
    **VERSION_3_COLUMNS,
    "games.game": _after(VERSION_3_COLUMNS["games.game"], "redouble_factor", FORM_OF_PLAY),
    "tournaments.tournament": _after(
        VERSION_3_COLUMNS["tournaments.tournament"], "redouble_factor", FORM_OF_PLAY
    ),
    "games.team": [*VERSION_3_COLUMNS["games.team"], "third_player", "fourth_player"],
    "games.gameteam": [
        *_after(
            VERSION_3_COLUMNS["games.gameteam"], "second_player", ["third_player", "fourth_player"]
        ),
        "score",
        "kodis",
    ],
    "games.round": _after(VERSION_3_COLUMNS["games.round"], "recorded_at", ["thani"]),
}
VERSION_5_COLUMNS = {
    **VERSION_4_COLUMNS,
    "tournaments.standing": _after(
        VERSION_4_COLUMNS["tournaments.standing"], "net_tables", ["score_difference"]
    ),
    "tournaments.tournamentteam": [
        *VERSION_4_COLUMNS["tournaments.tournamentteam"],
        "withdrawn_at",
    ],
}


VERSION_6_COLUMNS = {
    **{
        key: columns
        for key, columns in VERSION_5_COLUMNS.items()
        if not key.startswith("tournaments.sitting")
    },
    "games.game": _after(VERSION_5_COLUMNS["games.game"], "deal_limit", ["tie_deals"]),
    "games.change": _after(VERSION_5_COLUMNS["games.change"], "scorer_link", ["note"]),
    "games.pendingdeal": [
        *VERSION_5_COLUMNS["games.pendingdeal"],
        "counter_entry",
        "counter_by",
        "counter_at",
    ],
    "games.rejecteddeal": [
        "id",
        "game",
        "number",
        "entry",
        "sent_by",
        "reason",
        "rejected_by_link",
        "rejected_by",
        "rejected_at",
    ],
    "tournaments.stage": [
        "id",
        "tournament",
        "number",
        "kind",
        "status",
        "deal_limit",
        "tie_deals",
        "groups",
        "chart",
        "seeds",
        "created_at",
        "confirmed_at",
    ],
    "tournaments.sitting": _after(VERSION_5_COLUMNS["tournaments.sitting"], "number", ["stage"]),
    "tournaments.sittinggame": VERSION_5_COLUMNS["tournaments.sittinggame"],
    "tournaments.tournamentevent": _after(
        VERSION_5_COLUMNS["tournaments.tournamentevent"], "sitting_number", ["stage_number"]
    ),
}


VERSION_7_COLUMNS = {
    **VERSION_6_COLUMNS,
    "tournaments.tournament": _after(
        VERSION_6_COLUMNS["tournaments.tournament"], "require_confirmation", ["check_in"]
    ),
    "tournaments.tournamentteam": [
        *VERSION_6_COLUMNS["tournaments.tournamentteam"],
        "captain_key",
        "captain",
    ],
    "tournaments.checkin": ["id", "entry", "number", "at", "by", "by_captain"],
    "tournaments.sitting": _after(
        VERSION_6_COLUMNS["tournaments.sitting"], "proposed_byes", ["absent"]
    ),
}


VERSION_8_COLUMNS = {
    **VERSION_7_COLUMNS,
    "tournaments.tournament": _after(
        VERSION_7_COLUMNS["tournaments.tournament"], "check_in", ["substitutions"]
    ),
    "tournaments.substitution": [
        "id",
        "entry",
        "player_out",
        "player_in",
        "first_sitting",
        "returned_from",
        "made_by",
        "made_at",
    ],
}


# Version 9 keeps each player's identifier and the identifiers merged records were known by.
VERSION_9_COLUMNS = {
    **VERSION_8_COLUMNS,
    "games.player": _after(VERSION_8_COLUMNS["games.player"], "member_number", ["identifier"]),
    "games.playeralias": ["id", "identifier", "player", "added_at"],
}


# Version 10 keeps the site's clubs, their organisers (logins, by user name) and their
# players, and the club of each game and tournament.
VERSION_10_COLUMNS = {
    **VERSION_9_COLUMNS,
    "clubs.club": ["id", "name", "slug", "languages", "time_zone", "created_at"],
    "clubs.club_organisers": ["id", "club", "user"],
    "games.membership": ["id", "club", "player", "since"],
    "games.game": _after(VERSION_9_COLUMNS["games.game"], "id", ["club"]),
    "tournaments.tournament": _after(VERSION_9_COLUMNS["tournaments.tournament"], "id", ["club"]),
}


# Version 11 keeps the clubs' competitions and the federation's circuits (a competition
# of no club), and the tournaments each counts; never a table, which is made at each reading.
VERSION_11_COLUMNS = {
    **VERSION_10_COLUMNS,
    "competitions.competition": [
        "id",
        "club",
        "name",
        "starts_on",
        "ends_on",
        "counts",
        "form",
        "ranks",
        "method",
        "place_points",
        "best",
        "minimum",
        "final_within_days",
        "late_counts",
        "created_at",
        "updated_at",
        "created_by",
    ],
    "competitions.competition_events": ["id", "competition", "tournament"],
}


VERSION_12_COLUMNS = {
    **VERSION_11_COLUMNS,
    "tournaments.sitting": [
        *VERSION_11_COLUMNS["tournaments.sitting"],
        "explained",
        "minutes",
        "ends_at",
    ],
    # The tables' calls for the director (a table of its own).
    "games.directorcall": [
        "id",
        "game",
        "scorer_link",
        "reason",
        "made_at",
        "withdrawn_at",
        "answered_at",
        "answered_by",
        "changed_at",
    ],
}
