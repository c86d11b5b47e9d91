#!/bin/sh
set -e
satellite-installer \
  --foreman-passenger-min-instances 3 \
  --puppet-splay true
