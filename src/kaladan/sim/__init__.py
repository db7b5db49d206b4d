"""Batch simulation of games between bots."""
