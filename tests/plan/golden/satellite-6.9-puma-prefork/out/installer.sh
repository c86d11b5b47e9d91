#!/bin/sh
set -e
satellite-installer \
  --tuning medium \
  --foreman-dynflow-worker-instances 2 \
  --foreman-foreman-service-puma-threads-min 5 \
  --foreman-foreman-service-puma-threads-max 5 \
  --foreman-db-pool 9
