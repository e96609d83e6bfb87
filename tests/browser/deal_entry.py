"""Entering a deal as a scorer does: tapping the keys and typing the piles.

The deal entry's keys are radio buttons under labels (club/templates/games/_deal_fields.html);
a key is tapped by its label, as a thumb does. Piles are typed into their fields; the page
fills in the last one, and typing over it is the scorer's to do.
"""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page


def key(page: Page, name: str, value: str) -> Locator:
    """The key of the deal entry that chooses ``value`` for ``name``."""
    return page.locator(f"label.key:has(input[name={name}][value='{value}'])")


def unfold(page: Page, name: str) -> None:
    """A group folded to the key chosen before (a deal being corrected, say) opens first,
    with its "Change" button, as a scorer would."""
    change = page.locator(f"fieldset.folded[data-group={name}] [data-change]")
    if change.count() and change.is_visible():
        change.click()


def tap(page: Page, name: str, value: str) -> None:
    unfold(page, name)
    key(page, name, value).click()


def declarer_key(page: Page, player: str) -> Locator:
    """The declarer key of the player named ``player``."""
    return page.locator("fieldset[data-group=declarer] label.key").filter(
        has=page.locator(".key-name", has_text=re.compile(rf"^\s*{re.escape(player)}\s*$"))
    )


def declarer_names(page: Page) -> list[str]:
    return [
        name.strip()
        for name in page.locator("fieldset[data-group=declarer] .key-name").all_inner_texts()
    ]


def enter_deal(
    page: Page,
    *,
    declarer: str,
    piles: dict[int, int | str] | None = None,
    bid: int | str | None = None,
    trump: str | None = None,
    doubling: str | None = None,
    made: bool | None = None,
) -> None:
    """Tap in a deal: ``declarer`` a player's name or "pass"; ``bid`` "thani" with ``made``."""
    unfold(page, "declarer")
    if declarer == "pass":
        key(page, "declarer", "pass").click()
    else:
        declarer_key(page, declarer).click()
    if bid is not None:
        tap(page, "bid", str(bid))
    if trump is not None:
        tap(page, "trump", trump)
    if doubling is not None:
        tap(page, "doubling", doubling)
    if made is not None:
        tap(page, "thani_made", "yes" if made else "no")
    for position, points in (piles or {}).items():
        page.locator(f"input[name=points_{position}]").fill(str(points))


def checked(page: Page, name: str) -> str:
    """The value of the key chosen for ``name`` ("" when none is)."""
    found = page.locator(f"input[name={name}]:checked")
    return found.get_attribute("value") if found.count() else ""
