"""The expert bot and its learned evaluator (docs/value.md).

Above ``bots`` and ``env`` (the network reads the environments' observation vector), so the
bot registry reaches it as a registered bot (``kaladan.bots`` entry point), as it does the
trained ``ppo`` policy.
"""
