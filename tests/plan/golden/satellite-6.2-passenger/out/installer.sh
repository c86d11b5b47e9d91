#!/bin/sh
set -e
# Satellite 6.2 (Foreman 1.11): no installer options to change; apply the file edits in APPLY.md (a later installer run overwrites them)
