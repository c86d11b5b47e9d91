"""Why failures that look alike stay separate findings (``Rule.distinct_from``; audit.combine says it beside each).

PostgreSQL's server limit and Foreman's Rails pool both end in connection errors, but each has its own cause, its own
log line and its own fix: one exhaustion of either is one finding, and the two stay two.
"""

from __future__ import annotations

# said beside PostgreSQL's limit (pg-max-connections-below-budget, pg-connection-exhaustion) when the pool fails too
SERVER_LIMIT = ("PostgreSQL refuses a new connection once max_connections are open ('too many clients'), whichever "
                "service asks; Rails' ConnectionTimeoutError is a Puma thread waiting for a slot of its own worker's "
                "pool, which no server limit causes or cures. The pool's fix opens more connections, which this limit "
                "must then hold")
# said beside the Rails pool (foreman-db-pool-too-small, foreman-db-pool-timeout) when PostgreSQL's limit fails too
RAILS_POOL = ("a Puma thread waits for a slot of its own worker's pool (ConnectionTimeoutError) however many "
              "connections PostgreSQL allows; 'too many clients' is the server's limit, reached by all services "
              "together, and raising it gives no thread a pool slot")
