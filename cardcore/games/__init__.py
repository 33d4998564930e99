"""One module per game; each imports only the core modules, never another game."""
