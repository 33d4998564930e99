"""Bots as separate programs and the referee (issue 27): cardcore.referee, cardcore.arena."""
