"""`foretune apply` and `verify`: one change set written with backups and a journal, read back, drift."""
