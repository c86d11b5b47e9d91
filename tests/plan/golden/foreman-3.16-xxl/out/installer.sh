#!/bin/sh
set -e
foreman-installer \
  --tuning extra-extra-large \
  --foreman-dynflow-worker-instances 3 \
  --foreman-foreman-service-puma-workers 26 \
  --foreman-foreman-service-puma-threads-min 16 \
  --foreman-foreman-service-puma-threads-max 16 \
  --foreman-cli-request-timeout -1
