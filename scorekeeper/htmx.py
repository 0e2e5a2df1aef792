"""Every use of htmx-flask in one place, so it can be swapped out.

``is_htmx()`` tells an htmx request; ``fragment_or_page()`` and
``client_redirect()`` build responses. ``Vary: HX-Request`` is added to every
response whose body depends on that header. htmx-flask's ``reswap`` mis-handles
``beforebegin``/``afterbegin`` (a missing comma in its list): set ``HX-Reswap``
yourself for those.
"""

from __future__ import annotations

from flask import Response
from htmx_flask import Htmx
from htmx_flask import make_response as htmx_response
from htmx_flask import request as htmx_request

htmx = Htmx()


def init_app(app) -> None:
    htmx.init_app(app)

    @app.after_request
    def _vary(response: Response) -> Response:
        if response.mimetype == "text/html":
            response.vary.add("HX-Request")
        return response


def is_htmx() -> bool:
    """True when htmx made this request (and it is not a history restore)."""
    hx = htmx_request.htmx  # one look-up through the request's proxy
    return bool(hx) and not hx.history_restore_request


def client_redirect(url: str, status: int = 200) -> Response:
    """Make htmx load ``url`` as a whole page (HX-Redirect)."""
    response = htmx_response("", redirect=url)
    response.status_code = status
    return response


def retarget_headers(selector: str, swap: str = "innerHTML") -> dict:
    """Headers that make htmx put this response into ``selector`` instead of the request's target.

    Set by hand: htmx-flask's ``reswap`` refuses some swap styles (see module doc).
    """
    return {"HX-Retarget": selector, "HX-Reswap": swap}
