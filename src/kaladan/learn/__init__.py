"""Training what the bots learn (needs ``kaladan[train]``: PyTorch); playing never imports it."""
