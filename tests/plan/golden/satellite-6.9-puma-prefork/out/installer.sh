#!/bin/sh
set -e
# a key set in custom-hiera.yaml overrides the installer option for it (and the tuning profile): an option on the installer command does not change it while the key is there
satellite-installer \
  --tuning medium \
  --foreman-foreman-service-puma-workers 5 \
  --foreman-foreman-service-puma-threads-min 16 \
  --foreman-db-pool 20
