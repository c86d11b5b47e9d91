"""Host access, the bottom of the pipeline: reading a host's files and commands and making their text safe.

``sources/`` reads a live host, a sosreport directory or tarball, or a collector snapshot's recorded texts
(``specs.py`` says where each input lives); ``text.py`` decodes raw bytes, ``jsonfile.py`` loads untrusted
JSON with bounded work and ``redact.py`` masks secrets in every text that leaves the program. Facts and the
log analyzers both read through this layer; it imports neither.
"""
