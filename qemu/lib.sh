# shellcheck shell=bash
# Shared helpers for gup-lab's shell jobs: cache layout, input hashing,
# flavour lookup.  Sourced, never executed.

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Builds live outside the clone so that a fresh clone reuses them.
LAB_CACHE=${GUP_LAB_CACHE:-/var/cache/gup-lab}
LAB_SOURCE_PKG=linux-source-6.1

die() {
	echo "gup-lab: $*" >&2
	exit 1
}

log() {
	echo "gup-lab: $*" >&2
}

source_pkg_version() {
	dpkg-query -W -f='${Version}' "$LAB_SOURCE_PKG" 2>/dev/null ||
		die "$LAB_SOURCE_PKG is not installed: run 'make deps'"
}

# Print the path of the pristine unpacked tree for the installed package.
source_tree() {
	echo "$LAB_CACHE/src/$LAB_SOURCE_PKG-$(source_pkg_version)"
}

# hash_inputs FILE... : one sha256 over the names and contents of the files.
hash_inputs() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$LAB_ROOT"/}"
		cat "$f"
	done | sha256sum | cut -c1-16
}

# flavour_field NAME COLUMN: one column of the flavour's line in
# patches/flavours (2 series, 3 gup policy, 4 ext4 behaviour).
flavour_field() {
	awk -v f="$1" -v c="$2" '!/^#/ && $1 == f { print $c; found = 1 }
		END { exit !found }' "$LAB_ROOT/patches/flavours" ||
		die "unknown flavour '$1' (see patches/flavours)"
}

# flavour_series NAME: the flavour's series directories, in order.
flavour_series() {
	local s
	s=$(flavour_field "$1" 2) || exit 1
	[ "$s" = "-" ] || tr ',' '\n' <<<"$s"
}

all_flavours() {
	awk '!/^#/ && NF { print $1 }' "$LAB_ROOT/patches/flavours"
}

# flavour_key NAME: hash of every input of the flavour's kernel build.
flavour_key() {
	local name=$1 s files=()
	for s in $(flavour_series "$name"); do
		files+=("$LAB_ROOT"/patches/"$s"/*.patch)
	done
	{
		echo "$LAB_SOURCE_PKG $(source_pkg_version) flavour $name"
		echo "series: $(flavour_series "$name" | tr '\n' ' ')"
		hash_inputs "${files[@]}" "$LAB_ROOT/patches/config.fragment" \
			"$LAB_ROOT/patches/build-flavour.sh" \
			"$LAB_ROOT/qemu/lib.sh"
	} | sha256sum | cut -c1-16
}

# flavour_dir NAME: where the flavour's built tree (O= directory) lives.
flavour_dir() {
	echo "$LAB_CACHE/kernels/$1-$(flavour_key "$1")"
}

rootfs_key() {
	hash_inputs "$LAB_ROOT/rootfs/build-rootfs.sh" "$LAB_ROOT/rootfs/init" \
		"$LAB_ROOT/rootfs/packages" "$LAB_ROOT/qemu/lib.sh"
}

rootfs_image() {
	echo "$LAB_CACHE/rootfs/rootfs-$(rootfs_key).img"
}
