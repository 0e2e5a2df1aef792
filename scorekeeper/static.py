"""Static files served by WhiteNoise, with precompressed br and gzip copies.

At start the app copies ``static/`` into a cache folder named after a hash of
its content (``STATIC_CACHE``, default ``instance/static-cache``), minifies its
own scripts and style sheets there (calmjs.parse, which also shortens a script's
local names, and rcssmin: the comments stay in the source, not in what a phone
downloads) and compresses every file with WhiteNoise's compressor, once per
content: later starts and the other workers reuse the folder. WhiteNoise then sends each client the
best encoding it accepts (br, else gzip, else the file itself), with ETag and
Last-Modified for 304s.

A URL made by :func:`scorekeeper.web.static_url` carries ``?v=<content hash>``;
when that hash is the file's current one, the answer is cached for a year as
``immutable``. Any other request of a static file is cached for five minutes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from urllib.parse import parse_qs

import rcssmin
from whitenoise import WhiteNoise
from whitenoise.compress import Compressor
from whitenoise.string_utils import decode_path_info

IMMUTABLE = "max-age=31536000, public, immutable"
SHORT = 300  # seconds, for a static file asked for without its version


def content_version(data: bytes) -> str:
    """The version a static URL carries: the first 10 hex digits of the content's SHA-256."""
    return hashlib.sha256(data).hexdigest()[:10]


def jsmin(text: str) -> str:
    """The script ``text`` (ES5) minified: whitespace and comments gone, and the names local to
    its functions shortened (calmjs.parse; the globals it uses keep theirs). app.js sent 4.8 KB
    (br) with whitespace and comments gone only, 4.3 KB so (docs/speed.md §Static files).
    Raises calmjs.parse's ``ECMASyntaxError`` on a script it cannot parse. calmjs.parse is
    imported here, when a copy is built, not by every worker as it starts (some 30 ms)."""
    from calmjs.parse import es5
    from calmjs.parse.unparsers.es5 import minify_print

    return minify_print(es5(text), obfuscate=True, obfuscate_globals=False)


def minifiers() -> str:
    """The minifiers and their versions, part of the cache folder's name: another version may
    minify otherwise, so its copy is built anew."""
    from importlib.metadata import version

    return f"calmjs.parse {version('calmjs.parse')}, rcssmin {rcssmin.__version__}"


#: How a file is minified, by its suffix. A vendored ``.min.`` file is served as it is.
MINIFY = {".js": jsmin, ".css": rcssmin.cssmin}


def served(name: str, data: bytes) -> bytes:
    """The bytes served for the static file ``name`` (its path under ``static/``) whose content
    is ``data``: minified when it is one of the app's own scripts or style sheets, else ``data``."""
    minify = MINIFY.get(os.path.splitext(name)[1])
    if minify is None or ".min." in name:
        return data
    return minify(data.decode("utf-8")).encode("utf-8")


def build(source: Path, cache: Path) -> tuple[Path, dict[str, str]]:
    """The minified and compressed copy of ``source`` under ``cache`` (built if missing) and
    ``{"/static/<name>": version}`` for every file (the version of its source, as
    :func:`scorekeeper.web.static_url` puts it in URLs)."""
    contents = {p.relative_to(source).as_posix(): p.read_bytes()
                for p in sorted(source.rglob("*")) if p.is_file()}
    versions, whole = {}, hashlib.sha256(minifiers().encode())
    for name, data in contents.items():
        versions["/static/" + name] = content_version(data)
        whole.update(name.encode() + b"\0" + data)
    target = cache / whole.hexdigest()[:16]
    if not target.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f".{target.name}.{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(source, tmp)
        for name, data in contents.items():  # each source read once (the copy keeps the file modes)
            out = served(name, data)
            if out is not data:
                (tmp / name).write_bytes(out)
        compressor = Compressor(quiet=True)
        for p in sorted(tmp.rglob("*")):
            if p.is_file() and compressor.should_compress(p.name):
                compressor.compress(str(p))
        try:
            tmp.rename(target)
        except OSError:  # another worker built the same copy first
            shutil.rmtree(tmp, ignore_errors=True)
    return target, versions


def _no_sniffing(headers, path: str, url: str) -> None:
    """WhiteNoise's ``add_headers_function``, once per file: a browser takes each file as the type
    it is sent as (``X-Content-Type-Options: nosniff``, which the app's pages send too; its static
    files went without: a playtest's headers check)."""
    headers["X-Content-Type-Options"] = "nosniff"


class StaticFiles(WhiteNoise):
    """WhiteNoise, plus ``immutable`` for URLs that carry the file's current version."""

    def __init__(self, application, root: Path, versions: dict[str, str]):
        super().__init__(application, root=str(root), prefix="static/", max_age=SHORT,
                         add_headers_function=_no_sniffing)
        self.versions = versions

    def __call__(self, environ, start_response):
        path = decode_path_info(environ.get("PATH_INFO", ""))
        static_file = self.files.get(path)
        if static_file is None:
            return self.application(environ, start_response)
        asked = parse_qs(environ.get("QUERY_STRING", "")).get("v", [None])[0]
        if asked is not None and asked == self.versions.get(path):
            def start(status, headers, exc_info=None):
                headers = [(k, v) for k, v in headers if k.lower() != "cache-control"]
                return start_response(status, headers + [("Cache-Control", IMMUTABLE)], exc_info)

            return self.serve(static_file, environ, start)
        return self.serve(static_file, environ, start_response)


def init_app(app) -> None:
    """Serve ``app.static_folder`` through :class:`StaticFiles` from its compressed copy."""
    cache = Path(app.config.get("STATIC_CACHE") or Path(app.instance_path) / "static-cache")
    root, versions = build(Path(app.static_folder), cache)
    app.wsgi_app = StaticFiles(app.wsgi_app, root, versions)
