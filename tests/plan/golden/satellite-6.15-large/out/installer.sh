#!/bin/sh
set -e
satellite-installer \
  --tuning large \
  --foreman-dynflow-worker-instances 3 \
  --foreman-foreman-service-puma-workers 18 \
  --foreman-db-pool 9
