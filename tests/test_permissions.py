"""Who may do what, for every URL the app serves.

The table below has a rule for every named URL; the first test fails when a
view is added without one. Roles: anonymous, a player (logged in, not an
organiser), an organiser (staff), an admin (superuser), and a scorer link for
this game, for another game, or withdrawn.
"""

import copy
import datetime
from dataclasses import replace

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from club.competitions.models import Competition
from club.competitions.services import Terms, save_competition
from club.games.calls import answer_call, call_director
from club.games.links import issue_links, revoke_link
from club.games.models import Change, DirectorCall, Game, Player, Round, ScorerLink, Team
from club.games.services import Deal, end_game, load_seating, record_deal
from club.scoring import seasons
from club.tournaments import services as tournaments
from club.tournaments import substitutions
from club.tournaments.checkin import captain_key
from club.tournaments.models import (
    Sitting,
    Stage,
    Substitution,
    Tournament,
    TournamentEvent,
    TournamentTeam,
)
from tests.factories import deal_form, start_game

PUBLIC = "public"  # anyone may read it
ORGANISER = "organiser"  # staff only; everyone else is sent to log in and nothing changes
SCORER = "scorer"  # whoever holds a working scorer link of the game
SIGNED_IN = "signed in"  # any logged-in account
CAPTAIN = "captain"  # whoever holds a team's captain link (its printed card)
ANYONE = "anyone"  # the language choice, by a post (Django's) or a get (the pages' own)
ADMINISTRATOR = "administrator"  # the site's administrators (staff): a new club

# url name -> (rule, methods, kwargs key); the kwargs come from the world below.
RULES = {
    "health": (PUBLIC, ["get"], None),
    "service_worker": (PUBLIC, ["get"], None),
    "manifest": (PUBLIC, ["get"], None),
    "offline": (PUBLIC, ["get"], None),
    "set_language": (ANYONE, ["post"], None),
    "choose_language": (ANYONE, ["get"], None),
    "login": (PUBLIC, ["get"], None),
    "logout": (SIGNED_IN, [], None),
    "password_change": (SIGNED_IN, ["get"], None),
    "password_change_done": (SIGNED_IN, ["get"], None),
    "site_home": (PUBLIC, ["get"], None),
    "clubs": (PUBLIC, ["get"], None),
    "club_new": (ADMINISTRATOR, ["get", "post"], None),
    "ranking": (PUBLIC, ["get"], None),
    "club_backup": (ORGANISER, ["get", "post"], None),
    "games:list": (PUBLIC, ["get"], None),
    "games:rules": (PUBLIC, ["get"], None),
    "games:new": (ORGANISER, ["get", "post"], None),
    "games:detail": (PUBLIC, ["get"], "game"),
    # The pictures of the public pages' link previews (club.web.preview), as public as they.
    "games:preview": (PUBLIC, ["get"], "game"),
    "tournaments:preview": (PUBLIC, ["get"], "tournament"),
    "tournaments:sitting_preview": (PUBLIC, ["get"], "sitting"),
    "leaderboards:player_preview": (PUBLIC, ["get"], "player"),
    "competitions:preview": (PUBLIC, ["get"], "competition"),
    "circuits:preview": (PUBLIC, ["get"], "circuit"),
    "games:record": (ORGANISER, ["post"], "game"),
    "games:edit": (ORGANISER, ["get", "post"], "deal"),
    "games:undo": (ORGANISER, ["post"], "game"),
    "games:end": (ORGANISER, ["post"], "game"),
    "games:waiting_confirm": (ORGANISER, ["post"], "deal"),
    "games:waiting_reject": (ORGANISER, ["post"], "deal"),
    "games:connect": (ORGANISER, ["get"], None),
    "games:links": (ORGANISER, ["get", "post"], "game"),
    "games:links_print": (ORGANISER, ["get"], "game"),
    "games:link_revoke": (ORGANISER, ["post"], "link"),
    "games:sheet": (PUBLIC, ["get"], "game"),
    "tournaments:sitting_sheets": (PUBLIC, ["get"], "sitting"),
    "games:scorer": (SCORER, ["get"], "token"),
    "games:scorer_send": (SCORER, ["post"], "token"),
    "games:scorer_confirm": (SCORER, ["post"], "token_deal"),
    "games:scorer_reject": (SCORER, ["post"], "token_deal"),
    # A table's call for the director, through its link; the organisers answer it.
    "games:scorer_table": (SCORER, ["get"], "token"),
    "games:scorer_call": (SCORER, ["post"], "token"),
    "games:scorer_call_withdraw": (SCORER, ["post"], "token"),
    "games:calls": (ORGANISER, ["get"], None),
    "games:call_answer": (ORGANISER, ["post"], "call"),
    "tournaments:list": (PUBLIC, ["get"], None),
    "tournaments:new": (ORGANISER, ["get", "post"], None),
    "tournaments:detail": (PUBLIC, ["get"], "tournament"),
    "tournaments:live": (PUBLIC, ["get"], "tournament"),
    "tournaments:embed": (PUBLIC, ["get"], "tournament"),
    "games:embed": (PUBLIC, ["get"], "game"),
    "tournaments:projector": (PUBLIC, ["get"], "tournament"),
    "tournaments:board": (ORGANISER, ["get"], "tournament"),
    "tournaments:check_in": (ORGANISER, ["post"], "entry"),
    "tournaments:check_in_setting": (ORGANISER, ["post"], "tournament"),
    "tournaments:team_cards": (ORGANISER, ["get"], "tournament"),
    "tournaments:new_captain_key": (ORGANISER, ["post"], "entry"),
    "tournaments:captain": (CAPTAIN, ["get", "post"], "captain"),
    "tournaments:register": (ORGANISER, ["post"], "tournament"),
    "tournaments:register_list": (ORGANISER, ["post"], "tournament"),
    "tournaments:team_edit": (ORGANISER, ["get", "post"], "entry"),
    "tournaments:team_withdraw": (ORGANISER, ["post"], "entry"),
    "tournaments:team_reinstate": (ORGANISER, ["post"], "entry"),
    "tournaments:team_players": (ORGANISER, ["get", "post"], "entry"),
    "tournaments:player_back": (ORGANISER, ["post"], "substitution"),
    "tournaments:substitution_undo": (ORGANISER, ["post"], "substitution"),
    "tournaments:draw": (ORGANISER, ["post"], "tournament"),
    "tournaments:finish": (ORGANISER, ["post"], "tournament"),
    "tournaments:final": (ORGANISER, ["post"], "tournament"),
    "tournaments:reopen": (ORGANISER, ["post"], "tournament"),
    "tournaments:sitting": (PUBLIC, ["get"], "sitting"),
    "tournaments:adjust": (ORGANISER, ["post"], "sitting"),
    "tournaments:confirm": (ORGANISER, ["post"], "sitting"),
    "tournaments:discard": (ORGANISER, ["post"], "sitting"),
    "tournaments:call_time": (ORGANISER, ["post"], "sitting"),
    "tournaments:sitting_clock": (ORGANISER, ["post"], "sitting"),
    "tournaments:sitting_links": (ORGANISER, ["post"], "sitting"),
    "tournaments:sitting_links_print": (ORGANISER, ["get"], "sitting"),
    "archive:export_json": (PUBLIC, ["get"], "tournament"),
    "archive:standings_csv": (PUBLIC, ["get"], "tournament"),
    "archive:games_csv": (PUBLIC, ["get"], "tournament"),
    "archive:deals_csv": (PUBLIC, ["get"], "tournament"),
    "archive:games_json": (ORGANISER, ["get"], None),
    "archive:roster_json": (ORGANISER, ["get"], None),
    "archive:import": (ORGANISER, ["get", "post"], None),
    "archive:import_store": (ORGANISER, ["post"], None),
    "archive:import_progress": (ORGANISER, ["get"], None),
    "tournaments:print_standings": (PUBLIC, ["get"], "tournament"),
    "competitions:list": (PUBLIC, ["get"], None),
    "competitions:new": (ORGANISER, ["get", "post"], None),
    "competitions:detail": (PUBLIC, ["get"], "competition"),
    "competitions:edit": (ORGANISER, ["get", "post"], "competition"),
    "competitions:delete": (ORGANISER, ["post"], "competition"),
    "competitions:print": (PUBLIC, ["get"], "competition"),
    "competitions:projector": (PUBLIC, ["get"], "competition"),
    "competitions:line": (PUBLIC, ["get"], "competition_line"),
    # The federation's circuits: written by the site's administrators (staff) only.
    "circuits:list": (PUBLIC, ["get"], None),
    "circuits:new": (ORGANISER, ["get", "post"], None),
    "circuits:detail": (PUBLIC, ["get"], "circuit"),
    "circuits:edit": (ORGANISER, ["get", "post"], "circuit"),
    "circuits:delete": (ORGANISER, ["post"], "circuit"),
    "circuits:print": (PUBLIC, ["get"], "circuit"),
    "circuits:projector": (PUBLIC, ["get"], "circuit"),
    "circuits:line": (PUBLIC, ["get"], "circuit_line"),
    "tournaments:stage_add": (ORGANISER, ["post"], "tournament"),
    "tournaments:seats": (PUBLIC, ["get"], "tournament"),
    "tournaments:player": (PUBLIC, ["get"], "tournament_player"),
    "tournaments:stage": (PUBLIC, ["get"], "stage"),
    "tournaments:stage_groups": (ORGANISER, ["post"], "stage"),
    "tournaments:stage_seeds": (ORGANISER, ["post"], "stage"),
    "tournaments:stage_redraw": (ORGANISER, ["post"], "stage"),
    "tournaments:stage_confirm": (ORGANISER, ["post"], "stage"),
    "tournaments:stage_discard": (ORGANISER, ["post"], "stage"),
    "leaderboards:players": (PUBLIC, ["get"], None),
    "leaderboards:player_new": (ORGANISER, ["get", "post"], None),
    "leaderboards:merge": (ORGANISER, ["get", "post"], None),
    "leaderboards:import": (ORGANISER, ["get", "post"], None),
    "leaderboards:player": (PUBLIC, ["get"], "player"),
    "leaderboards:player_edit": (ORGANISER, ["get", "post"], "player"),
    "leaderboards:player_active": (ORGANISER, ["post"], "player"),
    "leaderboards:boards": (PUBLIC, ["get"], None),
    "leaderboards:player_board": (PUBLIC, ["get"], None),
    "leaderboards:team_board": (PUBLIC, ["get"], None),
    # The read-only API (club/api): GET only, what the public pages show.
    "api:index": (PUBLIC, ["get"], None),
    "api:api-root": (PUBLIC, ["get"], None),
    "api:openapi-json": (PUBLIC, ["get"], None),
    "api:openapi-view": (PUBLIC, ["get"], None),
    "api:games": (PUBLIC, ["get"], None),
    "api:game": (PUBLIC, ["get"], "game"),
    "api:tournaments": (PUBLIC, ["get"], None),
    "api:tournament": (PUBLIC, ["get"], "tournament"),
    "api:players": (PUBLIC, ["get"], None),
    "api:player": (PUBLIC, ["get"], "player"),
    "api:team": (PUBLIC, ["get"], "team"),
    "api:player_board": (PUBLIC, ["get"], None),
    "api:team_board": (PUBLIC, ["get"], None),
    "api:ranking": (PUBLIC, ["get"], None),
    "api:competitions": (PUBLIC, ["get"], None),
    "api:competition": (PUBLIC, ["get"], "competition"),
}


def url_names(patterns=None, namespace=None):
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                continue  # Django's admin has its own staff check
            yield from url_names(pattern.url_patterns, pattern.namespace or namespace)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}:{pattern.name}" if namespace else pattern.name


def test_every_url_has_a_rule():
    assert set(url_names()) == set(RULES), "give every new URL a rule in RULES"


def build_world() -> dict:
    """A tournament with a confirmed sitting and a proposed one, games, deals and links."""
    tournament = tournaments.create_tournament(name="Onam cup", starts_on=datetime.date(2026, 9, 1))
    for first, second in [("Anu", "Biju"), ("Chitra", "Dev"), ("Esha", "Farid"), ("Gita", "Hari")]:
        tournaments.register_team(tournament=tournament, first=first, second=second)
    sitting = tournaments.propose_sitting(tournament=tournament)
    tournaments.confirm_sitting(sitting=sitting)
    game, other = [entry.game for entry in sitting.games.order_by("position")]
    record_deal(
        game=game,
        number=1,
        entry=Deal(points={0: 30, 1: 26}, declarer=0, bid=28, trump="clubs"),  # seat 0
    )
    [link] = issue_links(game=game)
    [other_link] = issue_links(game=other)
    # The table calls the director, with a reason; the other table's earlier call answered.
    call, _made = call_director(game=game, link=link, reason="misdeal")
    answer_call(call=call_director(game=other, link=other_link)[0])
    withdrawn = issue_links(game=start_game(2, label="Withdrawn link game"))[0]
    revoke_link(link=withdrawn)
    # A knockout stage drawn for after the sitting, not yet confirmed.
    stage = Stage.objects.create(
        tournament=tournament,
        number=1,
        kind=Stage.Kind.KNOCKOUT,
        seeds=list(tournament.entries.values_list("id", flat=True)),
        tie_deals=2,
    )
    # A substitute named for the next sitting, not yet played with.
    first = tournament.entries.order_by("pk").first()
    substitution = substitutions.substitute(
        entry=first, player_out=first.team.first_player, player_in="Zara"
    )
    season, circuit = _competitions(tournament)
    return {
        "season": season,
        "circuit": circuit,
        "substitution": substitution,
        "stage": stage,
        "tournament": tournament,
        "sitting": sitting,
        "game": game,
        "other": other,
        "link": link,
        "other_link": other_link,
        "withdrawn": withdrawn,
        "player": Player.objects.get(name="Anu"),
        "call": call,
    }


def _finished_cup():
    """A short tournament played and finished: its one game ended level by time called."""
    cup = tournaments.create_tournament(name="Short cup", starts_on=datetime.date(2026, 9, 2))
    for first, second in [("Indu", "Jacob"), ("Kavya", "Latif")]:
        tournaments.register_team(tournament=cup, first=first, second=second)
    sitting = tournaments.propose_sitting(tournament=cup)
    tournaments.confirm_sitting(sitting=sitting)
    tournaments.call_time(sitting=sitting)
    return tournaments.finish_tournament(tournament=cup)


def _competitions(tournament):
    """A season of the club counting a finished game of its own, and a circuit of a
    finished tournament: each has a line to show."""
    end_game(game=start_game(2, label="A season's game"))
    cup = _finished_cup()
    terms = Terms(
        name="Season",
        starts_on=datetime.date(2026, 1, 1),
        ends_on=datetime.date(2026, 12, 31),
        counts=Competition.Counts.ALL,
        ranks=Competition.Ranks.TEAMS,
        method=seasons.PLACES,
        place_points=(3, 1),
    )
    season = save_competition(club=tournament.club, terms=terms)
    circuit = save_competition(
        club=None,
        terms=replace(terms, name="Circuit", counts=Competition.Counts.EVENTS),
        events=[tournament, cup],
    )
    return season, circuit


@pytest.fixture(scope="module")
def world_kept(django_db_setup, django_db_blocker):
    """The world, made once for a module's tests in a transaction of its own, as Django's
    setUpTestData makes a class's: each test runs in a savepoint inside it, rolled back to
    the world as it was made; the whole is rolled back after the module's last test. Made
    for each of the table's 400 tests, it took a fifth of the suite's time on PostgreSQL."""
    with django_db_blocker.unblock():
        kept = transaction.atomic()
        kept.__enter__()
        made = build_world()
    yield made
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        kept.__exit__(None, None, None)


@pytest.fixture
def world(db, world_kept):
    """The world as it was made (a test's writes are rolled back, its objects copied)."""
    return copy.deepcopy(world_kept)


@pytest.fixture
def fresh_world(db):
    """The world made for this test alone: for a test whose database is emptied after it
    (``transaction=True``, a live server), where no transaction can hold a world between
    tests."""
    return build_world()


def _team(name: str) -> int:
    return Team.objects.get(name=name).pk


def kwargs_for(key, world):
    return {
        None: {},
        "game": {"pk": world["game"].pk},
        "deal": {"pk": world["game"].pk, "number": 1},
        "link": {"pk": world["game"].pk, "link_pk": world["link"].pk},
        "sitting": {"pk": world["tournament"].pk, "number": world["sitting"].number},
        "tournament": {"pk": world["tournament"].pk},
        "stage": {"pk": world["tournament"].pk, "number": world["stage"].number},
        "tournament_player": {"pk": world["tournament"].pk, "player": world["player"].pk},
        "entry": {"pk": world["tournament"].pk, "entry": world["tournament"].entries.first().pk},
        "substitution": {
            "pk": world["tournament"].pk,
            "entry": world["substitution"].entry_id,
            "substitution": world["substitution"].pk,
        },
        "player": {"pk": world["player"].pk},
        "team": {"pk": world["game"].teams.first().team_id},
        "token": {"token": world["link"].token},
        "call": {"pk": world["call"].pk},
        "captain": {"key": captain_key(world["tournament"].entries.order_by("pk").first())},
        "token_deal": {"token": world["link"].token, "number": 2},
        "competition": {"pk": world["season"].pk},
        "competition_line": {"pk": world["season"].pk, "line": _team("Anu & Biju")},
        "circuit": {"pk": world["circuit"].pk},
        "circuit_line": {"pk": world["circuit"].pk, "line": _team("Indu & Jacob")},
    }[key]


def fingerprint():
    """What a refused request must leave exactly as it was."""
    return (
        Round.objects.count(),
        Change.objects.count(),
        Game.objects.count(),
        list(Game.objects.order_by("pk").values_list("status", "deals_played")),
        Tournament.objects.values_list("status", "is_final").get(name="Onam cup"),
        Sitting.objects.count(),
        list(Stage.objects.values_list("status", "seeds", "groups", "chart")),
        TournamentEvent.objects.count(),
        list(TournamentTeam.objects.order_by("pk").values_list("team_id", "withdrawn_at")),
        list(Player.objects.order_by("pk").values_list("name", "active")),
        ScorerLink.objects.filter(revoked_at__isnull=True).count(),
        list(Substitution.objects.order_by("pk").values_list("player_in", "returned_from")),
        list(Competition.objects.order_by("pk").values_list("name", "best", "updated_at")),
        list(
            DirectorCall.objects.order_by("pk").values_list("reason", "answered_at", "withdrawn_at")
        ),
        list(Sitting.objects.order_by("pk").values_list("minutes", "ends_at")),
    )


@pytest.fixture
def clients(client, django_user_model, world):
    from django.test import Client

    def signed_in(**flags):
        user = django_user_model.objects.create_user(
            username="_".join(flags) or "player", password="pw-for-tests", **flags
        )
        browser = Client()
        browser.force_login(user)
        return browser

    return {
        "anonymous": client,
        "player": signed_in(),
        "organiser": signed_in(is_staff=True),
        "admin": signed_in(is_staff=True, is_superuser=True),
    }


def organiser_urls():
    return [
        (name, method)
        for name, (rule, methods, _) in RULES.items()
        if rule == ORGANISER
        for method in methods
    ]


def public_urls():
    return [name for name, (rule, _, _) in RULES.items() if rule == PUBLIC]


@pytest.mark.parametrize("name", public_urls())
@pytest.mark.parametrize("role", ["anonymous", "player", "organiser", "admin"])
def test_public_pages_are_read_by_everyone(name, role, world, clients):
    url = reverse(name, kwargs=kwargs_for(RULES[name][2], world))
    response = clients[role].get(url)
    assert response.status_code == 200, (name, role)


@pytest.mark.parametrize(("name", "method"), organiser_urls())
@pytest.mark.parametrize("role", ["anonymous", "player"])
def test_organiser_pages_refuse_everyone_else_and_change_nothing(
    name, method, role, world, clients
):
    url = reverse(name, kwargs=kwargs_for(RULES[name][2], world))
    before = fingerprint()
    response = getattr(clients[role], method)(url)
    assert response.status_code in (302, 403), (name, role)
    if response.status_code == 302:
        assert response["Location"].startswith(reverse("login")), (name, role)
    assert fingerprint() == before


@pytest.mark.parametrize(("name", "method"), organiser_urls())
@pytest.mark.parametrize("role", ["organiser", "admin"])
def test_organisers_are_let_in(name, method, role, world, clients):
    url = reverse(name, kwargs=kwargs_for(RULES[name][2], world))
    response = getattr(clients[role], method)(url)
    assert response.status_code in (200, 302), (name, role, response.status_code)
    if response.status_code == 302:
        assert not response["Location"].startswith(reverse("login")), (name, role)


@pytest.mark.parametrize("name", ["password_change", "password_change_done"])
def test_account_pages_need_a_login(name, world, clients):
    assert clients["anonymous"].get(reverse(name)).status_code == 302
    assert clients["player"].get(reverse(name)).status_code == 200


def test_the_admin_is_for_organisers_only(world, clients):
    assert clients["anonymous"].get("/admin/").status_code == 302
    assert clients["player"].get("/admin/").status_code == 302
    assert clients["organiser"].get("/admin/").status_code == 200


def deal_post(number, declarer):
    return deal_form(number, declarer.pk, 28, "clubs", p0=30, p1=26)


def test_a_scorer_link_works_for_its_own_game_only(world, client):
    game, other = world["game"], world["other"]
    assert client.get(reverse("games:scorer", args=[world["link"].token])).status_code == 200
    # The other game's link records on the other game, whatever it is sent: no URL of a
    # scorer link names a game, so it cannot reach this one.
    other_declarer = load_seating(other).players[0]
    response = client.post(
        reverse("games:scorer_send", args=[world["other_link"].token]), deal_post(1, other_declarer)
    )
    assert response.status_code in (200, 302)
    assert other.rounds.count() == 1
    assert game.rounds.count() == 1  # still only the deal recorded in the world
    # A declarer of this game sent through the other game's link is refused there.
    declarer = load_seating(game).players[0]
    before = fingerprint()
    client.post(
        reverse("games:scorer_send", args=[world["other_link"].token]), deal_post(2, declarer)
    )
    assert fingerprint() == before


def test_a_withdrawn_or_unknown_link_is_refused_and_changes_nothing(world, client):
    before = fingerprint()
    withdrawn = world["withdrawn"].token
    assert client.get(reverse("games:scorer", args=[withdrawn])).status_code == 403
    assert client.post(reverse("games:scorer_send", args=[withdrawn]), {}).status_code == 403
    assert client.get(reverse("games:scorer", args=["no-such-link"])).status_code == 404
    assert client.post(reverse("games:scorer_send", args=["no-such-link"]), {}).status_code == 404
    assert fingerprint() == before


def test_a_link_cannot_be_withdrawn_through_another_game(world, clients):
    url = reverse(
        "games:link_revoke", kwargs={"pk": world["game"].pk, "link_pk": world["other_link"].pk}
    )
    assert clients["organiser"].post(url).status_code == 404
    world["other_link"].refresh_from_db()
    assert world["other_link"].revoked_at is None


@pytest.mark.parametrize("role", ["anonymous", "player", "organiser"])
def test_anyone_may_choose_the_language(role, world, clients):
    response = clients[role].post(reverse("set_language"), {"language": "ml", "next": "/"})
    assert response.status_code == 302
    assert response.cookies["django_language"].value == "ml"
    # The footer's switch, a plain GET with no token (club.web.language), does the same,
    # and goes back only to a page of this site.
    response = clients[role].get(reverse("choose_language"), {"language": "th", "next": "/rules/"})
    assert response.status_code == 302 and response["Location"] == "/rules/"
    assert response.cookies["django_language"].value == "th"
    away = clients[role].get(
        reverse("choose_language"), {"language": "xx", "next": "https://evil.example/"}
    )
    assert away["Location"] == "/" and "django_language" not in away.cookies


def every_row():
    """How many rows each table of the app holds (sessions and login throttling aside)."""
    from django.apps import apps

    return {
        model._meta.label: model._default_manager.count()
        for model in apps.get_models()
        if model._meta.app_label not in {"sessions", "axes"}
    }


def every_url(world):
    for name, (_rule, _methods, key) in RULES.items():
        yield name, reverse(name, kwargs=kwargs_for(key, world))
    yield "withdrawn link", reverse("games:scorer_send", args=[world["withdrawn"].token])
    yield "unknown link", reverse("games:scorer_send", args=["no-such-link"])
    yield "long path", "/games/" + "9" * 600 + "/deals/"
    yield "longer path", "/" + "x" * 2000 + "/"


@pytest.mark.parametrize("role", ["anonymous", "player", "no csrf token", "csrf cookie only"])
def test_posts_with_a_one_time_key_from_anyone_who_may_not_write_store_nothing(
    role, world, clients
):
    """The one-time key is kept only for a write that passed CSRF and the permission check."""
    import uuid

    from django.test import Client

    from club.games.models import SubmittedForm

    if role == "no csrf token":
        browser = Client(enforce_csrf_checks=True)
    elif role == "csrf cookie only":
        browser = Client(enforce_csrf_checks=True)
        # Any page not kept for everyone sets the CSRF cookie (a kept page has no form token).
        browser.get(reverse("leaderboards:players"))
        assert "csrftoken" in browser.cookies
    else:
        browser = clients[role]
    before = every_row()
    for name, url in every_url(world):
        if name in ("set_language", "logout") or RULES.get(name, (SCORER,))[0] in (SCORER, CAPTAIN):
            continue  # anyone may post these; the scorer link is covered below
        response = browser.post(url, {"idempotency_key": str(uuid.uuid4()), "label": "x"})
        assert response.status_code < 500, (name, role, response.status_code)
    assert not SubmittedForm.objects.exists()
    assert every_row() == before


def test_posts_through_dead_scorer_links_store_nothing(world, client):
    import uuid

    from club.games.models import SubmittedForm

    before = every_row()
    for url in (
        reverse("games:scorer_send", args=[world["withdrawn"].token]),
        reverse("games:scorer_send", args=["no-such-link"]),
        reverse("games:scorer_confirm", args=["x" * 600, 1]),
        reverse("games:scorer_call", args=[world["withdrawn"].token]),
        reverse("games:scorer_call_withdraw", args=["no-such-link"]),
    ):
        response = client.post(url, {"idempotency_key": str(uuid.uuid4())})
        assert response.status_code in (403, 404), url
    assert not SubmittedForm.objects.exists()
    assert every_row() == before


def test_an_organisers_post_to_a_very_long_path_is_not_found(world, clients):
    import uuid

    from club.games.models import SubmittedForm

    for url in ("/games/" + "9" * 600 + "/deals/", "/" + "x" * 2000 + "/"):
        response = clients["organiser"].post(url, {"idempotency_key": str(uuid.uuid4())})
        assert response.status_code == 404
    assert not SubmittedForm.objects.exists()
