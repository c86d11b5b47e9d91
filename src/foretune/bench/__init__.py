"""Storage (fio) and database (pgbench) benchmarks with cited verdicts, and the database size report.

fio.py builds and parses fio jobs; storage.py chooses jobs, keeps runs safe and judges them;
pgclient.py, pgbench.py and dbsize.py talk to PostgreSQL; results.py owns the foretune-bench/1
document; progress.py and text.py are what a person sees.
"""
