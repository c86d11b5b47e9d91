#!/bin/sh
set -e
foreman-installer \
  --tuning default \
  --foreman-foreman-service-puma-workers 5 \
  --foreman-db-pool 9
