"""The deal form: what a scorer or the organiser reports of one deal, read in seats.

The form checks what was typed in the words the phone shows before sending
(:func:`club.scoring.entry.read_entry`, as ``static/js/entry.js``); whether the deal
could have happened is decided by the rules core when the service records it.
"""

from __future__ import annotations

from django import forms
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from club.games.models import Doubling, Trump
from club.games.services.seating import Seating, entry_from_round
from club.scoring import entry as entry_rules
from club.scoring.rules import Deal
from club.scoring.wire import rules_to_wire
from club.web.posts import posted_deal_number

ALL_PASS = entry_rules.ALL_PASS
THANI = entry_rules.OLD_THANI  # the declarer "thani:<player id>" older pages send
YES, NO = entry_rules.YES, entry_rules.NO


TRUMP_SYMBOLS = {
    Trump.CLUBS: "♣",
    Trump.DIAMONDS: "♦",
    Trump.HEARTS: "♥",
    Trump.SPADES: "♠",
    Trump.NO_TRUMPS: "",
}


class DealForm(forms.Form):
    """One deal: the contract (or all passed, or a thani) and every playing team's pile.

    The fields take text as typed or tapped; :func:`club.scoring.entry.read_entry`
    checks it all at once, every mistake at its field, in the same words the phone
    shows before sending (``static/js/entry.js``).
    """

    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    declarer = forms.CharField(label=gettext_lazy("Declarer"), required=False)
    bid = forms.CharField(label=gettext_lazy("Bid"), required=False)
    trump = forms.CharField(label=gettext_lazy("Trumps"), required=False)
    doubling = forms.CharField(label=gettext_lazy("Doubling"), required=False)
    thani_made = forms.CharField(label=gettext_lazy("The thani was"), required=False)

    def __init__(self, *args, seating: Seating, in_play: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.seating = seating
        self.in_play = in_play
        self.rules = seating.rules
        self.seats = [str(player.pk) for player in seating.players]
        self.seated = [
            (player, team)
            for player, team in zip(seating.players, seating.seat_teams, strict=True)
            if team.position in in_play
        ]
        for position in in_play:
            name = f"points_{position}"
            self.fields[name] = forms.CharField(
                label=seating.teams[position].team.name,
                required=False,
                widget=forms.TextInput(
                    attrs={
                        "inputmode": "numeric",
                        "pattern": "[0-9]*",
                        "maxlength": 2,
                        "autocomplete": "off",
                        "enterkeyhint": "done",
                        "data-pile": "",
                        "data-team": position,
                        "aria-describedby": f"id_{name}_error",
                    }
                ),
            )

    # --- What the page offers: each a list of (value, words, checked) ---------------

    @classmethod
    def for_game(cls, game, seating: Seating, data=None, initial: dict | None = None) -> DealForm:
        """The form for the game's next deal: its teams still playing, the deal's number."""
        return cls(
            data,
            seating=seating,
            in_play=[team.position for team in seating.teams if team.tables > 0],
            initial=initial or {"number": game.deals_played + 1, "doubling": "none"},
        )

    def _value(self, name: str) -> str:
        value = self[name].value()
        return "" if value is None else str(value).strip()

    def declarer_options(self):
        chosen = self._value("declarer").removeprefix(entry_rules.OLD_THANI)
        return [
            {
                "value": str(player.pk),
                "name": player.name,
                "team": team.team.name,
                "position": team.position,
                "checked": chosen == str(player.pk),
            }
            for player, team in self.seated
        ]

    @property
    def all_pass_checked(self) -> bool:
        return self._value("declarer") == ALL_PASS

    def bid_options(self):
        chosen = self._value("bid")
        if self._value("declarer").startswith(entry_rules.OLD_THANI):
            chosen = entry_rules.THANI
        bids = [
            (str(bid), str(bid), chosen == str(bid))
            for bid in range(self.rules.min_bid, self.rules.max_bid + 1)
        ]
        if self.plays_thani:
            bids.append((entry_rules.THANI, _("Thani"), chosen == entry_rules.THANI))
        return bids

    def trump_options(self):
        chosen = self._value("trump")
        return [
            (value, TRUMP_SYMBOLS[value], label, chosen == value) for value, label in Trump.choices
        ]

    def doubling_options(self):
        chosen = self._value("doubling") or Doubling.NONE
        return [(value, label, chosen == value) for value, label in Doubling.choices]

    def made_options(self):
        chosen = self._value("thani_made")
        return [(YES, _("made"), chosen == YES), (NO, _("failed"), chosen == NO)]

    def pile_fields(self):
        return [self[f"points_{position}"] for position in self.in_play]

    @property
    def plays_thani(self) -> bool:
        return self.rules.thani is not None

    def phone_entry(self) -> dict:
        """What the phone checks an entry by (static/js/entry.js): the rules' bounds, who
        sits where, the teams still playing and every refusal in the reader's words."""
        return {
            "rules": rules_to_wire(self.rules),
            "seats": self.seats,
            "in_play": list(self.in_play),
            "teams": self.seating.names,
            "messages": {
                code: _(text) for code, text in entry_rules.messages_for(self.rules).items()
            },
        }

    def clean(self):
        cleaned = super().clean()
        fields = {name: self.data.get(name, "") for name in self.fields if name != "number"}
        self.read, errors = entry_rules.read_entry(self.rules, self.seats, self.in_play, fields)
        for error in errors:
            # Made or failed is shown only where thani is played; said of the entry elsewhere.
            shown = error.field in self.fields and (error.field != "thani_made" or self.plays_thani)
            field = error.field if shown else None
            self.add_error(field, error.translated(_, self.seating.names))
        return cleaned

    def entry(self) -> Deal:
        """The deal as read, in seats: the one shape it keeps until it is stored."""
        read = self.read
        if read.kind == "thani":
            return Deal(points={}, thani=read.seat, made=read.made)
        if read.kind == "pass":
            return Deal(points=dict(read.points))
        return Deal(
            points=dict(read.points),
            declarer=read.seat,
            bid=read.bid,
            trump=read.trump,
            doubling=read.doubling,
        )

    def sent(self, request: HttpRequest) -> tuple[int | None, Deal | None]:
        """What goes to the service: the deal's number and the deal as read; for a form
        refused, the number posted (the game may hold that deal already) and no deal."""
        if self.is_valid():
            return self.cleaned_data["number"], self.entry()
        return posted_deal_number(request), None

    @staticmethod
    def initial_for(entry: Deal, number: int, seating: Seating) -> dict:
        """The form filled in with a deal (a correction's, or a rejected one's to fix)."""
        initial = {"number": number, "doubling": entry.doubling}
        if entry.thani is not None:
            initial.update(
                declarer=str(seating.player_id(entry.thani)),
                bid=entry_rules.THANI,
                thani_made=YES if entry.made else NO,
            )
        elif entry.all_pass:
            initial["declarer"] = ALL_PASS
        else:
            initial.update(
                declarer=str(seating.player_id(entry.declarer)), bid=entry.bid, trump=entry.trump
            )
        for position, points in entry.points.items():
            initial[f"points_{position}"] = points
        return initial

    def add_scoring_error(self, error) -> None:
        """Show a service's refusal beside the field it concerns."""
        field = {
            "bid": "bid",
            "trump": "trump",
            "doubling": "doubling",
            "declarer": "declarer",
            "thani": "declarer",
            "made": "thani_made",
        }.get(error.field or "")
        self.add_error(field, error.message)


class RejectForm(forms.Form):
    """Why a team rejects a deal another team sent: shown on the sender's phone."""

    reason = forms.CharField(
        label=gettext_lazy("What is wrong with it? (optional)"),
        max_length=200,
        required=False,
        error_messages={"max_length": gettext_lazy("Say what is wrong in at most 200 characters.")},
    )


ENTRY_FIELDS = ("declarer", "bid", "trump", "doubling", "thani_made")


def typed_entry(seating: Seating, data, recorded=None) -> dict | None:
    """What a deal form held when another phone recorded its deal first: the fields as
    typed (to put back in the form, or to correct the deal recorded with), their words,
    and whether they are what was recorded. None for a form with nothing in it."""
    names = (*ENTRY_FIELDS, *(f"points_{team.position}" for team in seating.teams))
    fields = {name: str(data.get(name, "")).strip() for name in names}
    fields = {name: value for name, value in fields.items() if value}
    declarer = fields.get("declarer", "")
    if not declarer:
        return None
    if declarer.startswith(THANI):  # an older page's thani: as the bid pad has it
        fields.update(declarer=declarer.removeprefix(THANI), bid=entry_rules.THANI)
    players = {str(player.pk): player.name for player in seating.players}
    player = players.get(fields["declarer"], fields["declarer"])
    if fields.get("bid") == entry_rules.THANI:
        words = _("Thani by %(player)s") % {"player": player}
        made = fields.get("thani_made")
        if made in (YES, NO):
            words += " · " + (_("made") if made == YES else _("failed"))
    else:
        if declarer == ALL_PASS:
            words = _("All passed")
        else:
            trump = dict(Trump.choices).get(fields.get("trump", ""), fields.get("trump", ""))
            words = _("%(declarer)s bid %(bid)s %(trump)s") % {
                "declarer": player,
                "bid": fields.get("bid", "?"),
                "trump": trump,
            }
            doubling = fields.get("doubling", Doubling.NONE)
            if doubling != Doubling.NONE:
                words += " · " + str(dict(Doubling.choices).get(doubling, doubling))
        piles = [
            f"{team.team.name} {fields[f'points_{team.position}']}"
            for team in seating.teams
            if f"points_{team.position}" in fields
        ]
        if piles:
            words += " · " + " · ".join(piles)
    same = False
    if recorded is not None:
        kept = DealForm.initial_for(entry_from_round(recorded, seating), 0, seating)
        kept = {name: str(value) for name, value in kept.items() if name != "number"}

        def plain(entry: dict) -> dict:  # numbers as numbers ("05" is 5), no "not doubled"
            return {
                name: entry_rules.whole(value) if entry_rules.whole(value) is not None else value
                for name, value in entry.items()
                if value and not (name == "doubling" and value == Doubling.NONE)
            }

        same = plain(kept) == plain(fields)
    return {"fields": fields, "words": words, "same": same}
