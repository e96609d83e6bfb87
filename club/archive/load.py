"""Storing a checked file, all of it or nothing: games through the deal services
and the bulk writer, tournaments through the tournament services.

The file is read from its start three times (``documents``, ``reading``), each
reading holding no more than a game, or a tournament's games that come before
their turn: its JSON and the shape of its documents; every game and tournament
checked, writing nothing; then every game checked again as it is written, in one
transaction with the second reading. So memory follows the largest game, not
the file, and a fault anywhere still stores nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta

from django.db import DatabaseError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from club.archive.documents import (
    CheckEvent,
    DocumentPlan,
    DocumentStarts,
    GameChecked,
    Note,
    check_archive,
    checked_games,
    file_changed,
    outline_documents,
)
from club.archive.format import (
    ArchiveError,
    GameSpec,
    TeamSpec,
    _and_list,
    _decap,
    _Place,
)
from club.archive.parse_club import check_publishing_into
from club.archive.parse_competitions import (
    CompetitionsStored,
    file_competitions,
    store_competitions,
)
from club.archive.parse_players import ListedPlayer, file_players
from club.archive.parse_tournaments import (
    TournamentSpec,
    _check_standings,
)
from club.archive.reading import Text, TextInMemory
from club.archive.tournament_export import (
    _standing_rows,
)
from club.clubs import known as clubs
from club.clubs.models import Club
from club.games import bulk, services, starting, whos_who
from club.games.models import (
    Game,
    Team,
)
from club.games.people import join
from club.games.versions import names_moved_once
from club.games.whos_who import name_key
from club.scoring import rules as core
from club.tournaments import services as tournament_services
from club.tournaments import substitutions
from club.tournaments.models import Tournament

# --- Import -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportSummary:
    games: int
    deals: int
    tournaments: tuple[str, ...] = ()
    kept: int = 0  # games of the file here already, as they are: left so (club.archive.publish)
    players_added: int = 0
    players_here: int = 0
    players_listed: int = 0  # in the file's players list
    aliased: int = 0  # earlier identifiers given to players here (a clash, a member number)
    # The file's competitions: added, changed or here already (club.archive.parse_competitions).
    competitions: CompetitionsStored = CompetitionsStored()
    # Who is who, for the preview (club.archive.publish): the listed players matched, and
    # what the writer found and added of the players and teams it seated.
    people: whos_who.WhosWho | None = field(default=None, compare=False, repr=False)
    known: starting.KnownNames | None = field(default=None, compare=False, repr=False)


class Undecided(ArchiveError):
    """The file's clashes, not all decided, or a choice that cannot stand (``problem``):
    the preview asks the organiser again about each clash."""

    def __init__(self, people: whos_who.WhosWho, problem: str = ""):
        self.people = people
        self.refused = problem  # a choice that cannot stand, in the club's words
        names = _and_list([match.listed.name for match in people.undecided])
        super().__init__(
            problem
            or ngettext(
                "%(names)s of the file is not known here by identifier, and this site has "
                "another person of that name: say whether it is the same person or another "
                "person.",
                "%(names)s of the file are not known here by identifier, and this site has "
                "other people of those names: say for each whether it is the same person or "
                "another person.",
                len(people.undecided),
            )
            % {"names": names},
        )


# The organiser's word on each clash, keyed by the file's identifier or by its name (the
# command line's options).
Choices = Mapping[uuid.UUID, whos_who.Choice] | Mapping[str, whos_who.Choice]


def match_players(listed: Mapping[str, ListedPlayer], choices: Choices | None) -> whos_who.WhosWho:
    """The file's listed players matched to this site's, with the organiser's ``choices``."""
    by_identifier: dict[uuid.UUID, whos_who.Choice] = {}
    for key, choice in (choices or {}).items():
        if isinstance(key, str):
            found = listed.get(name_key(key))
            if found is None:
                raise ArchiveError(
                    _("%(name)s is not a player listed in the file.") % {"name": key},
                    field="players",
                )
            key = found.identifier
        by_identifier[key] = choice
    try:
        people = whos_who.match(list(listed.values()), by_identifier)
    except whos_who.ChoiceRefused as refused:
        raise Undecided(refused.people, refused.message) from refused
    except services.ScoringError as error:
        raise ArchiveError(error.message, field=error.field) from error
    return people


def names_here(people: whos_who.WhosWho) -> dict[str, str]:
    """{a listed name, as matched: the name this site gives them}: the players found here,
    and, until the organiser says otherwise, a clash's namesake (so that a game here
    already is recognised as the same game, and the clash asked about, not the label)."""
    return {
        match.listed.key: match.player.name
        for match in people.matches
        if match.player is not None and (match.choice is None or match.choice.same)
    }


def summary_lines(summary: ImportSummary, file: str) -> list[str]:
    """What an import says it did, in the club's words: the command prints them, the
    web import shows them."""
    games = ngettext("%(count)d game", "%(count)d games", summary.games) % {"count": summary.games}
    deals = ngettext("%(count)d deal", "%(count)d deals", summary.deals) % {"count": summary.deals}
    if summary.games or summary.kept or summary.tournaments or not summary.players_listed:
        lines = [
            _("Imported %(games)s with %(deals)s from %(file)s.")
            % {"games": games, "deals": deals, "file": file}
        ]
    else:  # the club's players, and no games: a roster
        lines = [_("Loaded the players of %(file)s.") % {"file": file}]
    if summary.kept:
        lines.append(
            ngettext(
                "%(count)d game of the file is here already, as the file has it, "
                "and was left as it is.",
                "%(count)d games of the file are here already, as the file has them, "
                "and were left as they are.",
                summary.kept,
            )
            % {"count": summary.kept}
        )
    if summary.players_added:
        lines.append(
            ngettext(
                "%(count)d new player was added.",
                "%(count)d new players were added.",
                summary.players_added,
            )
            % {"count": summary.players_added}
        )
    if summary.players_here and not summary.games:
        lines.append(
            ngettext(
                "%(count)d player of the file was here already.",
                "%(count)d players of the file were here already.",
                summary.players_here,
            )
            % {"count": summary.players_here}
        )
    lines.extend(
        _("Imported the tournament “%(name)s” with its teams, sittings and standings.")
        % {"name": name}
        for name in summary.tournaments
    )
    return lines + _competition_lines(summary.competitions)


def _competition_lines(competitions: CompetitionsStored) -> list[str]:
    """What the import did with the file's competitions, one line each."""
    return [
        *(_("Added the competition “%(name)s”.") % {"name": name} for name in competitions.added),
        *(
            _("The competition “%(name)s” now has the file's rule and tournaments.")
            % {"name": name}
            for name in competitions.changed
        ),
        *(
            _("The competition “%(name)s” is here already, as the file has it.") % {"name": name}
            for name in competitions.same
        ),
    ]


def _entry(team: TeamSpec, registered: Team | None) -> starting.TeamEntry:
    """A file's team as the services seat it: its players in seat order (a third and a
    fourth only when it has them), played under ``registered`` (a tournament's team) when
    given, and free to seat a substitute, as an archive's game may."""
    third, fourth = (*team.more, "", "")[:2]
    return starting.TeamEntry(
        team.first,
        team.second,
        team.name,
        third,
        fourth,
        team=registered,
        may_seat_a_substitute=True,
    )


class _Writer:
    """Writes the checked games of one import, sharing what it finds of the club's names
    (games.starting.KnownNames): the games outside a tournament a batch at a time, a
    tournament's a sitting at a time; each seated by :func:`~club.games.starting.seat_game`,
    which refuses what :func:`~club.games.services.create_game` refuses, in its words.

    ``deals=False``: the rehearsal of a preview, undone after (club.archive.publish): the
    games and teams as their deals leave them, not the deals' own rows. ``club``: the club
    that plays them and holds the tournaments (the home club when None).
    """

    BATCH_DEALS = 2000  # a batch's deals: about 12,000 rows to insert

    def __init__(self, user=None, *, deals: bool = True, register=None, club: Club | None = None):
        self.user = user
        self.deals = deals
        self.club = club if club is not None else clubs.home()
        self.known = starting.KnownNames(register)
        self.batch: list[bulk.PlayedGame] = []
        self.batch_deals = 0
        self.written: list[int] = []  # every game written: told once, at the end

    def seat(
        self,
        spec: GameSpec,
        *,
        require_confirmation: bool = False,
        played: datetime | None = None,
        registered: Sequence[Team] = (),
    ) -> bulk.PlayedGame:
        """A checked game, seated but not saved: started as the services start a game.

        ``played``: when it was played, where the file says (a tournament's day); else now.
        ``registered``: a tournament game's registered teams, in the game's order: the game
        is theirs whoever sat (a substitute included). A game outside a tournament may seat
        a team of the club with a substitute too (a tournament's game exported on its own).
        """
        try:
            game, seated = starting.seat_game(
                label=spec.label,
                teams=[
                    _entry(team, registered[position] if registered else None)
                    for position, team in enumerate(spec.teams)
                ],
                first_dealer=spec.first_dealer,
                rules=spec.rules,
                user=self.user,
                deal_limit=spec.deal_limit,
                require_confirmation=require_confirmation,
                known=self.known,
                label_free=True,  # the file's check found none here, the file none twice
                by_players=True,  # the same players are the same team, whatever it is called
                club=self.club,
            )
        except services.ScoringError as error:
            raise ArchiveError(
                _decap(error.message), label=spec.label, number=error.number, field=error.field
            ) from error
        return bulk.PlayedGame(
            game=game,
            seating=services.Seating(seated, game.rules),
            settlements=spec.settlements,
            state=spec.state,
            ended_early=spec.ended_early,
            finished_at=played,
        )

    def add(self, spec: GameSpec) -> None:
        """A game outside a tournament: written with its batch."""
        self.batch.append(self.seat(spec))
        self.batch_deals += len(spec.settlements) + 1
        if self.batch_deals >= self.BATCH_DEALS:
            self.flush()

    def flush(self) -> None:
        self.write(self.batch)
        self.batch, self.batch_deals = [], 0

    def write(self, games: Sequence[bulk.PlayedGame]) -> None:
        """Save these seated games, their teams and their deals, in bulk; told nothing yet
        (:meth:`announce` tells all of them at the end)."""
        if not games:
            return
        try:
            bulk.write_games(games, user=self.user, deals=self.deals)
            for one in games:  # the day it was played, where the file says
                if one.finished_at is not None:
                    Game.objects.filter(pk=one.game.pk).update(created_at=one.finished_at)
                    one.game.created_at = one.finished_at
        except DatabaseError as error:
            raise ArchiveError(
                _("the database refused it (%(reason)s).") % {"reason": error},
                label=games[0].game.label if len(games) == 1 else None,
            ) from error
        self.written.extend(one.game.pk for one in games)

    def announce(self) -> None:
        """What follows games (the boards' figures, ratings) follows all of them, once: none
        of it can refuse, so a rehearsal leaves it out. A tournament's standings followed
        its end (:meth:`_TournamentWriter.finish`)."""
        self.flush()
        if self.deals:
            games: list[Game] = []  # read again, a few fields each: memory is the file's
            for start in range(0, len(self.written), 1000):
                games.extend(
                    Game.objects.filter(pk__in=self.written[start : start + 1000])
                    .only("pk", "status", "finished_at")
                    .order_by("pk")
                )
            bulk.announce(games)

    def members(self) -> None:
        """Every player the import registered or seated becomes a member of the club: the
        file's listed players, and every name it found or added (teams, captains,
        substitutes)."""
        found = {player.pk for player in self.known.register.values()}
        join(self.club.pk, found | set(self.known.holders))


def import_results(text: str, *, user=None, club: Club | None = None) -> ImportSummary:
    """Check the whole file, then store all of it into ``club`` (the home club when None),
    or nothing when anything is wrong."""
    return import_text(TextInMemory(text), user=user, club=club)


# Told how far an import has gone: its step ("check", then "write"), and the games of
# the file that step has done out of all of them.
Progress = Callable[[str, int, int], None]


def import_text(
    text: Text,
    *,
    user=None,
    note: Note | None = None,
    deals: bool = True,
    progress: Progress | None = None,
    choices: Choices | None = None,
    club: Club | None = None,
) -> ImportSummary:
    """Check the whole file, then store all of it into ``club`` (the home club when None),
    or nothing when anything is wrong, reading it a piece at a time (a
    :class:`~club.archive.reading.TextFile` for a file). A file that says it is another
    club's results is refused (club.archive.parse_club); labels and names are the club's.

    ``note`` is told each game and document as the check reads them (the preview's list).
    ``deals=False`` rehearses the import for a preview (:class:`_Writer`); its caller
    undoes it. ``progress`` is told each game checked, then each game written.
    ``choices``: the organiser's word on each clash of the file's players with this
    site's (club.games.whos_who); with one undecided, :class:`Undecided` is raised. The
    club's token for kept pages moves once, as the import's last statement, so the rest
    of the club goes on adding games, players and teams while a large file is written
    (club.games.versions).
    """
    counted: list[int] = []
    documents = outline_documents(text, counted)
    club = club if club is not None else clubs.home()
    check_publishing_into(documents, club)
    competitions = file_competitions(documents)
    listed = file_players(documents)
    total = sum(counted)
    # The club's players and no games (a roster, at the venue): the club's identifiers
    # become the laptop's players' own.
    roster = total == 0 and not any("tournament" in document for document in documents)
    with transaction.atomic(), names_moved_once():
        people = match_players(listed, choices)
        names = names_here(people)
        plans = check_archive(
            text, documents, note=_told(note, progress, total), names=names, club_id=club.pk
        )
        if people.undecided:
            raise Undecided(people)
        try:
            register = people.settle(adopt=roster)
        except services.ScoringError as error:
            raise ArchiveError(error.message, field=error.field) from error
        writer = _Writer(user, deals=deals, register=register, club=club)
        kept = _write_documents(
            text,
            documents,
            plans,
            writer,
            (lambda done: progress("write", done, total)) if progress is not None else None,
            names,
        )
        writer.flush()  # the file's games and tournaments, before what counts them
        stored = store_competitions(competitions, club, user)
        writer.announce()
        writer.members()
    return replace(_summary(plans, kept, len(listed), people, writer.known), competitions=stored)


def _told(note: Note | None, progress: Progress | None, total: int) -> Note:
    """What the check tells as it reads the file: ``note`` each game and document, and
    ``progress`` each game checked of the ``total``."""
    checked = 0

    def told(event: CheckEvent) -> None:
        nonlocal checked
        if note is not None:
            note(event)
        if isinstance(event, GameChecked) and progress is not None:
            checked += 1
            progress("check", checked, total)

    return told


def _summary(
    plans: Sequence[DocumentPlan],
    kept: list[int],
    listed: int,
    people: whos_who.WhosWho,
    known: starting.KnownNames,
) -> ImportSummary:
    """What the import did: the games and deals written (not those ``kept``, here
    already), the tournaments, the players added and found here."""
    added, here = _players_counted(people, known)
    return ImportSummary(
        games=sum(plan.games for plan in plans) - len(kept),
        deals=sum(plan.deals for plan in plans) - sum(kept),
        kept=len(kept),
        tournaments=tuple(plan.tournament.name for plan in plans if plan.tournament is not None),
        players_added=added,
        players_here=here,
        players_listed=listed,
        aliased=people.aliased,
        people=people,
        known=known,
    )


def _players_counted(people: whos_who.WhosWho, known: starting.KnownNames) -> tuple[int, int]:
    """The players the import added, and those of the file it found here."""
    listed_new = sum(match.new for match in people.matches)
    listed = {player.pk for player in known.register.values()}
    unlisted = set(known.holders) - listed
    added = listed_new + len(known.added_players)
    return added, len(people.matches) - listed_new + len(unlisted - known.added_players)


def _write_documents(
    text: Text,
    documents: Sequence[dict],
    plans: Sequence[DocumentPlan],
    writer: _Writer,
    done: Callable[[int], None] | None = None,
    names: Mapping[str, str] | None = None,
) -> list[int]:
    """Write each game as the file is read again, or hand it to its tournament's writer;
    a game outside a tournament that is here already, as it is, is left so. The deals of
    each game so left. ``done`` is told the games read so far."""
    kept: list[int] = []
    number = games = 0
    tournament: _TournamentWriter | None = None
    for event in checked_games(text, documents, plans, names, club_id=writer.club.pk):
        if isinstance(event, DocumentStarts):
            plan = plans[number]
            writer.flush()  # the file's order: the games before this document first
            tournament = (
                None if plan.tournament is None else _TournamentWriter(plan.tournament, writer)
            )
        elif isinstance(event, GameChecked):
            if done is not None:
                games += 1
                done(games)
            if tournament is not None:
                tournament.add(event.spec)
            elif event.spec.here:
                kept.append(len(event.spec.deals))
            else:
                writer.add(event.spec)
        else:
            if tournament is not None:
                tournament.finish()
            number += 1
    return kept


def read_text(read: Callable[[], bytes]) -> str:
    """Decode a file's bytes as UTF-8 (with or without a byte-order mark)."""
    try:
        return read().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ArchiveError(
            _("The file is not UTF-8 text (%(reason)s).") % {"reason": error}
        ) from None


def _written_when_shared_firsts_won(
    place: _Place, standings: list, tournament: Tournament, points_sheet: bool
) -> bool:
    """Whether the file's ``standings`` are right by the rule they were written by, when a
    shared first place counted as a game won for each team sharing it: such a file
    stays valid (its tournament is stored and exported by today's rule)."""
    legacy = _standing_rows(tournament, shared_first_wins=True)
    try:
        _check_standings(place, standings, legacy, points_sheet)
    except ArchiveError:
        return False
    return True


class _TournamentWriter:
    """Stores a checked tournament as the file gives its games: its row and teams first,
    then its sittings in order, each game of a sitting in table order and the sitting
    once its games are written, as :func:`~club.tournaments.services.import_sitting`
    wants them. A game that comes before its turn waits (an export gives them in turn)."""

    def __init__(self, spec: TournamentSpec, writer: _Writer):
        self.spec = spec
        self.writer = writer
        user = self.user = writer.user
        self.place = _Place(None, None, tournament=spec.name)
        try:
            self.tournament = tournament_services.create_tournament(
                name=spec.name,
                starts_on=spec.starts_on,
                ends_on=spec.ends_on,
                venue=spec.venue,
                rules=spec.rules,
                deal_limit=spec.deal_limit,
                points_scheme=spec.points_scheme,
                require_confirmation=spec.require_confirmation,
                check_in=spec.check_in,
                substitutions=spec.substitution_limit,
                user=user,
                club=writer.club,
            )
            self.entries = {
                name_key(team.name): tournament_services.register_team(
                    tournament=self.tournament,
                    first=team.first,
                    second=team.second,
                    third=team.players[2] if len(team.players) > 2 else "",
                    fourth=team.players[3] if len(team.players) > 3 else "",
                    name=team.name,
                    # The captain as this site calls them (a player found by identifier
                    # keeps this site's name).
                    captain=writer.known.player(team.captain).name if team.captain else "",
                    user=user,
                    known=writer.known,
                )
                for team in spec.teams
            }
            rows = []
            for made in spec.substitutions:
                entry = self.entries[name_key(made.team)]
                out = writer.known.player(made.out)
                back = None if made.last is None else made.last + 1
                player_in = services.find_or_add_player(made.player_in, writer.known)
                rows.append((entry, out, player_in, made.first, back))
            substitutions.import_substitutions(rows=rows)
        except (tournament_services.TournamentError, services.ScoringError) as error:
            raise self.place.error(_decap(error.message), field=error.field) from error
        self.waiting: dict[str, GameSpec] = {}  # by label, lower case
        self.sitting = 0  # the sitting being written, and its tables written so far
        self.tables: list[tuple] = []
        self._write_what_is_due()

    def add(self, game: GameSpec) -> None:
        self.waiting[game.label.lower()] = game
        self._write_what_is_due()

    def _write_what_is_due(self) -> None:
        while self.sitting < len(self.spec.sittings):
            sitting = self.spec.sittings[self.sitting]
            while len(self.tables) < len(sitting.games):
                table, planned = sitting.games[len(self.tables)]
                game = self.waiting.pop(planned.label.lower(), None)
                if game is None:
                    return
                self.tables.append(
                    (
                        table,
                        self.writer.seat(
                            game,
                            require_confirmation=self.spec.require_confirmation,
                            played=self._day_of(sitting.number),
                            registered=[
                                self.entries[name_key(team.name)].team for team in game.teams
                            ],
                        ),
                        [self.entries[name_key(team.name)] for team in game.teams],
                    )
                )
            self.writer.write([played for _table, played, _teams in self.tables])
            tournament_services.import_sitting(
                tournament=self.tournament,
                number=sitting.number,
                game_size=sitting.game_size,
                tables=[(table, played.game, teams) for table, played, teams in self.tables],
                byes=[self.entries[name_key(name)] for name in sitting.byes],
                absent=[self.entries[name_key(name)] for name in sitting.absent],
            )
            self.sitting += 1
            self.tables = []

    def _day_of(self, sitting: int) -> datetime:
        """When a sitting's games were played: a sitting a day from the tournament's first
        day, up to its last (a file gives no time of day: noon, the club's time)."""
        first, last = self.spec.starts_on, self.spec.ends_on or self.spec.starts_on
        day = min(first + timedelta(days=sitting - 1), max(first, last))
        return timezone.make_aware(datetime.combine(day, time(12)))

    def finish(self) -> Tournament:
        """Once every game of the document is given: the tournament's end, then its standings."""
        if self.sitting < len(self.spec.sittings) or self.waiting:
            raise file_changed()
        spec = self.spec
        tournament = tournament_services.finish_import(
            tournament=self.tournament, status=spec.status, final=spec.final
        )
        if spec.standings is not None:
            points_sheet = spec.rules.scoring == core.Scoring.POINTS
            try:
                _check_standings(
                    self.place, spec.standings, _standing_rows(tournament), points_sheet
                )
            except ArchiveError:
                if not _written_when_shared_firsts_won(
                    self.place, spec.standings, tournament, points_sheet
                ):
                    raise
        return tournament
