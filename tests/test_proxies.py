"""Login lock-outs key on the real client, and X-Forwarded-For is believed only from our proxies."""

import ipaddress

import pytest
from axes.models import AccessAttempt
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory
from django.urls import reverse

from club.web.net import client_ip, parse_networks

PROXY = "127.0.0.1"  # the guide's nginx (docs/deploying.md) on the same machine
ATTACKER = "203.0.113.9"
OLIVE = "198.51.100.7"
WRONG = {"username": "olive", "password": "a-wrong-guess"}
RIGHT = {"username": "olive", "password": "the-right-password"}


def networks(*items):
    return [ipaddress.ip_network(item) for item in items]


@pytest.fixture
def olive(django_user_model):
    return django_user_model.objects.create_user(
        username="olive", password="the-right-password", is_staff=True
    )


@pytest.fixture
def behind_the_proxy(settings):
    settings.TRUSTED_PROXIES = networks(f"{PROXY}/32")


def login(client, data, remote_addr, forwarded_for=None):
    extra = {"REMOTE_ADDR": remote_addr}
    if forwarded_for is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded_for
    response = client.post(reverse("login"), data, **extra)
    client.logout()
    return response


def lock_out(client, remote_addr, forwarded_for=None):
    statuses = [login(client, WRONG, remote_addr, forwarded_for).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]


# --- Real logins --------------------------------------------------------------


@pytest.mark.django_db
def test_an_attacker_behind_the_proxy_locks_out_only_itself(client, olive, behind_the_proxy):
    lock_out(client, PROXY, forwarded_for=ATTACKER)
    # The attacker is paused, even with the right password ...
    assert login(client, RIGHT, PROXY, forwarded_for=ATTACKER).status_code == 429
    # ... but olive, at her own address behind the same proxy, is not.
    assert login(client, RIGHT, PROXY, forwarded_for=OLIVE).status_code == 302
    attempt = AccessAttempt.objects.get()
    assert (attempt.username, attempt.ip_address) == ("olive", ATTACKER)


@pytest.mark.django_db
def test_a_forged_header_through_the_proxy_still_counts_against_the_attacker(
    client, olive, behind_the_proxy
):
    # The attacker sends "X-Forwarded-For: <olive's address>"; nginx appends the
    # address it really saw, so the header reaches us as "<olive>, <attacker>".
    lock_out(client, PROXY, forwarded_for=f"{OLIVE}, {ATTACKER}")
    assert login(client, RIGHT, PROXY, forwarded_for=OLIVE).status_code == 302
    assert login(client, RIGHT, PROXY, forwarded_for=f"{OLIVE}, {ATTACKER}").status_code == 429


@pytest.mark.django_db
def test_a_client_that_is_not_a_proxy_cannot_spoof_its_way_out_of_a_lock_out(
    client, olive, behind_the_proxy
):
    for number in range(5):  # a new made-up address with every guess
        login(client, WRONG, ATTACKER, forwarded_for=f"192.0.2.{number}")
    assert login(client, RIGHT, ATTACKER, forwarded_for="192.0.2.77").status_code == 429
    assert login(client, RIGHT, ATTACKER).status_code == 429
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == [ATTACKER]


@pytest.mark.django_db
def test_a_client_that_is_not_a_proxy_cannot_lock_out_another_address(
    client, olive, behind_the_proxy
):
    lock_out(client, ATTACKER, forwarded_for=OLIVE)
    assert login(client, RIGHT, OLIVE).status_code == 302  # olive, straight to the app
    assert login(client, RIGHT, PROXY, forwarded_for=OLIVE).status_code == 302  # or via nginx
    assert login(client, RIGHT, ATTACKER).status_code == 429


@pytest.mark.django_db
def test_with_no_trusted_proxy_x_forwarded_for_is_ignored(client, olive, settings):
    settings.TRUSTED_PROXIES = []  # the default: DJANGO_TRUSTED_PROXIES empty
    lock_out(client, PROXY, forwarded_for=ATTACKER)
    # Everything from 127.0.0.1 is one client, whatever the header says.
    assert login(client, RIGHT, PROXY, forwarded_for=OLIVE).status_code == 429
    assert login(client, RIGHT, OLIVE).status_code == 302
    assert AccessAttempt.objects.get().ip_address == PROXY


def test_django_axes_asks_club_net_for_the_address(settings):
    from axes.helpers import get_client_ip_address

    settings.TRUSTED_PROXIES = networks("10.0.0.0/8")
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=ATTACKER)
    assert settings.AXES_CLIENT_IP_CALLABLE == "club.web.net.client_ip"
    assert get_client_ip_address(request) == ATTACKER


# --- client_ip ------------------------------------------------------------------


def ip(settings, remote_addr, forwarded_for=None, trusted=(f"{PROXY}/32",)):
    settings.TRUSTED_PROXIES = networks(*trusted)
    extra = {"REMOTE_ADDR": remote_addr}
    if forwarded_for is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded_for
    return client_ip(RequestFactory().get("/", **extra))


def test_a_direct_client_is_its_remote_addr(settings):
    assert ip(settings, ATTACKER) == ATTACKER
    assert ip(settings, ATTACKER, forwarded_for=OLIVE) == ATTACKER
    assert ip(settings, ATTACKER, forwarded_for=OLIVE, trusted=()) == ATTACKER


def test_a_trusted_proxy_without_the_header_is_the_client(settings):
    assert ip(settings, PROXY) == PROXY
    assert ip(settings, PROXY, forwarded_for="") == PROXY
    assert ip(settings, PROXY, forwarded_for="  ") == PROXY


def test_the_chain_is_read_from_the_right(settings):
    assert ip(settings, PROXY, forwarded_for=ATTACKER) == ATTACKER
    assert ip(settings, PROXY, forwarded_for=f"{OLIVE}, {ATTACKER}") == ATTACKER
    assert ip(settings, PROXY, forwarded_for=f"1.1.1.1,8.8.8.8,{OLIVE},{ATTACKER}") == ATTACKER


def test_trusted_proxies_along_the_chain_are_skipped(settings):
    trusted = ("127.0.0.1", "10.0.0.0/8", "172.16.0.0/12")
    chain = f"1.1.1.1, {ATTACKER}, 172.20.0.3, 10.9.8.7"  # spoof, client, two of our proxies
    assert ip(settings, "10.0.0.1", forwarded_for=chain, trusted=trusted) == ATTACKER
    # A proxy outside the trusted networks is where belief stops: it is the client.
    chain = f"1.1.1.1, {ATTACKER}, 192.168.1.1, 10.9.8.7"
    assert ip(settings, "10.0.0.1", forwarded_for=chain, trusted=trusted) == "192.168.1.1"


def test_a_chain_of_nothing_but_trusted_proxies_gives_the_farthest_one(settings):
    trusted = ("10.0.0.0/8",)
    assert ip(settings, "10.0.0.1", forwarded_for="10.0.0.3, 10.0.0.2", trusted=trusted) == (
        "10.0.0.3"
    )


def test_cidr_networks(settings):
    trusted = ("10.0.0.0/24",)
    assert ip(settings, "10.0.0.255", forwarded_for=ATTACKER, trusted=trusted) == ATTACKER
    assert ip(settings, "10.0.1.0", forwarded_for=ATTACKER, trusted=trusted) == "10.0.1.0"


def test_ipv6(settings):
    trusted = ("::1", "2001:db8:aa::/48")
    assert ip(settings, "::1", forwarded_for="2001:db8::1", trusted=trusted) == "2001:db8::1"
    # The address is normalised, so one client cannot make many lock-out keys.
    assert ip(settings, "::1", forwarded_for="2001:DB8:0:0::1", trusted=trusted) == "2001:db8::1"
    chain = f"{ATTACKER}, 2001:db8:aa:1::5"
    assert ip(settings, "2001:db8:aa::1", forwarded_for=chain, trusted=trusted) == ATTACKER
    assert ip(settings, "2001:db8:bb::1", forwarded_for=ATTACKER, trusted=trusted) == (
        "2001:db8:bb::1"
    )
    # An IPv4 address seen through an IPv6 socket is the IPv4 address.
    assert ip(settings, "::ffff:127.0.0.1", forwarded_for=ATTACKER) == ATTACKER
    assert ip(settings, PROXY, forwarded_for=f"::ffff:{ATTACKER}") == ATTACKER
    # An IPv4 network never holds an IPv6 address, and the other way round.
    assert ip(settings, "::1", forwarded_for=ATTACKER, trusted=("0.0.0.0/0",)) == "::1"
    assert ip(settings, PROXY, forwarded_for=ATTACKER, trusted=("::/0",)) == PROXY


@pytest.mark.parametrize(
    "garbage",
    [
        "garbage",
        "unknown",
        "",
        "999.1.1.1",
        "203.0.113.9:4711",
        "[2001:db8::1]",
        "203.0.113.9 198.51.100.7",
        "<script>",
        "x" * 5000,
    ],
)
def test_malformed_entries_are_never_believed(settings, garbage):
    # Garbage as the proxy's own entry: the proxy itself is the last good address,
    # never the spoofed value to its left.
    assert ip(settings, PROXY, forwarded_for=f"1.1.1.1, {garbage}") == PROXY
    assert (
        ip(
            settings,
            PROXY,
            forwarded_for=f"1.1.1.1,{garbage},10.0.0.7",
            trusted=(PROXY, "10.0.0.0/8"),
        )
        == "10.0.0.7"
    )
    # Garbage to the left of the client is never reached.
    assert ip(settings, PROXY, forwarded_for=f"{garbage}, {ATTACKER}") == ATTACKER


def test_a_remote_addr_that_is_not_an_address_is_returned_as_it_is(settings):
    assert ip(settings, "", forwarded_for=ATTACKER) == ""
    assert ip(settings, "not-an-ip", forwarded_for=ATTACKER) == "not-an-ip"


def test_the_setting_is_parsed_and_bad_entries_stop_the_app(settings):
    assert parse_networks("") == []
    assert parse_networks(" 127.0.0.1 , 10.0.0.0/8,, ::1 ") == networks(
        "127.0.0.1/32", "10.0.0.0/8", "::1/128"
    )
    assert parse_networks("10.1.2.3/8") == networks("10.0.0.0/8")
    with pytest.raises(ImproperlyConfigured, match="nginx"):
        parse_networks("127.0.0.1, nginx")
