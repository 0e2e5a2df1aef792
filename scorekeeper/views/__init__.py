"""Blueprints: thin views that parse a form, call a service and render."""
