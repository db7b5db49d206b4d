"""The terminal game (``kaladan play``): screen, input, seats, saves and the replay viewer.

A front end over ``kaladan.game.Game``: it holds no rule, shows only what a seat may see (R5.13)
and sends every decision through the checked ``Game.play``.
"""
