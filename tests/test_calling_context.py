"""The panel's template machinery (docs/speed.md §Entry path): ``web.CallingContext`` (the app's
Jinja context class) calls every kind of callable a template names exactly as Jinja's own context
does, and what ``fragment`` and ``game_url`` keep stays bounded."""

from __future__ import annotations

import pytest
from jinja2 import Environment, pass_context, pass_environment, pass_eval_context
from jinja2.runtime import Context

from scorekeeper.web import CallingContext


def plain(*args, **kwargs):
    return f"plain{args}{sorted(kwargs.items())}"


@pass_eval_context
def with_eval_context(eval_ctx, x):
    return f"eval:{eval_ctx.autoescape}:{x}"


@pass_context
def with_context(context, x):
    return f"context:{context.get('shown')}:{context.get('item')}:{x}"


@pass_environment
def with_environment(env, x):
    return f"env:{env is not None}:{x}"


class Callable:
    @pass_context
    def __call__(self, context, x):
        return f"callable:{context.get('item')}:{x}"


def stops():
    raise StopIteration


TEMPLATE = """{% macro m(v) %}[{{ plain(v) }}|{{ with_context(v) }}]{% endmacro %}{% set shown = "top" %}
{{ plain(1, k=2) }} {{ with_eval_context("<b>") }} {{ with_context(3) }} {{ with_environment(4) }}
{{ callable_object(5) }} {{ "%s"|format(stops()) }} {{ bound("x") }} {{ lambda_(6) }}
{% for item in items %}{{ plain(item) }} {{ with_eval_context(item) }} {{ with_context(item) }}
{% set shown = "set in the loop" %}{{ with_context(item) }}
{{ callable_object(item) }} {{ m(item) }}
{% endfor %}
{% block b %}{% for item in items %}{{ with_context(item) }}{{ plain(item) }}{% endfor %}{% endblock %}"""


def render(context_class: type) -> str:
    env = Environment(autoescape=True)
    env.context_class = context_class
    env.globals.update(plain=plain, with_eval_context=with_eval_context, with_context=with_context,
                       with_environment=with_environment, callable_object=Callable(), stops=stops,
                       bound="{}!".format, lambda_=lambda v: v * 2)
    return env.from_string(TEMPLATE).render(items=["a", "<i>"])


def test_every_kind_of_callable_is_called_as_jinja_calls_it():
    ours, jinjas = render(CallingContext), render(Context)
    assert ours == jinjas
    assert all(part in ours for part in ("eval:True:&lt;b&gt;", "context:top:", "env:True:4", "callable:", "x!", " 12",
                                         "context:set in the loop:"))


def test_the_app_renders_with_it(app):
    assert app.jinja_env.context_class is CallingContext
    with app.test_request_context():
        assert app.jinja_env.from_string("{{ _('Pot') }}").render() == "Pot"


def test_a_templates_globals_are_jinjas_in_one_plain_dict(app):
    """``web.TemplateEnvironment``: a template's globals hold what Jinja's ``ChainMap`` holds (the
    environment's, under the template's own, which stay its own), as one dict, which a render
    copies at once instead of key by key (docs/speed.md §Entry path)."""
    env = app.jinja_env
    template = env.from_string("{{ own }} {{ describe is defined }}", globals={"own": "mine"})
    assert type(template.globals) is dict and "own" not in env.globals
    jinja = Environment()
    jinja.globals = env.globals
    assert template.globals == dict(jinja.make_globals({"own": "mine"}))
    with app.test_request_context():
        assert template.render() == "mine True"
        # a template loaded from the app's folder, with the page's context and without
        assert type(env.get_template("games/_dice.html").globals) is dict
        assert "<form" in env.from_string('{{ entry_form(game, "turn", "Ann") }}').render(
            game=type("G", (), {"id": 1, "version": 3})())


@pytest.mark.parametrize("name", ["plain", "with_eval_context", "with_context"])
def test_a_call_in_a_loop_does_not_pass_the_loops_variables_on(name):
    env = Environment(autoescape=True)
    env.context_class = CallingContext
    env.globals[name] = globals()[name]
    out = env.from_string("{% for item in [1] %}{{ " + name + "(item) }}{% endfor %}").render()
    assert "_loop_vars" not in out and "_block_vars" not in out


def test_what_the_panels_keep_stays_bounded():
    """``web._kept`` (the store of ``fragment`` and ``game_url``): made once per key, and the store
    emptied when it holds its limit, whatever the keys."""
    from scorekeeper.web import _kept

    store, made = {}, []
    for i in range(10):
        assert _kept(store, 4, (i,), lambda i=i: made.append(i) or f"v{i}") == f"v{i}"
        assert len(store) <= 4
    assert _kept(store, 4, (9,), lambda: "again") == "v9" and made == list(range(10))
