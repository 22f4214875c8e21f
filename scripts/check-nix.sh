#!/bin/sh
# Parse the flake and the NixOS module with nix-instantiate (Debian: apt install nix-bin).
# Exits 0 when both parse, 1 when one does not, 2 when nix-instantiate is not installed.
set -u
cd "$(dirname "$0")/.." || exit 1
if ! command -v nix-instantiate >/dev/null 2>&1; then
  echo "check-nix: nix-instantiate is not installed: NOT CHECKED (apt install nix-bin)" >&2
  exit 2
fi
status=0
for file in flake.nix nix/module.nix; do
  if nix-instantiate --parse "$file" >/dev/null; then
    echo "check-nix: ok   $file parses"
  else
    echo "check-nix: FAIL $file does not parse" >&2
    status=1
  fi
done
exit $status
