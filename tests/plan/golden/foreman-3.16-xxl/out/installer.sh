#!/bin/sh
set -e
foreman-installer \
  --tuning extra-extra-large \
  --foreman-dynflow-worker-instances 3 \
  --foreman-foreman-service-puma-workers 26
