#!/bin/sh
set -e
systemctl enable --now tuned
tuned-adm profile virtual-guest
grubby --update-kernel=ALL --args=transparent_hugepage=never
echo never > /sys/kernel/mm/transparent_hugepage/enabled
