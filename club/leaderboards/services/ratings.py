"""The players' ratings, kept in step with the finished games.

Ratings are sequential: each finished game moves its players' ratings from
where the games before it left them, in the order the games finished. A game
that finishes now is rated on top of the current ratings (the common case: a
few rows, whatever the history). A change to a game already rated (a
correction that changes its places, a game reopened or deleted) re-rates from
that game's position on, starting from the skill each player had just before
it (kept on every RatingChange), so the cost is the games since, not all the
club's games. ``rebuild_ratings`` recomputes everything from scratch; the tests
check that both ways give the same numbers. The teams' ratings follow
(club.leaderboards.team_ratings).

Each form of play (tables, points, kodi: club.games.words) is rated as a list of its
own beside the site's, by the same model from the games of that form alone, in the
same order and in the same pass: every rating change also holds the game's form and
the player's skill in that form after it, so a re-rating starts each form's list from
where it stood too (PlayerFormRating, which the federation's ranking of one form reads).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypedDict, cast

from django.db import transaction
from django.db.models import Count, Max, Q, Subquery
from django.utils import timezone

from club.games.models import PLAYER_FIELDS, Game, GameTeam
from club.games.words import KODI, POINTS, TABLES, form_named
from club.leaderboards import team_ratings
from club.leaderboards.models import PlayerFormRating, PlayerRating, RatingChange, RatingsState
from club.scoring import ratings

FORMS = (TABLES, POINTS, KODI)
# Players' skills by player id; and by form of play, then player id.
type Skills = dict[int, ratings.PlayerRating]
type FormSkills = dict[str, Skills]

if TYPE_CHECKING:  # django-stubs' own helper, for the type checker only
    from django_stubs_ext import WithAnnotations


class StateRead(TypedDict):
    """What :func:`lock_state` reads with the state: ``top``, the last position rated (None:
    no game rated), and ``rated_at``, the position of the game it was given (None: not
    rated; read only when a game is given)."""

    top: int | None
    rated_at: int | None


# The ratings' state as :func:`lock_state` returns it, with what it read.
type LockedState = WithAnnotations[RatingsState, StateRead]


def _rated(ids: list[int]) -> list[ratings.RatedGame]:
    """These finished games, in the order given, as the rating model reads them."""
    return _rated_in_forms(ids)[0]


def _rated_in_forms(ids: list[int]) -> tuple[list[ratings.RatedGame], dict[int, str]]:
    """These finished games, in the order given, as the rating model reads them, and
    each one's form of play (read with them)."""
    teams: dict[int, list[tuple[tuple[int, ...], int]]] = defaultdict(list)
    forms: dict[int, str] = {}
    for game_id, place, scoring, kodi, *players in (
        GameTeam.objects.filter(game_id__in=ids)
        .order_by("game_id", "position")
        .values_list(
            "game_id",
            "place",
            "game__scoring",
            "game__kodi",
            *(f"{name}_id" for name in PLAYER_FIELDS),
        )
    ):
        teams[game_id].append((tuple(p for p in players if p is not None), place))
        forms[game_id] = form_named(scoring, kodi)
    return [
        ratings.RatedGame(
            game=game_id,
            teams=[pair for pair, _ in teams[game_id]],
            places=[place or len(teams[game_id]) for _, place in teams[game_id]],
        )
        for game_id in ids
    ], forms


def rated_games() -> list[ratings.RatedGame]:
    """Finished games in the order they finished, as the rating model reads them."""
    return _rated(_finished_in_order())


def lock_state(game: Game | None = None) -> LockedState:
    """The ratings' state, locked: two games finishing at once each rate, in turn.

    Read with it, in the same statement: ``top``, the last position rated, and for
    ``game``, ``rated_at``, its position if it is rated.
    """
    read = {"top": Subquery(RatingChange.objects.order_by("-position").values("position")[:1])}
    if game is not None:
        read["rated_at"] = Subquery(
            RatingChange.objects.filter(game_id=game.pk).order_by().values("position")[:1]
        )
    locked = RatingsState.objects.select_for_update(of=("self",)).annotate(**read)
    state = locked.filter(pk=1).first()
    if state is None:
        RatingsState.objects.get_or_create(pk=1)
        state = locked.get(pk=1)
    # Annotated through **read, which the type checker's Django plugin cannot follow.
    return cast("LockedState", state)


def _stamp(state: RatingsState, games: int) -> None:
    """Note when the ratings were brought up to date, and how many games they count (each
    form's ratings with them: every way here keeps them)."""
    state.rebuilt_at = timezone.now()
    state.games = games
    state.forms_kept = True
    state.save(update_fields=["rebuilt_at", "games", "forms_kept"])


def _rated_before_forms(state: LockedState) -> bool:
    """Ratings kept before each form's were: they are rated again, every game, once."""
    return not state.forms_kept and state.top is not None


def _write_changes(
    games: list[ratings.RatedGame],
    forms: dict[int, str],
    start: Skills | None,
    form_start: FormSkills,
    base_position: int,
) -> tuple[Skills, FormSkills]:
    """Rate ``games`` from ``start`` (and each form's games from ``form_start``); store
    their changes from ``base_position`` on. Returns the ratings after them, the site's
    and each form's."""
    players, changes = ratings.rate_games(games, start=start)
    form_final, in_form = _rate_forms(games, forms, form_start)
    position = {game.game: base_position + index for index, game in enumerate(games)}
    for at in range(0, len(changes), 1000):  # a thousand rows' objects at a time
        RatingChange.objects.bulk_create(
            RatingChange(
                game_id=change.game,
                player_id=change.player,
                before=change.before,
                after=change.after,
                position=position[change.game],
                mu_after=change.mu_after,
                sigma_after=change.sigma_after,
                form=forms[change.game],
                form_mu_after=in_form[change.game, change.player].mu_after,
                form_sigma_after=in_form[change.game, change.player].sigma_after,
            )
            for change in changes[at : at + 1000]
        )
    return players, form_final


def _rate_forms(
    games: list[ratings.RatedGame], forms: dict[int, str], form_start: FormSkills
) -> tuple[FormSkills, dict[tuple[int, int], ratings.RatingChange]]:
    """Each form's games of ``games`` rated on their own, in order, from ``form_start``:
    each form's ratings after them, and each (game, player)'s change in its form."""
    form_final: FormSkills = {}
    in_form: dict[tuple[int, int], ratings.RatingChange] = {}
    for form in FORMS:
        of_form = [game for game in games if forms[game.game] == form]
        if of_form:
            form_final[form], changes = ratings.rate_games(
                of_form, start=form_start.get(form) or None
            )
            in_form.update(((change.game, change.player), change) for change in changes)
    return form_final, in_form


def keep_form_ratings(state: LockedState | None = None) -> None:
    """Rate each form of play from the games already rated, in their order, leaving the
    site's ratings as they are: once, on a site rated before each form's list was kept
    (an upgrade, or a backup restored: its files leave these columns out). ``state``: the
    ratings' state as the caller locked it, if it has."""
    state = state or lock_state()
    if not _rated_before_forms(state):
        return
    order = RatingChange.objects.order_by("position").values_list("game_id", flat=True)
    games, forms = _rated_in_forms(list(dict.fromkeys(order)))
    form_final, in_form = _rate_forms(games, forms, {})
    rows = list(RatingChange.objects.only("pk", "game_id", "player_id"))
    for row in rows:
        change = in_form.get((row.game_id, row.player_id))
        if change is None:  # a change of a seat the game no longer has: rate afresh
            rebuild_ratings()
            return
        row.form = forms[row.game_id]
        row.form_mu_after, row.form_sigma_after = change.mu_after, change.sigma_after
    RatingChange.objects.bulk_update(
        rows, ["form", "form_mu_after", "form_sigma_after"], batch_size=1000
    )
    PlayerFormRating.objects.all().delete()
    _save_form_ratings(form_final, set())
    state.forms_kept = True
    state.save(update_fields=["forms_kept"])


def _save_form_ratings(current: FormSkills, gone: set[int]) -> None:
    """Write each form's current rating of the players in ``current``; the players in
    ``gone`` have none in a form unless ``current`` gives them one."""
    dropped = [
        Q(form=form, player_id__in=gone - set(current.get(form, {})))
        for form in FORMS
        if gone - set(current.get(form, {}))
    ]
    if dropped:
        PlayerFormRating.objects.filter(Q(*dropped, _connector=Q.OR)).delete()
    PlayerFormRating.objects.bulk_create(
        (
            PlayerFormRating(
                player_id=rating.player,
                form=form,
                mu=rating.mu,
                sigma=rating.sigma,
                rating=rating.rating,
                games=rating.games,
            )
            for form, skills in current.items()
            for rating in skills.values()
        ),
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["player", "form"],
        update_fields=["mu", "sigma", "rating", "games"],
    )


def _save_ratings(final: dict[int, ratings.PlayerRating], gone: set[int]) -> None:
    """Write the current rating of the players in ``final``; players in ``gone`` have none.

    In place (an upsert): a game finishing writes its players' rows in one statement.
    """
    gone = gone - set(final)
    if gone:
        PlayerRating.objects.filter(player_id__in=gone).delete()
    PlayerRating.objects.bulk_create(
        (
            PlayerRating(
                player_id=rating.player,
                mu=rating.mu,
                sigma=rating.sigma,
                rating=rating.rating,
                games=rating.games,
            )
            for rating in final.values()
        ),
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["player"],
        update_fields=["mu", "sigma", "rating", "games"],
    )


@transaction.atomic
def rebuild_ratings() -> int:
    """Recompute every player's rating and history; returns the number of games rated."""
    state = lock_state()
    games, forms = _rated_in_forms(_finished_in_order())
    RatingChange.objects.all().delete()
    PlayerRating.objects.all().delete()
    PlayerFormRating.objects.all().delete()
    final, form_final = _write_changes(games, forms, None, {}, 0)
    _save_ratings(final, set())
    _save_form_ratings(form_final, set())
    _stamp(state, len(games))
    _after_ratings()
    return len(games)


def _after_ratings() -> None:
    """The teams' own ratings follow, every team's rated again from the finished games
    (a game rated last appends its teams instead: :func:`_rate_last`)."""
    team_ratings.rebuild()


def _states_before(position: int, players: set[int]) -> tuple[Skills, FormSkills] | None:
    """Each player's skill just before the game at ``position``, the site's and in each
    form of play they had played; None if it was not kept."""
    found: dict[tuple[int, str], tuple[int, int]] = {}  # (player, form): (last, games)
    for row in (
        RatingChange.objects.filter(player_id__in=players, position__lt=position)
        .values("player_id", "form")
        .annotate(last=Max("position"), games=Count("id"))
        .order_by()
    ):
        found[(row["player_id"], row["form"])] = (row["last"], row["games"])
    if not found:
        return {}, {}
    if any(not form for _, form in found):  # rows from before each form's was kept
        return None
    overall: dict[int, tuple[int, int]] = {}  # player: (last position, games)
    for (player, _form), (last, games) in found.items():
        before = overall.get(player, (-1, 0))
        overall[player] = (max(before[0], last), before[1] + games)
    pairs = {(player, last) for (player, _form), (last, _games) in found.items()}
    rows = {
        (change.player_id, change.position): change
        for change in RatingChange.objects.filter(
            Q(*[Q(player_id=p, position=pos) for p, pos in pairs], _connector=Q.OR)
        )
    }
    states: Skills = {}
    for player, (last, games) in overall.items():
        change = rows[player, last]
        if change.mu_after is None or change.sigma_after is None:
            return None
        states[player] = _skill(player, change.mu_after, change.sigma_after, games)
    forms: FormSkills = defaultdict(dict)
    for (player, form), (last, games) in found.items():
        change = rows[player, last]
        if change.form_mu_after is None or change.form_sigma_after is None:
            return None
        forms[form][player] = _skill(player, change.form_mu_after, change.form_sigma_after, games)
    return states, dict(forms)


def _skill(player: int, mu: float, sigma: float, games: int) -> ratings.PlayerRating:
    return ratings.PlayerRating(
        player=player, mu=mu, sigma=sigma, rating=ratings.displayed(mu, sigma), games=games
    )


def _finished_in_order(after: tuple | None = None) -> list[int]:
    """The finished games in the rating order, or only those after (``finished_at``, ``pk``).

    Only finished games have a ``finished_at``; the range on it walks the index
    ``game_finished_order`` (filtering on the status as well lets SQLite, which
    keeps no statistics, pick the status index and test every finished game).
    """
    if after is None:
        games = Game.objects.filter(status=Game.Status.FINISHED)
    else:
        finished_at, pk = after
        games = Game.objects.filter(
            Q(finished_at__gte=finished_at)
            & (Q(finished_at__gt=finished_at) | Q(finished_at=finished_at, pk__gt=pk))
        )
    return list(games.order_by("finished_at", "id").values_list("pk", flat=True))


def _next_position(state: LockedState) -> int:
    """The position after the last game rated (read with the locked state)."""
    return 0 if state.top is None else state.top + 1


def _position_for(state: LockedState, game: Game) -> int:
    """Where ``game`` goes in the rating order: before the first rated game finished after it."""
    later = _finished_in_order((game.finished_at, game.pk))
    if later:
        found = (
            RatingChange.objects.filter(game_id=later[0])
            .order_by()
            .values_list("position", flat=True)
            .first()
        )
        if found is not None:
            return found
    return _next_position(state)


def _rerate_from(
    state: RatingsState, position: int, changed: int | None, players: Iterable[int] = ()
) -> None:
    """Re-rate every finished game from ``position`` on in the order they finished.

    ``changed`` is the game whose change started it, if it is still rated at
    ``position``: when it rates the same as before (a correction that kept its
    places) nothing after it moves, and nothing is rewritten.
    """
    # The last game rated before ``position`` that is still rated (games deleted
    # together leave gaps): everything after it is rated again.
    kept = (
        RatingChange.objects.filter(position__lt=position)
        .order_by("-position")
        .values_list("game_id", "position")
        .first()
    )
    kept_game, position = (kept[0], kept[1] + 1) if kept else (None, 0)
    after = None
    if kept_game is not None:
        after = Game.objects.values_list("finished_at", "pk").get(pk=kept_game)
    todo, forms = _rated_in_forms(_finished_in_order(after))
    dropped = RatingChange.objects.filter(position__gte=position).order_by()
    affected = set(dropped.values_list("player_id", flat=True)) | set(players)
    affected |= {player for game in todo for team in game.teams for player in team}
    before = _states_before(position, affected)
    if before is None:  # rows from before skills were kept: rate everything afresh
        rebuild_ratings()
        return
    start, form_start = before
    if changed is not None and todo and todo[0].game == changed:
        old = {
            change.player_id: (change.mu_after, change.sigma_after)
            for change in RatingChange.objects.filter(game_id=changed, position=position)
        }
        _, changes = ratings.rate_games(todo[:1], start=start)
        if old == {change.player: (change.mu_after, change.sigma_after) for change in changes}:
            _stamp(state, state.games)
            return
    dropped.delete()
    final, form_final = _write_changes(todo, forms, start, form_start, position)
    current = {**{p: start[p] for p in affected if p in start}, **final}
    _save_ratings(current, affected - set(current))
    form_current = {
        form: {
            **{p: skill for p, skill in form_start.get(form, {}).items() if p in affected},
            **form_final.get(form, {}),
        }
        for form in FORMS
    }
    _save_form_ratings(form_current, affected)
    _stamp(state, position + len(todo))
    _after_ratings()


def _append(state: LockedState, game: Game) -> bool:
    """Rate ``game`` on top of the current ratings if it is the last game to finish.

    The common case, a game finishing on the night: a few rows, whatever the
    club's history. False (nothing done) when a game finished after it.
    """
    if _finished_in_order((game.finished_at, game.pk)):
        return False
    _rate_last(state, [game.pk])
    return True


def _rate_last(state: LockedState, ids: list[int]) -> None:
    """Rate these games, the last to finish, in this order, on top of the current
    ratings, and their teams on top of theirs."""
    rated, forms = _rated_in_forms(ids)
    players = {player for game in rated for team in game.teams for player in team}
    start = {
        found.player_id: _skill(found.player_id, found.mu, found.sigma, found.games)
        for found in PlayerRating.objects.filter(player_id__in=players)
    }
    form_start: FormSkills = defaultdict(dict)
    for found in PlayerFormRating.objects.filter(
        player_id__in=players, form__in={forms[game.game] for game in rated}
    ):
        form_start[found.form][found.player_id] = _skill(
            found.player_id, found.mu, found.sigma, found.games
        )
    position = _next_position(state)
    final, form_final = _write_changes(rated, forms, start, form_start, position)
    _save_ratings(final, set())
    _save_form_ratings(form_final, set())
    _stamp(state, position + len(rated))
    team_ratings.append_many(ids)


@transaction.atomic(savepoint=False)  # inside the deal's transaction: fails with it
def rate_game(game: Game) -> None:
    """Bring the ratings up to date after a change to ``game`` (finished now or before)."""
    state = lock_state(game)
    keep_form_ratings(state)
    rated_at = state.rated_at
    finished = game.status == Game.Status.FINISHED and game.finished_at is not None
    if finished and rated_at is None and _append(state, game):
        return
    positions = [] if rated_at is None else [rated_at]
    if finished:
        positions.append(_position_for(state, game))
    if not positions:
        _stamp(state, state.games)
        return
    position = min(positions)
    _rerate_from(state, position, game.pk if rated_at == position else None)


@transaction.atomic(savepoint=False)
def rate_written(games: Iterable[Game]) -> None:
    """Rate games written together (an import), none of them rated before: every finished
    game from the first place any of them takes, in one pass."""
    finished = [
        game
        for game in games
        if game.status == Game.Status.FINISHED and game.finished_at is not None
    ]
    if not finished:
        return
    state = lock_state()
    keep_form_ratings(state)
    first = min(finished, key=lambda game: (game.finished_at, game.pk))
    # Where the first of them goes: before the first game rated already that finished
    # after it (the others of them are not rated yet), else after the last one rated.
    position = (
        RatingChange.objects.filter(
            Q(game__finished_at__gt=first.finished_at)
            | Q(game__finished_at=first.finished_at, game_id__gt=first.pk)
        )
        .order_by("position")
        .values_list("position", flat=True)
        .first()
    )
    if position is not None:  # games finished after theirs: rated again from there
        _rerate_from(state, position, None)
        return
    # The usual import: every game of it finished after the last one rated. Rated on top
    # of the current ratings, as a game finishing on the night is (_append), all at once.
    _rate_last(
        state, [game.pk for game in sorted(finished, key=lambda game: (game.finished_at, game.pk))]
    )


@transaction.atomic
def unrate_deleted_game(position: int, players: Iterable[int]) -> None:
    """A rated game was deleted (its rows went with it): re-rate the games after it.

    ``players`` sat at it: their ratings go back to before it.
    """
    state = lock_state()
    keep_form_ratings(state)
    _rerate_from(state, position, None, players)


def rate_owed(state: LockedState, games: dict[int, Game]) -> None:
    """Bring the ratings up to date after changes to these games, owed until now.

    One game (the deal that ended it) is rated as it would have been at once. Several
    are rated again together from the first place any of them held or now takes: one
    at a time, an earlier one's row could name a game no longer finished.
    """
    keep_form_ratings(state)
    if len(games) == 1:
        rate_game(next(iter(games.values())))
    elif games:
        positions = list(
            RatingChange.objects.filter(game_id__in=games).values_list("position", flat=True)
        )
        positions += [
            _position_for(state, game)
            for game in games.values()
            if game.status == Game.Status.FINISHED and game.finished_at is not None
        ]
        if positions:
            _rerate_from(state, min(positions), None)
        else:
            _stamp(state, state.games)
