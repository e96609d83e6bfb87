"""Import and export of results in the club's archive format, ``fiftysix-results/1``.

An archive is one JSON document::

    {"format": "fiftysix-results/1",
     "games": [{"label": ..., "tables_per_team": 12, "teams": [...],
                "first_dealer": ..., "rounds": [...]}]}

Each round holds what the scorer reported (declarer, bid, trump, doubling and
the piles, or ``"all_pass": true`` and the piles). An export adds what the rules
compute from that (dealer, declaring team, made, transfers, tables after each
deal, teams out, and per game the status, winner and tables); an import accepts
those fields and refuses the file when they disagree with the rules, so a
changed or damaged archive is caught.

A file is imported into one club and an export is of one club (club.clubs): labels and
names need only be free in that club, and everyone the file seats or lists becomes one of
its players.

Importing checks the whole file first (its shape, then the rules, by replaying
every game through :func:`club.scoring.rules.replay`) and then writes it, in
one transaction: all of it is stored or nothing. The file is read a piece at a
time, from its start once for each of those steps, so an import holds the game
it is at, not the file. Each game is started by
:func:`club.games.services.create_game` and its deals written in bulk from
those settlements by :func:`club.games.bulk.write_game`: the rows
``record_deal`` and ``end_game`` would write deal by deal, then one
``game_changed`` per game, in file order, for standings, figures and ratings.
Every refusal is an :class:`ArchiveError` whose message names the game and,
where it applies, the deal number and the field at fault.

Where things are (each name is imported from the module that defines it, as in
``from club.archive.load import import_results``):

- ``format``: the keys, limits and errors, the specs of a game and a team, and a
  game's document both ways;
- ``reading``: a file's text a piece at a time, and its JSON as a stream of events;
- ``documents``: a file's documents outlined, then every game and tournament checked;
- ``parse_games`` (a game: its label, rounds and replay), ``parse_settings`` (the house
  rules, form of play and end of a game or a tournament), ``parse_teams`` (their teams),
  ``parse_tournaments`` (a tournament), ``parse_sittings`` (its sittings and
  substitutions), ``parse_players`` (a document's players list), ``parse_club`` (whose
  results a file holds, checked against the club it is imported into),
  ``parse_competitions`` (the club's competitions: written, checked, and stored once the
  file's tournaments are) and ``computed`` (a file's computed fields compared with the
  rules');
- ``load``: storing a checked file; ``publish``: the web import's preview;
- ``export``: JSON and CSV of a club's games, from ``stored_games`` (the stored games
  read a chunk at a time); ``tournament_export``: a tournament's document and CSV
  tables; ``register``: the players lists an export writes, and the club's roster;
- ``views``, ``urls``, ``forms`` and ``progress``: the downloads and the web import.

This package imports none of them: it is an installed app, imported before the models
are ready.
"""
