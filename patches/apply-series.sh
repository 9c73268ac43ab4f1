#!/bin/bash
# Apply patches to a tree with -F0, in order, and when one does not apply
# say where: `patch --dry-run` on the tree as it stands (the patches
# before it applied) names each file and each hunk that failed, and the
# hunks that only apply at an offset.  Used by patches/build-mine.sh (a
# series of yours); the lab's own flavours' patches are
# patches/build-flavour.sh's.
#
#   patches/apply-series.sh TREE LABEL=PATCH...
# LABEL names the patch in what is printed (e.g. mine.patches/0001-x.patch).
# Exit status: 0 every patch applied; 1 one did not (stderr: which, and
# the dry run's lines), the tree then half patched: the caller removes it;
# 2 usage.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 TREE LABEL=PATCH..." >&2
	exit 2
fi
tree=$1
shift
for lp in "$@"; do
	label=${lp%%=*} p=${lp#*=}
	echo "gup-lab: applying $label" >&2
	# GNU patch replaces files, never writing through hard links.
	if patch -d "$tree" -p1 -F0 --no-backup-if-mismatch -s <"$p" >/dev/null 2>&1; then
		continue
	fi
	{
		echo "gup-lab: $label does not apply with -F0; patch --dry-run says:"
		patch -d "$tree" -p1 -F0 --dry-run <"$p" 2>&1 |
			grep -E '^(checking|patching) file |FAILED|succeeded at .*offset|can.t find file|Only garbage|malformed' |
			sed 's/^/gup-lab:   /' || true
	} >&2
	exit 1
done
