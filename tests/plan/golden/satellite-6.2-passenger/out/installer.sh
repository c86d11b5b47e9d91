#!/bin/sh
set -e
# Satellite 6.2 (Foreman 1.11) reads no custom-hiera.yaml: apply the file edits in APPLY.md after this run (a later installer run overwrites them; these options stay in the answers file)
satellite-installer \
  --foreman-passenger-min-instances 3
