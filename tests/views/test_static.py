"""Static files: precompressed br and gzip, immutable on versioned URLs, 304s for the manifest and sw.js."""

from __future__ import annotations

import gzip
import re

import brotli

from scorekeeper import static
from scorekeeper.web import static_url


def versioned(app, name: str) -> str:
    with app.test_request_context():
        return static_url(name)


def test_versioned_css_and_js_are_immutable_and_precompressed(app, client):
    for name in ("app.css", "vendor/htmx-2.0.11.min.js"):
        url = versioned(app, name)
        raw = (app.static_folder + "/" + name)
        original = static.served(name, open(raw, "rb").read())
        br = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br"})
        assert br.status_code == 200 and br.headers["Content-Encoding"] == "br"
        assert "immutable" in br.headers["Cache-Control"] and "max-age=31536000" in br.headers["Cache-Control"]
        assert brotli.decompress(br.data) == original
        gz = client.get(url, headers={"Accept-Encoding": "gzip"})  # a gzip-only client
        assert gz.headers["Content-Encoding"] == "gzip" and gzip.decompress(gz.data) == original
        assert len(gz.data) < len(original) / 2
        plain = client.get(url)
        assert plain.data == original and "Content-Encoding" not in plain.headers


def test_the_apps_own_script_and_style_sheet_are_served_minified(app, client):
    """The comments of app.js and app.css stay in the source (docs/speed.md §Static files); a
    vendored .min. file is served as it is."""
    for name in ("app.js", "app.css"):
        source = open(app.static_folder + "/" + name, "rb").read()
        sent = client.get(versioned(app, name), headers={"Accept-Encoding": "br"})
        body = brotli.decompress(sent.data)
        assert body == static.served(name, source) and len(body) < len(source) * 0.8, name
        assert b"\n  //" not in body and b"/*" not in body, name
    assert b"// keep: nothing moves as the banner comes or goes" in open(app.static_folder + "/app.js", "rb").read()
    sent = brotli.decompress(client.get(versioned(app, "app.js"), headers={"Accept-Encoding": "br"}).data)
    # its code kept (the events it listens to), its local names shortened
    assert b'"htmx:afterSwap"' in sent and b"showOffline(offlineNow())" not in sent and b"showOffline" not in sent
    vendored = "vendor/htmx-2.0.11.min.js"
    assert client.get(versioned(app, vendored)).data == open(app.static_folder + "/" + vendored, "rb").read()


def test_unversioned_or_old_version_is_not_immutable(app, client):
    url = versioned(app, "app.css")
    for other in ("/static/app.css", re.sub(r"v=\w+", "v=0123456789", url)):
        r = client.get(other)
        assert r.status_code == 200 and "immutable" not in r.headers["Cache-Control"], other


def test_versioned_file_revalidates_with_304(app, client):
    url = versioned(app, "app.js")
    first = client.get(url)
    again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_manifest_and_service_worker_revalidate_with_304(client):
    for path in ("/manifest.webmanifest", "/sw.js"):
        first = client.get(path)
        assert first.status_code == 200 and "no-cache" in first.headers["Cache-Control"]
        etag = first.headers["ETag"]
        again = client.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304, path
        if "Last-Modified" in first.headers:
            since = client.get(path, headers={"If-Modified-Since": first.headers["Last-Modified"]})
            assert since.status_code == 304, path


def test_compressed_copy_built_once_per_content(app, tmp_path):
    from pathlib import Path

    cache = tmp_path / "cache"
    root, versions = static.build(Path(app.static_folder), cache)
    assert (root / "app.css.br").exists() and (root / "app.css.gz").exists()
    again, _ = static.build(Path(app.static_folder), cache)
    assert again == root and len(list(cache.iterdir())) == 1
    assert versions["/static/app.css"] in versioned(app, "app.css")


def test_a_worker_starting_on_a_built_copy_imports_no_minifier(app, tmp_path):
    """The minifier (calmjs.parse, with its parser tables) is imported only to build a copy: a
    worker that starts on a built one, as every worker but the first does, goes without."""
    import subprocess
    import sys
    from pathlib import Path

    cache = tmp_path / "cache"
    static.build(Path(app.static_folder), cache)
    script = ("import sys; from pathlib import Path; from scorekeeper import static; "
              f"static.build(Path({app.static_folder!r}), Path({str(cache)!r})); "
              "print(sorted(m for m in sys.modules if m.startswith(('calmjs', 'ply'))))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert len(list(cache.iterdir())) == 1


def test_the_static_cache_folder_is_the_one_the_environment_names(make_app, monkeypatch, tmp_path):
    """README §Configuration names ``STATIC_CACHE``; it was never read, and the copies went to the
    instance folder whatever it said (found by a review)."""
    folder = tmp_path / "elsewhere"
    monkeypatch.setenv("STATIC_CACHE", str(folder))
    app = make_app()
    try:
        assert folder.is_dir() and list(folder.rglob("*.br")) and list(folder.rglob("*.gz"))
        r = app.test_client().get(versioned(app, "app.css"), headers={"Accept-Encoding": "br"})
        assert r.status_code == 200 and r.headers["Content-Encoding"] == "br"
    finally:
        app.extensions["scorekeeper.engine"].dispose()


def test_every_static_file_is_sent_with_nosniff(app, client):
    """A browser takes each static file as the type it is sent as, as the pages ask too (the
    static files went without ``X-Content-Type-Options``: a playtest's headers check)."""
    for url in (versioned(app, "app.js"), "/static/app.js", versioned(app, "app.css"), "/static/dice.svg",
                "/favicon.ico"):
        r = client.get(url, headers={"Accept-Encoding": "br"})
        assert r.status_code in (200, 301, 302) and r.headers.get("X-Content-Type-Options") == "nosniff", url


def test_favicon_ico_is_the_apps_icon(client):
    """``/favicon.ico`` was a 404 (left alone before): a client that asks for it by that name is
    sent to the 32 px PNG, which is served."""
    r = client.get("/favicon.ico")
    assert r.status_code == 302 and "max-age=86400" in r.headers["Cache-Control"]
    icon = client.get(r.headers["Location"])
    assert icon.status_code == 200 and icon.mimetype == "image/png"
    body = b"".join(icon.response) if icon.is_streamed else icon.data
    assert body[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(body[16:20], "big") == 32
