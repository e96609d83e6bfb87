"""Forms for starting a game: its teams, its form of play and house rules.

The forms check the shape of what was typed; the deal form is ``club.games.deal_form``.
"""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from club.games.models import FORM_OF_PLAY_FIELDS, DoublingMode, Scoring
from club.games.other_clubs import OtherClubs, PlayersOfOtherClubs, same_people_keys
from club.games.starting import TeamEntry
from club.games.whos_who import name_key
from club.scoring import entry as entry_rules
from club.scoring import rules as core
from club.web.fields import NameField, WholeNumberField

RULE_FIELDS = ("tables_per_team", "payout", "double_factor", "redouble_factor")
# Where a refusal of the rules core (RulesError.field) is shown on the form.
RULE_ERROR_FIELDS = {
    "bands": "payout",
    "tables": "tables_per_team",
    "doubling": "double_factor",
    "scoring": "scoring",
    "kodi": "kodi",
    "thani": "thani_made",
    "deal_limit": "deal_limit",
}
RANDOM_DEALER = "random"
# The tables a game can seat: "6" is three teams of two, "6x3" two teams of three.
PLAYER_COUNTS = [
    ("4", gettext_lazy("4 players")),
    ("6", gettext_lazy("6 players")),
    ("6x3", gettext_lazy("6 players, two teams of three")),
    ("8", gettext_lazy("8 players")),
    ("8x4", gettext_lazy("8 players, two teams of four")),
]
TABLES = {"4": (2, 2), "6": (3, 2), "6x3": (2, 3), "8": (4, 2), "8x4": (2, 4)}
PRESETS = [
    (core.Preset.TABLES, gettext_lazy("Tables: teams move tables until one is left")),
    (
        core.Preset.INTERNATIONAL,
        gettext_lazy("56 International: two teams of three on a points sheet, 18 deals"),
    ),
    (core.Preset.KODI, gettext_lazy("Kodi night: two teams, a kodi each time one runs out")),
    (core.Preset.CUSTOM, gettext_lazy("Custom: the settings below")),
]
YES, NO = entry_rules.YES, entry_rules.NO


class HouseRulesForm(forms.Form):
    """The house rules' fields and their checks, for a game and for a tournament.

    ``clean_house_rules`` puts the checked :class:`~club.scoring.rules.Rules` in
    ``cleaned_data["rules"]``: whenever the rules' own fields are whole numbers, so a
    payout beyond the bounds is told at once, with any other mistake.
    """

    tables_per_team = WholeNumberField(
        label=gettext_lazy("Tables each team starts with"),
        min_value=1,
        max_value=core.MAX_TABLES,
        initial=core.DEFAULT_RULES.tables_per_team,
    )
    payout = forms.CharField(
        label=gettext_lazy("Payout schedule"),
        help_text=gettext_lazy(
            "One band per line: lowest bid, highest bid, tables if made, tables if failed."
        ),
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    double_factor = WholeNumberField(
        label=gettext_lazy("Doubled contracts move"),
        min_value=1,
        max_value=core.MAX_FACTOR,
        initial=core.DEFAULT_RULES.double_factor,
        help_text=gettext_lazy("times the tables, or added when doubling adds (usually +1)"),
    )
    redouble_factor = WholeNumberField(
        label=gettext_lazy("Redoubled contracts move"),
        min_value=1,
        max_value=core.MAX_FACTOR,
        initial=core.DEFAULT_RULES.redouble_factor,
        help_text=gettext_lazy("times the tables, or added when doubling adds (usually +2)"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["payout"].initial = format_bands(core.DEFAULT_BANDS)

    def clean_payout(self):
        text = self.cleaned_data["payout"]
        bands = []
        for line_number, line in enumerate(text.strip().splitlines(), start=1):
            parts = [part for part in re.split(r"[\s,:;/\-–]+", line) if part]
            try:
                low, high, made, failed = (int(part) for part in parts)
            except ValueError:
                raise forms.ValidationError(
                    _(
                        "Line %(line)d of the payout schedule needs four whole numbers: "
                        "lowest bid, highest bid, tables if made, tables if failed."
                    )
                    % {"line": line_number}
                ) from None
            bands.append(core.Band(low, high, made, failed))
        return tuple(bands)

    def form_of_play(self, cleaned: dict) -> dict:
        """The settings of docs/rules.md section D the form gives: none here (today's game)."""
        return {}

    def clean_house_rules(self, cleaned: dict) -> None:
        if not all(name in cleaned for name in RULE_FIELDS):
            return
        try:
            rules = core.Rules(
                tables_per_team=cleaned["tables_per_team"],
                bands=cleaned["payout"],
                double_factor=cleaned["double_factor"],
                redouble_factor=cleaned["redouble_factor"],
                **self.form_of_play(cleaned),
            )
            core.check_house_rules(rules)
        except core.RulesError as error:
            field = None if error.field is None else RULE_ERROR_FIELDS.get(error.field)
            self.add_error(field, error.translated(_))
        else:
            cleaned["rules"] = rules


class FormOfPlayForm(HouseRulesForm):
    """The house rules and the forms clubs play (docs/rules.md section D): a preset fills them.

    The preset only fills the fields (the page asks again with the preset's
    values); what is posted is what the game is played by, stored as settings.
    A post without these fields is today's game.
    """

    preset = forms.ChoiceField(label=gettext_lazy("Form of play"), choices=PRESETS, required=False)
    scoring = forms.ChoiceField(
        label=gettext_lazy("Scoring"),
        choices=[
            (Scoring.TABLES, gettext_lazy("Tables move between the teams")),
            (Scoring.POINTS, gettext_lazy("Points on a score sheet; no one is out")),
        ],
        required=False,
    )
    doubling_mode = forms.ChoiceField(
        label=gettext_lazy("Doubling"),
        choices=[
            (DoublingMode.MULTIPLY, gettext_lazy("multiplies what the band gives")),
            (DoublingMode.ADD, gettext_lazy("adds to what the band gives")),
        ],
        required=False,
    )
    all_pass = forms.ChoiceField(
        label=gettext_lazy("When everyone passes"),
        choices=[
            (YES, gettext_lazy("allowed: 28, no trumps")),
            (NO, gettext_lazy("not allowed: the first bidder opens")),
        ],
        required=False,
    )
    kodi = forms.BooleanField(
        label=gettext_lazy(
            "Kodi: a team left with no tables takes a kodi, and every team starts again"
        ),
        required=False,
    )
    thani_made = WholeNumberField(
        label=gettext_lazy("A thani made moves"),
        min_value=0,
        max_value=core.MAX_BAND_TABLES,
        required=False,
        help_text=gettext_lazy("Leave both empty if the game plays no thani."),
    )
    thani_failed = WholeNumberField(
        label=gettext_lazy("A thani failed moves"),
        min_value=0,
        max_value=core.MAX_BAND_TABLES,
        required=False,
    )
    deal_limit = WholeNumberField(
        label=gettext_lazy("Deals in the game"),
        min_value=1,
        max_value=core.MAX_DEAL_LIMIT,
        required=False,
        help_text=gettext_lazy(
            "Needed on a points sheet. Leave empty to play until one team is left."
        ),
    )
    small_deck = forms.BooleanField(
        label=gettext_lazy("Four players: deal J 9 A 10 only (32 cards, 8 each)"),
        required=False,
    )

    # The fields of the settings (the team size is the table's, chosen apart).
    SETTINGS = (
        *RULE_FIELDS,
        *(name for name in FORM_OF_PLAY_FIELDS if name != "team_size"),
        "deal_limit",
    )

    @property
    def settings_have_errors(self) -> bool:
        return self.is_bound and any(self.errors.get(name) for name in self.SETTINGS)

    @classmethod
    def preset_initial(cls, preset: str, players: str) -> dict:
        """The fields' values for a preset at a table of ``players`` (Custom: none).

        The table follows the preset: 56 International is two teams of three, a
        Kodi night two teams of half the players, Tables teams of two.
        """
        if preset not in (core.Preset.TABLES, core.Preset.INTERNATIONAL, core.Preset.KODI):
            return {}
        teams, size = TABLES.get(players, (2, 2))
        seated = teams * size
        if preset == core.Preset.INTERNATIONAL:
            players = "6x3"
        elif preset == core.Preset.KODI:
            players = {4: "4", 6: "6x3", 8: "8x4"}[seated]
        elif size != 2:
            players = {6: "6", 8: "8"}[seated]
        teams, size = TABLES[players]
        rules = core.preset_rules(preset, teams * size)
        return {
            "players": players,
            "tables_per_team": rules.tables_per_team,
            "payout": format_bands(rules.bands),
            "double_factor": rules.double_factor,
            "redouble_factor": rules.redouble_factor,
            "scoring": rules.scoring,
            "doubling_mode": rules.doubling_mode,
            "all_pass": YES if rules.all_pass else NO,
            "kodi": rules.kodi,
            "thani_made": "",
            "thani_failed": "",
            "deal_limit": rules.deal_limit or "",
        }

    def form_of_play(self, cleaned: dict) -> dict:
        made, failed = cleaned.get("thani_made"), cleaned.get("thani_failed")
        if (made is None) != (failed is None):
            self.add_error(
                "thani_made" if made is None else "thani_failed",
                _("Give what a thani moves when it is made and when it fails, or neither."),
            )
        return {
            "scoring": cleaned.get("scoring") or Scoring.TABLES,
            "doubling_mode": cleaned.get("doubling_mode") or DoublingMode.MULTIPLY,
            "all_pass": cleaned.get("all_pass") != NO,
            "kodi": bool(cleaned.get("kodi")),
            "thani": None if made is None or failed is None else core.Thani(made, failed),
            "deal_limit": cleaned.get("deal_limit"),
            "small_deck": bool(cleaned.get("small_deck")),
            "team_size": getattr(self, "team_size", 2),
        }


class SamePeopleField(forms.Field):
    """The names the organiser ticked as the same person as another club's player, as name
    keys (club.games.other_clubs); kept in hidden inputs when the form comes back."""

    widget = forms.MultipleHiddenInput
    MOST = 1000  # a list of 200 teams of four names at most, and some to spare

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def to_python(self, value) -> frozenset[str]:
        if not value:
            return frozenset()
        values = [value] if isinstance(value, str) else list(value)[: self.MOST]
        return same_people_keys(str(text)[:200] for text in values)

    def prepare_value(self, value):
        # A page asked again by htmx gives its query's one value as a string.
        return [value] if isinstance(value, str) else sorted(value or ())


class SamePeopleForm(forms.Form):
    """A form of names typed by hand that may find another club's player: the service's
    refusal (:class:`~club.games.other_clubs.PlayersOfOtherClubs`) is shown on the field
    each name was typed in, with the tick "The same Anu" (``{% same_person form field %}``,
    club.games.templatetags.same_people); ``cleaned_data["same_people"]`` is what was ticked.
    """

    same_people = SamePeopleField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The players of other clubs to ask about, by the field they were typed in.
        self.other_clubs: dict[str | None, list[OtherClubs]] = {}

    def ask_same_people(self, refusal: PlayersOfOtherClubs, fields=()) -> None:
        """Each player of ``refusal`` on the one of ``fields`` their name was typed in, else
        on the refusal's field (when the form has it), else above the form."""
        typed = {name_key(self.cleaned_data.get(name) or ""): name for name in fields}
        for other in refusal.others:
            field = typed.get(other.key)
            if field is None:
                field = refusal.field if refusal.field in self.fields else None
            self.add_error(field, other.message)
            self.offer_ticks(field, [other])

    def offer_ticks(self, field: str | None, others) -> None:
        """The ticks "The same Anu" for ``others`` (players of other clubs) after ``field``
        (None: above the form), each once; their refusal is on the form already."""
        asked = self.other_clubs.setdefault(field, [])
        for other in others:
            if all(other.key != earlier.key for earlier in asked):
                asked.append(other)


class NewGameForm(SamePeopleForm, FormOfPlayForm):
    """Teams in seat order, the first dealer, and the club's settings for the game."""

    label = NameField(label=gettext_lazy("Game label"), max_length=120)
    players = forms.ChoiceField(label=gettext_lazy("Players"), choices=PLAYER_COUNTS, initial="4")
    first_dealer = forms.CharField(
        label=gettext_lazy("First dealer"), initial=RANDOM_DEALER, required=False
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.is_bound:
            self.data = self._preset_for_this_table(self.data)
        # Only the teams of the chosen player count: a field the page does not show
        # must not refuse the form with an error nobody can see.
        for number in range(1, self.team_count + 1):
            self.fields[f"team{number}_name"] = NameField(
                label=_("Team %(number)d name") % {"number": number},
                max_length=170,
                required=False,
            )
            for partner in range(1, self.team_size + 1):
                self.fields[f"team{number}_player{partner}"] = NameField(
                    label=_("Team %(number)d, player %(partner)d")
                    % {"number": number, "partner": partner},
                    max_length=80,
                    required=False,
                )

    # The settings a preset fills (preset_initial), as a post carries them.
    PRESET_FILLS = (
        "tables_per_team",
        "payout",
        "double_factor",
        "redouble_factor",
        "scoring",
        "doubling_mode",
        "all_pass",
        "kodi",
        "thani_made",
        "thani_failed",
        "deal_limit",
    )

    @classmethod
    def _as_posted(cls, values) -> dict[str, str]:
        posted = {name: str(values.get(name) or "") for name in cls.PRESET_FILLS}
        posted["kodi"] = "on" if values.get("kodi") not in (None, "", False, "False") else ""
        return posted

    def _preset_for_this_table(self, data):
        """The preset's settings for the table posted, where those posted are the preset's
        as filled for another table: the page filled them before the players changed (a
        Kodi night of eight players plays 7 tables a team, not the 6 of four). Settings
        changed by hand match no fill, and stand."""
        preset = data.get("preset")
        table = str(data.get("players"))
        fill = self.preset_initial(preset, table) if table in TABLES else {}
        if not fill or fill["players"] != table:
            return data
        posted, wanted = self._as_posted(data), self._as_posted(fill)
        stale = posted != wanted and any(
            self._as_posted(self.preset_initial(preset, other)) == posted
            for other in TABLES
            if other != table
        )
        if not stale:
            return data
        data = data.copy()
        for name, value in wanted.items():
            if name == "kodi" and not value:
                data.pop("kodi", None)
            else:
                data[name] = value
        return data

    @property
    def table(self) -> str:
        value = self.data.get("players") if self.is_bound else self.initial.get("players")
        return str(value) if str(value) in TABLES else "4"

    @property
    def team_count(self) -> int:
        return TABLES[self.table][0]

    @property
    def team_size(self) -> int:
        return TABLES[self.table][1]

    @property
    def player_count(self) -> int:
        return self.team_count * self.team_size

    def player_field_names(self) -> list[str]:
        """The fields a player's name is typed in."""
        return [
            f"team{number}_player{partner}"
            for number in range(1, self.team_count + 1)
            for partner in range(1, self.team_size + 1)
        ]

    def team_rows(self):
        """Bound fields per team, for the template, with the seat of each player."""
        rows = []
        teams = self.team_count
        for number in range(1, teams + 1):
            rows.append(
                {
                    "number": number,
                    "name": self[f"team{number}_name"],
                    "players": [
                        (self[f"team{number}_player{partner}"], (partner - 1) * teams + number - 1)
                        for partner in range(1, self.team_size + 1)
                    ],
                }
            )
        return rows

    def clean(self):
        cleaned = super().clean()
        teams = []
        for number in range(1, self.team_count + 1):
            names = [
                (cleaned.get(f"team{number}_player{partner}") or "").strip()
                for partner in range(1, self.team_size + 1)
            ]
            missing = next(
                (f"team{number}_player{at + 1}" for at, name in enumerate(names) if not name), None
            )
            if missing and not self.has_error(missing):
                # (a name refused for a hidden character already says what is wrong)
                message = (
                    _("Team %(number)d needs two players.")
                    if self.team_size == 2
                    else _("Team %(number)d needs %(size)d players.")
                )
                self.add_error(missing, message % {"number": number, "size": self.team_size})
            teams.append(
                TeamEntry(names[0], names[1], cleaned.get(f"team{number}_name") or "", *names[2:])
            )
        cleaned["teams"] = teams
        dealer = cleaned.get("first_dealer") or RANDOM_DEALER
        if dealer == RANDOM_DEALER:
            cleaned["first_dealer_seat"] = None
        else:
            try:
                seat = int(dealer)
            except ValueError:
                seat = -1
            if not 0 <= seat < self.player_count:
                self.add_error("first_dealer", _("Choose a seated player or draw at random."))
            cleaned["first_dealer_seat"] = seat
        self.clean_house_rules(cleaned)
        return cleaned


# A preset's name where a page says what a game or tournament is played as.
PRESET_NAMES = {
    core.Preset.TABLES: gettext_lazy("Tables"),
    core.Preset.INTERNATIONAL: gettext_lazy("56 International"),
    core.Preset.KODI: gettext_lazy("Kodi night"),
}


def form_of_play_words(holder, team_count: int = 2) -> str:
    """What a game or tournament is played as, in the reader's words, with its deal limit.

    A preset by its name; custom settings by their scoring, doubling and team
    size. A tournament is named as its games of ``team_count`` teams.
    """
    try:
        rules = holder.rules
    except core.RulesError:  # settings the rules refuse (typed into the admin once): unnamed
        return ""
    preset = core.preset_of(rules, rules.team_size * team_count)
    if preset in PRESET_NAMES:
        words = str(PRESET_NAMES[preset])
    else:
        words = _("Custom: %(scoring)s, doubling %(doubling)s, %(teams)s") % {
            "scoring": Scoring(holder.scoring).label,
            "doubling": DoublingMode(holder.doubling_mode).label.lower(),
            "teams": ngettext(
                "teams of %(size)d player", "teams of %(size)d players", holder.team_size
            )
            % {"size": holder.team_size},
        }
    if holder.deal_limit:
        words += ngettext(
            ", %(deals)d deal a game", ", %(deals)d deals a game", holder.deal_limit
        ) % {"deals": holder.deal_limit}
    return words


def format_bands(bands) -> str:
    return "\n".join(f"{b.low}-{b.high}: {b.made} {b.failed}" for b in bands)
