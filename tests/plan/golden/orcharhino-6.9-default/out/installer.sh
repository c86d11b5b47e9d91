#!/bin/sh
set -e
foreman-installer \
  --tuning default \
  --foreman-foreman-service-puma-threads-min 16 \
  --foreman-foreman-service-puma-threads-max 16 \
  --foreman-db-pool 20
