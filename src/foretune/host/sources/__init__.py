"""Sources: ways to read a spec's raw text from a live host, a sosreport tree or tarball."""
