#!/bin/sh
set -e
# a key set in custom-hiera.yaml overrides the installer option for it (and the tuning profile): an option on the installer command does not change it while the key is there
satellite-installer \
  --tuning large \
  --foreman-dynflow-worker-instances 3 \
  --foreman-foreman-service-puma-workers 18 \
  --foreman-foreman-service-puma-threads-min 16 \
  --foreman-foreman-service-puma-threads-max 16 \
  --foreman-db-pool 20 \
  --foreman-cli-request-timeout -1
