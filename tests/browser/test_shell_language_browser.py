"""A German phone: the login and register pages, the account page and the installable app's
manifest (as Chromium reads it) are German; the switch on the account page turns them English."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, expect


@pytest.fixture
def german_page(browser: Browser, browser_context_args):
    context = browser.new_context(**{**browser_context_args, "locale": "de-DE"})
    yield context.new_page()
    context.close()


def app_manifest(page) -> dict:
    """The manifest Chromium fetched for the page (what an install would use)."""
    cdp = page.context.new_cdp_session(page)
    got = cdp.send("Page.getAppManifest")
    assert not got["errors"], got["errors"]
    return json.loads(got["data"])


def test_a_german_phone_registers_and_installs_in_german(german_page, live_server: str):
    page, base = german_page, live_server
    page.goto(base + "/login")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page).to_have_title("Anmelden · scorekeeper")
    expect(page.get_by_role("heading", name="Anmelden")).to_be_visible()
    expect(page.get_by_label("Auf diesem Handy angemeldet bleiben")).to_be_checked()
    manifest = app_manifest(page)
    assert manifest["name"] == "scorekeeper: Würfelspiele am Tisch" and manifest["lang"] == "de"
    assert "Mäxchen" in manifest["description"]

    page.get_by_role("link", name="Registrieren").last.click()
    expect(page.get_by_role("heading", name="Konto anlegen")).to_be_visible()
    page.get_by_label("Name").fill("ann")
    page.get_by_label("Passwort", exact=True).fill("password")
    page.get_by_label("Passwort noch einmal").fill("password")
    page.get_by_role("button", name="Registrieren").click()
    expect(page.get_by_text("Dieses Passwort gehört zu den am leichtesten zu erratenden.")).to_be_visible()
    page.get_by_label("Passwort", exact=True).fill("correct horse")
    page.get_by_label("Passwort noch einmal").fill("correct horse")
    page.get_by_role("button", name="Registrieren").click()

    page.get_by_role("link", name="Konto").click()
    expect(page.get_by_role("heading", name="Konto: ann")).to_be_visible()
    expect(page.get_by_role("button", name="Abmelden")).to_be_visible()

    # The switch on the account page: English from now on, manifest included.
    page.get_by_role("button", name="English").click()
    expect(page.get_by_role("heading", name="Account: ann")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert app_manifest(page)["name"] == "scorekeeper: dice games at the table"
