"""The pure URL checks behind the URL consent card, without widgets (nbacp.render.urls)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nbacp.render.urls import ALLOWED_SCHEMES, UrlCheck, check_url, is_loopback, url_parts


def test_plain_https_is_openable_without_warnings() -> None:
    check = check_url("https://example.com/path?q=1")
    assert check == UrlCheck("https://example.com/path?q=1", host="example.com", display_host="example.com")
    assert check.openable and check.warnings == ()


def test_only_http_and_https_are_openable() -> None:
    assert ALLOWED_SCHEMES == ("http", "https")
    for url in ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "example.com"):
        check = check_url(url)
        assert not check.openable and check.refusal is not None and "http and https" in check.refusal


def test_refusals_name_the_problem() -> None:
    assert check_url("").refusal == "The agent sent an empty link."
    assert "invisible or control" in (check_url("https://exa mple.com").refusal or "")
    assert "invisible or control" in (check_url("https://example.com/\u202e").refusal or "")
    assert check_url("https:///path").refusal == "The link has no host."
    assert "cannot be parsed" in (check_url("https://example.com:99999/").refusal or "")


def test_warnings() -> None:
    assert any("not encrypted" in w for w in check_url("http://example.com").warnings)
    punycode = check_url("https://xn--bcher-kva.de/")
    assert punycode.host == "xn--bcher-kva.de" and punycode.display_host == "b\u00fccher.de"
    assert any("punycode" in w for w in punycode.warnings)
    non_ascii = check_url("https://b\u00fccher.de/")
    assert non_ascii.host == "xn--bcher-kva.de" and any("non-ASCII" in w for w in non_ascii.warnings)
    assert any("mixes scripts" in w for w in check_url("https://\u0430pple.com/").warnings)
    assert any("before '@'" in w for w in check_url("https://bank.example@evil.example/").warnings)
    assert check_url("https://example.com:8443/").host == "example.com:8443"


def test_the_checks_import_without_widgets() -> None:
    heavy = ("ipywidgets", "anywidget", "acp")
    code = f"import nbacp.render.urls, sys; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8888/lab",
        "http://127.9.8.7/",
        "http://[::1]:5000/cb",
        "http://localhost/",
        "http://LOCALHOST.:80/",
        "http://auth.localhost/cb",
    ],
)
def test_plain_http_to_this_machine_is_not_warned_about(url: str) -> None:
    check = check_url(url)
    assert check.openable and not any("not encrypted" in w for w in check.warnings), check.warnings


@pytest.mark.parametrize(
    "url",
    [
        "http://128.0.0.1/",
        "http://10.0.0.1/",
        "http://localhost.example.com/",
        "http://[::2]/",
        "http://127.0.0.1.nip.io/",
    ],
)
def test_plain_http_elsewhere_still_warns(url: str) -> None:
    assert any("not encrypted" in w for w in check_url(url).warnings)


def test_loopback_hosts() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("[::1]") and is_loopback("Localhost")
    assert not is_loopback("example.com") and not is_loopback("0.0.0.0") and not is_loopback("")


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        ("https://Example.com/a?b=1", ("https://", "Example.com", "/a?b=1")),
        ("https://bank.example@evil.example:8443/x", ("https://bank.example@", "evil.example", ":8443/x")),
        ("https://u:p@[::1]:9/x", ("https://u:p@", "[::1]", ":9/x")),
        ("http://xn--80ak6aa92e.com", ("http://", "xn--80ak6aa92e.com", "")),
        ("javascript:alert(1)", ("javascript:alert(1)", "", "")),
        ("", ("", "", "")),
    ],
)
def test_url_parts_mark_the_host_as_written(url: str, parts: tuple[str, str, str]) -> None:
    assert url_parts(url) == parts
    assert "".join(url_parts(url)) == url
