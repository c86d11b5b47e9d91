#!/bin/sh
set -e
satellite-installer \
  --tuning medium \
  --foreman-foreman-service-puma-workers 5 \
  --foreman-foreman-service-puma-threads-min 16 \
  --foreman-db-pool 20
