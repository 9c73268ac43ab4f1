#!/bin/bash
# Install the host packages gup-lab needs (Debian bookworm), only those
# missing, so repeated `make` runs cost nothing.
set -euo pipefail

here=$(dirname "$0")
# Every kernel source a flavour names (patches/flavours' source column)
# that the machine's own suites carry; those of patches/sources are
# fetched into the cache at the end (patches/fetch-source.sh).
mapfile -t sources < <(awk '!/^#/ && NF { print "linux-source-" $5 }' \
	"$here/../patches/flavours" | sort -u |
	grep -vxFf <(awk '!/^#/ && NF { print $1 }' "$here/../patches/sources"))
packages=(
	"${sources[@]}" linux-headers-amd64	# the kernel trees; compile check
	build-essential bc bison flex libelf-dev libssl-dev ccache lz4
	qemu-system-x86 debootstrap e2fsprogs kmod
	shellcheck python3 binutils
	debian-archive-keyring			# patches/fetch-source.sh: apt checks the other suites' signatures
	libjansson-dev jq			# JSON: gupctl reads and writes it, suites read it
	genisoimage				# the driver selftest's iso9660 image
	liburing-dev rsync			# gup_longterm's io_uring half; 6.12's headers_install
	libibverbs-dev				# gupctl-rdma: consumers' RDMA cells (the rdma overlay)
	xfsprogs btrfs-progs			# the xfs and btrfs scratch images, made and read on the host
	chromium chromium-driver python3-selenium fonts-dejavu-core	# the explorer's browser test
)
missing=()
for p in "${packages[@]}"; do
	grep -q 'ok installed' <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || {
		echo "gup-lab: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
		exit 1
	}
	echo "gup-lab: installing ${missing[*]}" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
# The kernel sources of other suites (patches/sources), into the cache.
"$here/../patches/fetch-source.sh"
