"""``foretune load``: protocol-level load on a Foreman/Katello server, the way the vendor's performance team measures.

plan.py (what each scenario requests) -> engine.py (Locust users, closed ramps and open arrivals, limits) and
mqtt.py (pull-REX clients) -> results.py (per step and level: counts, failures by kind, percentiles) ->
report.py (text, Markdown, comparison).
"""
