#!/bin/bash
# Fetch a kernel source package of patches/sources (default: every one)
# from its suite on the Debian mirror that this machine's apt
# configuration names, and unpack its .deb into the cache
# ($LAB_CACHE/debs/PKG-VERSION, patches/flavours.sh's source_fetched),
# without installing it and without touching the machine's apt: a private
# sources list, state and cache directory under $LAB_CACHE/apt, and apt's
# own signature check against debian-archive-keyring.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# The suite of the machine's own that names the Debian archive's mirror.
HOST_SUITE=bookworm

# fetch PKG: fetch and unpack PKG at its pin, unless that is done.
fetch() {
	local pkg=$1 version suite dest mirror apt_dir apt_opts deb served
	version=$(source_pin "$pkg" 2) || die "$pkg is not in patches/sources"
	suite=$(source_pin "$pkg" 3)
	dest=$(source_fetched "$pkg")
	[ ! -f "$dest/.gup-lab-fetched" ] || return 0
	[ -f "$keyring" ] ||
		die "$keyring missing: apt-get install debian-archive-keyring (apt checks $suite's signature with it)"
	mirror=$(apt_mirror "$HOST_SUITE" | head -1 || true)
	[ -n "$mirror" ] ||
		die "no Debian mirror for $HOST_SUITE in /etc/apt/sources.list{,.d}: cannot reach $suite for $pkg"
	apt_dir=$LAB_CACHE/apt/$suite
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/debs"
	# The list names the mirror read above; it lives in the cache only.
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$mirror" "$suite" "$keyring" >"$apt_dir/gup-lab.sources"
	: >"$apt_dir/status"
	apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/gup-lab.sources"
		-o "Dir::Etc::sourceparts=-" -o "Dir::Etc::preferences=/dev/null"
		-o "Dir::Etc::preferencesparts=-" -o "Dir::State=$apt_dir"
		-o "Dir::State::lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status"
		-o "Dir::Cache=$apt_dir" -o "Dir::Cache::archives=$apt_dir/archives"
		-o "APT::Get::List-Cleanup=false" -o "Debug::NoLocking=true")
	# two jobs at once: one fetches, the other finds it fetched
	exec 9>"$apt_dir.lock"
	flock 9
	[ ! -f "$dest/.gup-lab-fetched" ] || return 0
	log "$pkg $version: reading $suite's package list from the machine's Debian mirror"
	apt-get -q "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1 || {
		tail -5 "$apt_dir/update.log" >&2
		die "apt-get update of $suite failed (log: $apt_dir/update.log): is $suite on the mirror, and is its signature good?"
	}
	served=$(apt-cache "${apt_opts[@]}" madison "$pkg" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | paste -sd' ')
	if ! grep -qwF -- "$version" <<<" $served "; then
		die "$pkg $version is not served by $suite any more (it serves: ${served:-nothing}); move the pin in patches/sources to one of those and run 'make deps' (the kernels built on it are rebuilt)"
	fi
	log "$pkg $version: downloading from $suite"
	rm -f "$apt_dir/debs/"*.deb
	(cd "$apt_dir/debs" && apt-get -q "${apt_opts[@]}" download "$pkg=$version") \
		>"$apt_dir/download.log" 2>&1 || {
		tail -5 "$apt_dir/download.log" >&2
		die "downloading $pkg=$version failed (log: $apt_dir/download.log)"
	}
	deb=$(ls "$apt_dir/debs/"*.deb)
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	dpkg-deb -x "$deb" "$dest.tmp"
	[ -f "$dest.tmp/usr/src/$pkg.tar.xz" ] || die "$deb has no usr/src/$pkg.tar.xz"
	rm -f "$deb"
	touch "$dest.tmp/.gup-lab-fetched"
	mv "$dest.tmp" "$dest"
	log "$pkg $version: in $dest"
}

if [ $# -gt 0 ]; then
	for p in "$@"; do fetch "$p"; done
else
	awk '!/^#/ && NF { print $1 }' "$LAB_SOURCES" | while read -r p; do fetch "$p"; done
fi
