#!/bin/sh
set -e
satellite-installer --scenario capsule \
  --foreman-proxy-plugin-remote-execution-script-mqtt-rate-limit 200
