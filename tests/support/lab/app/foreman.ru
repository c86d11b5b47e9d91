# The lab's stand-in for Foreman/Katello: the registration, content-adjacent and API endpoints in their real
# call shapes, on PostgreSQL through ActiveRecord's connection pool, proxying to the Candlepin-like backend.
# Connections are checked out on the first query of a request and returned when it completes, as Rails does.
# production.log lines follow Foreman's "%d [%.1l|%.3c|%.8X{request}] %m" layout.
require_relative "foreman_app"

run ForemanApp.new
