"""The deal forms the pages carry, read as a browser reads them, and what a deal says.

A deal's *content* is what makes it this deal and no other: the declarer (a player's key,
or all passed), the bid, the trumps, the doubling and each team's pile. It is compared
as posted and as stored (:func:`posted`, :func:`stored`), so a deal stored in the wrong
game, or overwritten, shows as a content that no acknowledgement names.
"""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass

INPUT = re.compile(r"<input\b[^>]*>", re.I)
ATTR = re.compile(r'([\w-]+)="([^"]*)"')
DEAL_FORM = re.compile(r'<form[^>]*class="deal-form"[^>]*>(.*?)</form>', re.S)
FORM = re.compile(r"<form\b[^>]*>(.*?)</form>", re.S)
TRUMPS = ["clubs", "diamonds", "hearts", "spades", "no-trumps"]

Content = tuple  # ("pass", piles) or (declarer, bid, trump, doubling, piles)


def _tags(fragment: str) -> list[dict[str, str]]:
    return [dict(ATTR.findall(tag)) for tag in INPUT.findall(fragment)]


def hidden_inputs(fragment: str) -> dict[str, str]:
    """The named inputs of ``fragment`` with their values (a form's hidden fields)."""
    return {
        attrs["name"]: html.unescape(attrs.get("value", ""))
        for attrs in _tags(fragment)
        if "name" in attrs and attrs.get("type", "text") == "hidden"
    }


def login_token(page: str) -> str:
    for match in FORM.finditer(page):
        token = hidden_inputs(match.group(1)).get("csrfmiddlewaretoken")
        if token:
            return token
    return ""


@dataclass
class DealForm:
    """A deal form as the page holds it: its hidden fields (CSRF token, one-time key, deal
    number), the declarer keys it offers and its piles' field names."""

    hidden: dict[str, str]
    declarers: list[str]
    piles: list[str]

    @classmethod
    def parse(cls, page: str) -> DealForm | None:
        match = DEAL_FORM.search(page)
        if match is None:
            return None
        fields = hidden_inputs(match.group(1))
        if not {"csrfmiddlewaretoken", "idempotency_key", "number"} <= fields.keys():
            return None
        tags = _tags(match.group(1))
        declarers = [
            html.unescape(attrs.get("value", ""))
            for attrs in tags
            if attrs.get("name") == "declarer" and attrs.get("value")
        ]
        piles = sorted(
            attrs["name"] for attrs in tags if attrs.get("name", "").startswith("points_")
        )
        return cls(hidden=fields, declarers=declarers, piles=piles)

    @property
    def number(self) -> int:
        return int(self.hidden["number"])

    def random_deal(self, rng: random.Random) -> dict[str, str]:
        """A valid deal drawn at random, with this form's hidden fields."""
        data = {k: self.hidden[k] for k in ("csrfmiddlewaretoken", "idempotency_key", "number")}
        declarer = rng.choice(self.declarers)  # "pass" (all passed) is one of them
        data["declarer"] = declarer
        if declarer == "pass":
            data["doubling"] = "none"
        else:
            data["bid"] = str(rng.randint(28, 56))
            data["trump"] = rng.choice(TRUMPS)
            data["doubling"] = rng.choices(["none", "double", "redouble"], [8, 3, 1])[0]
        cuts = sorted(rng.randint(0, 56) for _ in range(len(self.piles) - 1))
        for name, low, high in zip(self.piles, [0, *cuts], [*cuts, 56], strict=True):
            data[name] = str(high - low)
        return data


def posted(data: dict[str, str]) -> Content:
    """The content of a deal as its form sent it."""
    piles = tuple(int(data[name]) for name in sorted(k for k in data if k.startswith("points_")))
    if data["declarer"] == "pass":
        return ("pass", piles)
    return (int(data["declarer"]), int(data["bid"]), data["trump"], data["doubling"], piles)


def stored(round_, piles: dict[int, int]) -> Content:
    """The content of a stored round; ``piles``: its points by team position."""
    points = tuple(piles[position] for position in sorted(piles))
    if round_.all_pass:
        return ("pass", points)
    return (round_.declarer_id, round_.bid, round_.trump, round_.doubling, points)
