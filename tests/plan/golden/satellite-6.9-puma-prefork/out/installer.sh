#!/bin/sh
set -e
satellite-installer \
  --tuning medium \
  --foreman-dynflow-worker-instances 2 \
  --foreman-foreman-service-puma-workers 5 \
  --foreman-foreman-service-puma-threads-min 16 \
  --foreman-db-pool 20
