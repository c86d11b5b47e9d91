#!/bin/sh
set -e
# a key set in custom-hiera.yaml overrides the installer option for it (and the tuning profile): an option on the installer command does not change it while the key is there
satellite-installer --scenario capsule \
  --foreman-proxy-plugin-remote-execution-script-mqtt-rate-limit 200
