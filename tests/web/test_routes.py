"""Each path's view is worked out once a process (club/web/routes.py): the same view
and arguments every time, and an address that is no page is never remembered."""

from __future__ import annotations

import pytest
from django.urls import Resolver404, get_resolver, resolve, reverse

from club.urls import urlpatterns
from club.web.routes import REMEMBERED, RememberedRoutes


def test_a_path_resolves_to_the_same_view_and_arguments_each_time():
    first, again = resolve("/games/12/"), resolve("/games/12/")
    assert first.func is again.func and first.kwargs == again.kwargs == {"pk": 12}
    assert first.url_name == again.url_name == "detail" and again.namespace == "games"
    assert resolve("/games/13/").kwargs == {"pk": 13}  # another path, its own match
    assert reverse("games:detail", args=[12]) == "/games/12/"


def test_an_address_that_is_no_page_is_not_remembered():
    (routes,) = [pattern for pattern in urlpatterns if isinstance(pattern, RememberedRoutes)]
    with pytest.raises(Resolver404):
        get_resolver().resolve("/no/such/page/")
    assert "no/such/page/" not in routes._found


def test_a_crawl_of_many_paths_starts_the_memory_again():
    routes = RememberedRoutes([*urlpatterns])
    for pk in range(REMEMBERED + 10):
        assert routes.resolve(f"games/{pk}/").kwargs == {"pk": pk}
    assert len(routes._found) <= REMEMBERED
