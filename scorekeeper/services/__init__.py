"""Services: load a game's log, replay it through the rules, append, commit."""
