#!/bin/sh
set -e
satellite-installer \
  --tuning large \
  --foreman-dynflow-worker-instances 3 \
  --foreman-foreman-service-puma-workers 18 \
  --foreman-foreman-service-puma-threads-min 16 \
  --foreman-foreman-service-puma-threads-max 16 \
  --foreman-db-pool 20 \
  --foreman-cli-request-timeout -1
