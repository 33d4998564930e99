"""War: a game that lives only in the tests, to show (and prove) how a game is added."""
