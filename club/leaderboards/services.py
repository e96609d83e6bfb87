"""Writes for the club register and the ratings.

Terms
-----
*register*: the club's players (name, nickname, member number, active or not).
*merge*: two records of the same person become one; the *kept* record takes
every seat, declaration and deal of the *folded* one, which is then deleted.
*ratings*: rebuilt from scratch from every finished game, so a correction
never drifts.

Every write runs in one transaction and raises :class:`RegisterError` with a
message an organiser understands; nothing is saved then.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from club.games.models import (
    PLAYER_FIELDS,
    Game,
    GameTeam,
    Player,
)
from club.leaderboards import figures, team_ratings
from club.leaderboards.models import (
    OwedGame,
    PlayerGameFigures,
    PlayerRating,
    RatingChange,
    RatingsState,
)
from club.scoring import names, ratings
from club.scoring.messages import Refusal
from club.web.uploads import size_text

NAME_MAX = Player._meta.get_field("name").max_length
NICKNAME_MAX = Player._meta.get_field("nickname").max_length
MEMBER_NUMBER_MAX = Player._meta.get_field("member_number").max_length


class RegisterError(Refusal):
    """A register write refused; ``field`` names the input at fault."""


def _clean(text: str | None, field: str = "name") -> str:
    try:
        return names.clean_name(text or "")
    except names.UnusableName as error:
        raise RegisterError(error.translated(_), field=field) from None


def name_taken(name: str) -> str:
    return _("There is already a player called %(name)s.") % {"name": name}


def member_number_taken(number: str, holder: str) -> str:
    return _("Member number %(number)s already belongs to %(name)s.") % {
        "number": number,
        "name": holder,
    }


def _check_player(
    *, name: str, nickname: str, member_number: str, player: Player | None = None
) -> None:
    if not name:
        raise RegisterError(_("Give the player a name."), field="name")
    if len(name) > NAME_MAX:
        raise RegisterError(
            _("A name can be at most %(max)d characters.") % {"max": NAME_MAX}, field="name"
        )
    if len(nickname) > NICKNAME_MAX:
        raise RegisterError(
            _("A nickname can be at most %(max)d characters.") % {"max": NICKNAME_MAX},
            field="nickname",
        )
    if len(member_number) > MEMBER_NUMBER_MAX:
        raise RegisterError(
            _("A member number can be at most %(max)d characters.") % {"max": MEMBER_NUMBER_MAX},
            field="member_number",
        )
    others = Player.objects.exclude(pk=player.pk) if player else Player.objects.all()
    clash = others.filter(name__iexact=name).first()
    if clash:
        raise RegisterError(name_taken(clash.name), field="name")
    if member_number:
        holder = others.filter(member_number=member_number).first()
        if holder:
            raise RegisterError(
                member_number_taken(member_number, holder.name), field="member_number"
            )


def _save(player: Player) -> Player:
    try:
        # A savepoint, so a clash with a player added at the same moment leaves
        # the surrounding transaction usable.
        with transaction.atomic():
            player.save()
    except IntegrityError as error:
        raise RegisterError(
            _("The player could not be saved: the name or member number was taken just now."),
            field="name",
        ) from error
    return player


@transaction.atomic
def register_player(
    *, name: str, nickname: str = "", member_number: str = "", active: bool = True
) -> Player:
    """Add a player to the register. Names are unique ignoring case; member numbers when given."""
    name, nickname, member_number = _clean(name), _clean(nickname), _clean(member_number)
    _check_player(name=name, nickname=nickname, member_number=member_number)
    return _save(Player(name=name, nickname=nickname, member_number=member_number, active=active))


@transaction.atomic
def update_player(
    *,
    player: Player,
    name: str,
    nickname: str = "",
    member_number: str = "",
    active: bool = True,
) -> Player:
    """Change a player's details; past games show the new name."""
    name, nickname, member_number = _clean(name), _clean(nickname), _clean(member_number)
    player = Player.objects.select_for_update().get(pk=player.pk)
    _check_player(name=name, nickname=nickname, member_number=member_number, player=player)
    player.name, player.nickname, player.member_number, player.active = (
        name,
        nickname,
        member_number,
        active,
    )
    return _save(player)


@transaction.atomic
def set_player_active(*, player: Player, active: bool) -> Player:
    """Mark a player active or inactive; an inactive player keeps every result."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    player.active = active
    player.save(update_fields=["active"])
    return player


# --- Merging ----------------------------------------------------------------


# --- Importing --------------------------------------------------------------

COLUMNS = ("name", "nickname", "member_number", "active")
TRUE_WORDS = {"1", "yes", "y", "true", "t", "active"}
FALSE_WORDS = {"0", "no", "n", "false", "f", "inactive"}
# A register of 5,000 players (a federation) is about 200 KB. The import page stops a
# larger file while it is read (forms.ImportForm); the command reads it, then refuses.
MAX_IMPORT_BYTES = 1_000_000


@dataclass(frozen=True)
class ImportFault:
    row: int | None  # the line of the file, the header being row 1
    column: str | None
    message: str

    def __str__(self) -> str:
        if self.row and self.column:
            return _("Row %(row)d, column %(column)s: %(message)s") % {
                "row": self.row,
                "column": self.column,
                "message": self.message,
            }
        if self.row:
            return _("Row %(row)d: %(message)s") % {"row": self.row, "message": self.message}
        return self.message


class PlayerImportError(RegisterError):
    """Every fault found in an import file; nothing was saved."""

    def __init__(self, faults: list[ImportFault]):
        self.faults = faults
        super().__init__("\n".join(str(fault) for fault in faults), field="file")


@dataclass
class ImportResult:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def _read_rows(data: bytes | str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if isinstance(data, bytes):
        if len(data) > MAX_IMPORT_BYTES:
            raise PlayerImportError(
                [
                    ImportFault(
                        None,
                        None,
                        _("The file is too large (at most %(most)s).")
                        % {"most": size_text(MAX_IMPORT_BYTES)},
                    )
                ]
            )
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise PlayerImportError(
                [ImportFault(None, None, _("The file is not UTF-8 text; save it as CSV UTF-8."))]
            ) from error
    else:
        text = data.removeprefix("\ufeff")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        lines = [(reader.line_num, row) for row in reader]
    except csv.Error as error:
        raise PlayerImportError(
            [ImportFault(reader.line_num, None, _("The CSV cannot be read: %(e)s") % {"e": error})]
        ) from error
    lines = [(number, row) for number, row in lines if any(cell.strip() for cell in row)]
    if not lines:
        raise PlayerImportError(
            [ImportFault(None, None, _("The file is empty: it needs a header row and players."))]
        )
    header, rows = lines[0][1], lines[1:]
    return [cell.strip().lower().replace(" ", "_") for cell in header], rows


def _parse_active(value: str) -> bool | None:
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(word)


@transaction.atomic
def import_players(data: bytes | str) -> ImportResult:
    """Add or update players from CSV text with a header row.

    Columns: ``name`` (required), ``nickname``, ``member_number``, ``active``
    (yes/no, true/false, 1/0). A row matches an existing player by member
    number, else by name (ignoring case), and updates it; other rows add
    players. An empty cell leaves that detail as it is (a new player gets no
    nickname or number and is active). Every row is checked first; on any
    fault nothing is saved and :class:`PlayerImportError` lists each fault
    with its row and column.
    """
    header, rows = _read_rows(data)
    faults: list[ImportFault] = []
    unknown = [name for name in header if name not in COLUMNS]
    for name in unknown:
        faults.append(
            ImportFault(
                1,
                name or "?",
                _("Unknown column; the columns are %(columns)s.") % {"columns": ", ".join(COLUMNS)},
            )
        )
    for name in {n for n in header if header.count(n) > 1}:
        faults.append(ImportFault(1, name, _("This column appears twice.")))
    if "name" not in header:
        faults.append(ImportFault(1, "name", _("The header row needs a name column.")))
    if faults:
        raise PlayerImportError(faults)
    if not rows:
        raise PlayerImportError([ImportFault(None, None, _("The file has no players."))])

    existing = list(Player.objects.select_for_update().order_by("pk"))
    by_number = {p.member_number: p for p in existing if p.member_number}
    by_name = {p.name.lower(): p for p in existing}
    # What the register will hold after the import, to catch clashes among rows too.
    final_name: dict[int, str] = {p.pk: p.name.lower() for p in existing}
    final_number: dict[int, str] = {p.pk: p.member_number for p in existing if p.member_number}
    seen_names: dict[str, int] = {}
    seen_numbers: dict[str, int] = {}
    planned: list[tuple[int, Player | None, dict]] = []

    for line, cells in rows:
        if len(cells) > len(header):
            faults.append(
                ImportFault(
                    line,
                    None,
                    _("This row has %(cells)d cells but the header has %(columns)d columns.")
                    % {"cells": len(cells), "columns": len(header)},
                )
            )
            continue
        values = {
            column: names.normal_name(cells[i]) if i < len(cells) else ""
            for i, column in enumerate(header)
        }
        row_faults: list[ImportFault] = [
            ImportFault(
                line,
                column,
                _("This cell holds a control character (such as NUL) that cannot be stored."),
            )
            for column, value in values.items()
            if column in COLUMNS and names.unstorable(value)
        ]
        for column, value in values.items():
            if column in COLUMNS and not names.unstorable(value):
                try:
                    names.clean_name(value)
                except names.UnusableName as error:
                    row_faults.append(ImportFault(line, column, error.translated(_)))
        name = values.get("name", "")
        number = values.get("member_number", "")
        if not name:
            row_faults.append(ImportFault(line, "name", _("The name is missing.")))
        elif len(name) > NAME_MAX:
            row_faults.append(
                ImportFault(line, "name", _("At most %(max)d characters.") % {"max": NAME_MAX})
            )
        if len(values.get("nickname", "")) > NICKNAME_MAX:
            row_faults.append(
                ImportFault(
                    line, "nickname", _("At most %(max)d characters.") % {"max": NICKNAME_MAX}
                )
            )
        if len(number) > MEMBER_NUMBER_MAX:
            row_faults.append(
                ImportFault(
                    line,
                    "member_number",
                    _("At most %(max)d characters.") % {"max": MEMBER_NUMBER_MAX},
                )
            )
        active = None
        if values.get("active"):
            try:
                active = _parse_active(values["active"])
            except ValueError:
                row_faults.append(
                    ImportFault(
                        line,
                        "active",
                        _("“%(value)s” is not yes or no.") % {"value": values["active"]},
                    )
                )
        if name and name.lower() in seen_names:
            row_faults.append(
                ImportFault(
                    line,
                    "name",
                    _("%(name)s is already on row %(row)d.")
                    % {"name": name, "row": seen_names[name.lower()]},
                )
            )
        if number and number in seen_numbers:
            row_faults.append(
                ImportFault(
                    line,
                    "member_number",
                    _("Member number %(number)s is already on row %(row)d.")
                    % {"number": number, "row": seen_numbers[number]},
                )
            )
        if row_faults:
            faults.extend(row_faults)
            continue
        seen_names[name.lower()] = line
        if number:
            seen_numbers[number] = line
        player = by_number.get(number) if number else None
        player = player or by_name.get(name.lower())
        changes: dict = {"name": name}
        if values.get("nickname"):
            changes["nickname"] = values["nickname"]
        if number:
            changes["member_number"] = number
        if active is not None:
            changes["active"] = active
        key = player.pk if player else -line
        final_name[key] = name.lower()
        if number:
            final_number[key] = number
        planned.append((line, player, changes))

    # Clashes with players the file does not change (or changes elsewhere).
    for line, player, changes in planned:
        key = player.pk if player else -line
        name = changes["name"]
        if any(other != key and held == name.lower() for other, held in final_name.items()):
            faults.append(ImportFault(line, "name", name_taken(name)))
        number = changes.get("member_number")
        if number:
            holders = [
                other for other, held in final_number.items() if other != key and held == number
            ]
            if holders:
                holder = next((p.name for p in existing if p.pk in holders), number)
                faults.append(
                    ImportFault(line, "member_number", member_number_taken(number, holder))
                )
    if faults:
        raise PlayerImportError(sorted(faults, key=lambda f: (f.row or 0, f.column or "")))

    result = ImportResult()
    before = {p.pk: (p.name, p.nickname, p.member_number, p.active) for p in existing}
    # Two steps, so that swapping names or numbers between players never meets
    # the unique constraints half-way: clear what moves, then write.
    moving = [p for _, p, c in planned if p is not None]
    for player in moving:
        player.member_number = ""
        player.name = f"~import~{player.pk}"
    Player.objects.bulk_update(moving, ["name", "member_number"])
    for _line, player, changes in planned:
        if player is None:
            created = Player.objects.create(**{"active": True, **changes})
            result.created.append(created.name)
            continue
        _name, nickname0, number0, active0 = before[player.pk]
        player.name = changes["name"]
        player.nickname = changes.get("nickname", nickname0)
        player.member_number = changes.get("member_number", number0)
        player.active = changes.get("active", active0)
        player.save(update_fields=["name", "nickname", "member_number", "active"])
        now = (player.name, player.nickname, player.member_number, player.active)
        (result.unchanged if now == before[player.pk] else result.updated).append(player.name)
    return result


# --- Ratings ----------------------------------------------------------------
#
# Ratings are sequential: each finished game moves its players' ratings from
# where the games before it left them, in the order the games finished. A game
# that finishes now is rated on top of the current ratings (the common case: a
# few rows, whatever the history). A change to a game already rated (a
# correction that changes its places, a game reopened or deleted) re-rates from
# that game's position on, starting from the skill each player had just before
# it (kept on every RatingChange), so the cost is the games since, not all the
# club's games. ``rebuild_ratings`` recomputes everything from scratch; the tests
# check that both ways give the same numbers.


def _rated(ids: list[int]) -> list[ratings.RatedGame]:
    """These finished games, in the order given, as the rating model reads them."""
    teams: dict[int, list[tuple[tuple[int, ...], int]]] = defaultdict(list)
    for game_id, place, *players in (
        GameTeam.objects.filter(game_id__in=ids)
        .order_by("game_id", "position")
        .values_list("game_id", "place", *(f"{name}_id" for name in PLAYER_FIELDS))
    ):
        teams[game_id].append((tuple(p for p in players if p is not None), place))
    return [
        ratings.RatedGame(
            game=game_id,
            teams=[pair for pair, _ in teams[game_id]],
            places=[place or len(teams[game_id]) for _, place in teams[game_id]],
        )
        for game_id in ids
    ]


def rated_games() -> list[ratings.RatedGame]:
    """Finished games in the order they finished, as the rating model reads them."""
    return _rated(_finished_in_order())


def _lock_state(game: Game | None = None) -> RatingsState:
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
    return state


def _stamp(state: RatingsState, games: int) -> None:
    state.rebuilt_at = timezone.now()
    state.games = games
    state.save(update_fields=["rebuilt_at", "games"])


def _write_changes(games, start, base_position: int):
    """Rate ``games`` from ``start``; store their changes from ``base_position`` on."""
    players, changes = ratings.rate_games(games, start=start)
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
            )
            for change in changes[at : at + 1000]
        )
    return players


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
    state = _lock_state()
    games = rated_games()
    RatingChange.objects.all().delete()
    PlayerRating.objects.all().delete()
    final = _write_changes(games, None, 0)
    _save_ratings(final, set())
    _stamp(state, len(games))
    _after_ratings()
    return len(games)


def _after_ratings() -> None:
    """The teams' own ratings follow, every team's rated again from the finished games
    (a game rated last appends its teams instead: :func:`_rate_last`)."""
    team_ratings.rebuild()


def _states_before(position: int, players: set[int]) -> dict[int, ratings.PlayerRating] | None:
    """Each player's skill just before the game at ``position``; None if it was not kept."""
    found = {}
    for row in (
        RatingChange.objects.filter(player_id__in=players, position__lt=position)
        .values("player_id")
        .annotate(last=Max("position"), games=Count("id"))
        .order_by()
    ):
        found[(row["player_id"], row["last"])] = row["games"]
    if not found:
        return {}
    states = {}
    for change in RatingChange.objects.filter(
        Q(*[Q(player_id=p, position=pos) for p, pos in found], _connector=Q.OR)
    ):
        if change.mu_after is None or change.sigma_after is None:
            return None
        states[change.player_id] = ratings.PlayerRating(
            player=change.player_id,
            mu=change.mu_after,
            sigma=change.sigma_after,
            rating=ratings.displayed(change.mu_after, change.sigma_after),
            games=found[(change.player_id, change.position)],
        )
    return states


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


def _next_position(state: RatingsState) -> int:
    """The position after the last game rated (read with the locked state)."""
    return 0 if state.top is None else state.top + 1


def _position_for(state: RatingsState, game: Game) -> int:
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
    todo = _rated(_finished_in_order(after))
    dropped = RatingChange.objects.filter(position__gte=position).order_by()
    affected = set(dropped.values_list("player_id", flat=True)) | set(players)
    affected |= {player for game in todo for team in game.teams for player in team}
    start = _states_before(position, affected)
    if start is None:  # rows from before skills were kept: rate everything afresh
        rebuild_ratings()
        return
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
    final = _write_changes(todo, start, position)
    current = {**{p: start[p] for p in affected if p in start}, **final}
    _save_ratings(current, affected - set(current))
    _stamp(state, position + len(todo))
    _after_ratings()


def _append(state: RatingsState, game: Game) -> bool:
    """Rate ``game`` on top of the current ratings if it is the last game to finish.

    The common case, a game finishing on the night: a few rows, whatever the
    club's history. False (nothing done) when a game finished after it.
    """
    if _finished_in_order((game.finished_at, game.pk)):
        return False
    _rate_last(state, [game.pk])
    return True


def _rate_last(state: RatingsState, ids: list[int]) -> None:
    """Rate these games, the last to finish, in this order, on top of the current
    ratings, and their teams on top of theirs."""
    rated = _rated(ids)
    players = {player for game in rated for team in game.teams for player in team}
    start = {
        found.player_id: ratings.PlayerRating(
            player=found.player_id,
            mu=found.mu,
            sigma=found.sigma,
            rating=found.rating,
            games=found.games,
        )
        for found in PlayerRating.objects.filter(player_id__in=players)
    }
    position = _next_position(state)
    _save_ratings(_write_changes(rated, start, position), set())
    _stamp(state, position + len(rated))
    team_ratings.append_many(ids)


@transaction.atomic(savepoint=False)  # inside the deal's transaction: fails with it
def rate_game(game: Game) -> None:
    """Bring the ratings up to date after a change to ``game`` (finished now or before)."""
    state = _lock_state(game)
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
    state = _lock_state()
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
    state = _lock_state()
    _rerate_from(state, position, None, players)


# --- Work owed to the boards (club.leaderboards.owed) ------------------------------


def catch_up() -> set[int]:
    """Do the work owed for every game that waits for it (owed.py); returns their ids.

    One query when nothing is owed. The ratings' lock makes two catch-ups (a worker
    after its answer, a reader in another) take turns: the second finds nothing left.
    One game owed (the deal that ended it) is rated as it would have been at once.
    Several are rated again together from the first place any of them held or now
    takes: one at a time, an earlier one's row could name a game no longer finished.
    """
    if not OwedGame.objects.exists():
        return set()
    with transaction.atomic():
        state = _lock_state()
        owed = list(OwedGame.objects.order_by("pk").values_list("pk", "game_id"))
        games = Game.objects.in_bulk([game for _pk, game in owed])
        counted = set(
            PlayerGameFigures.objects.filter(game_id__in=games)
            .values_list("game_id", flat=True)
            .distinct()
        )
        # Together, as an import's games are owed: their rows first, then their totals.
        fresh = [pk for pk in games if pk not in counted]
        if fresh:
            figures.refresh_games(fresh, had_rows=False)
        if counted:
            figures.refresh_games(sorted(counted))
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
        OwedGame.objects.filter(pk__in=[pk for pk, _game in owed]).delete()
    return {game for _pk, game in owed}
