"""The comparison endpoint for ``bench/load.py``: a bare Flask app, same gunicorn settings."""

from flask import Flask, request

app = Flask(__name__)


@app.post("/games/<int:game_id>/entries")
def entry(game_id: int):
    return f'<section id="panel">entry {request.form.get("version", "")} of game {game_id}</section>'


@app.get("/games/<int:game_id>")
def page(game_id: int):
    return '<body hx-headers=\'{"X-CSRFToken": "bare"}\'>game</body>'
