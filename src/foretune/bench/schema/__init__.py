"""JSON schema of the foretune-bench/1 results document (data only)."""
