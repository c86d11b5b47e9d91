"""One change set per run, between what plan and audit decide and what render, apply and verify do with it."""
