# shellcheck shell=bash
# The flavour table (patches/flavours, beside this file) read for the shell,
# and the cache built from it: the inputs' hashes (cache keys) and the paths
# of source trees, kernels, uapi headers and the root image.  Sourced the
# same way by every script, relative to the script itself
# (. "$(dirname "$0")/../patches/flavours.sh"), never executed.

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Builds live outside the clone so that a fresh clone reuses them.
LAB_CACHE=${GUP_LAB_CACHE:-/var/cache/gup-lab}
# The default source package; a flavour names its own (patches/flavours).
LAB_SOURCE_PKG=linux-source-6.1
# The flavour table.  GUP_LAB_FLAVOURS names another, in the same format:
# a test mislabels a flavour with it (tests/lab/30-matrix.sh).  What it
# changes is not hashed into a kernel's key (flavour_key hashes the series
# and the source it names), so a relabelled flavour boots the same kernel.
LAB_FLAVOURS=${GUP_LAB_FLAVOURS:-$LAB_ROOT/patches/flavours}

die() {
	echo "gup-lab: $*" >&2
	exit 1
}

log() {
	echo "gup-lab: $*" >&2
}

# Named pause points, for the tests that stop a job at a given step
# (tests/lab/80-die-cleanly.sh): the step is reached by construction, not
# by a race against how slow it happens to be (a cached kernel makes
# staging take a second).  GUP_LAB_PAUSE names the points, comma
# separated; at one of them the process says "paused at NAME (pid N)" on
# stderr and, when GUP_LAB_PAUSED names a file, appends it there (what
# the test waits for); then it waits until it is killed or until a line
# NAME appears in the file GUP_LAB_PAUSED.go (the test lets it go on).
# Unset, as in every job a user runs, they do nothing.  The points:
# staging (rootfs/stage-guest.sh, before anything is staged), guest (the
# guest has booted and waits before its command: qemu/run.sh) and collect
# (QEMU has gone, the guest's results are not read back yet: qemu/run.sh).
pause_wanted() {	# pause_wanted NAME
	[[ ",${GUP_LAB_PAUSE:-}," == *",$1,"* ]]
}
pause_announce() {	# pause_announce NAME PID
	log "paused at $1 (pid $2)"
	[ -z "${GUP_LAB_PAUSED:-}" ] || echo "paused at $1 (pid $2)" >>"$GUP_LAB_PAUSED"
}
pause_point() {		# pause_point NAME
	pause_wanted "$1" || return 0
	pause_announce "$1" "$BASHPID"
	until grep -qx -- "$1" "${GUP_LAB_PAUSED:-/nonexistent}.go" 2>/dev/null; do
		sleep 0.2
	done
	log "going on from $1"
}

# Source packages that the machine's own apt suites do not carry
# (patches/sources: package, pinned version, suite) are fetched into the
# cache by patches/fetch-source.sh, never installed.
LAB_SOURCES=$LAB_ROOT/patches/sources

# source_pin PKG FIELD: PKG's pinned version (FIELD 2) or suite (3) in
# patches/sources; nothing, status 1, for a package of the machine's own.
source_pin() {
	awk -v p="$1" -v f="$2" '!/^#/ && $1 == p { print $f; found = 1 }
		END { exit !found }' "$LAB_SOURCES"
}

# source_fetched PKG: where patches/fetch-source.sh unpacks PKG's .deb.
source_fetched() {
	echo "$LAB_CACHE/debs/$1-$(source_pin "$1" 2)"
}

# source_tarball PKG: the linux-source tarball of PKG.
source_tarball() {
	if source_pin "$1" 2 >/dev/null; then
		echo "$(source_fetched "$1")/usr/src/$1.tar.xz"
	else
		echo "/usr/src/$1.tar.xz"
	fi
}

# source_pkg_version [PKG]: the version of PKG (default $LAB_SOURCE_PKG):
# the installed one, or for a fetched package its pin, once fetched.
source_pkg_version() {
	local pkg=${1:-$LAB_SOURCE_PKG} pin
	if pin=$(source_pin "$pkg" 2); then
		[ -f "$(source_fetched "$pkg")/.gup-lab-fetched" ] ||
			die "$pkg $pin is not fetched: run 'make deps'"
		echo "$pin"
		return
	fi
	dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null ||
		die "$pkg is not installed: run 'make deps'"
}

# apt_mirror SUITE: the first Debian mirror that this machine's apt
# configuration names for SUITE (not its security archive): deb822
# *.sources first, then one-line sources.list entries.  Read at run time:
# no mirror's host is written into the repository.
apt_mirror() {
	local f suite=$1
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
			/^$/ { if (ok && uri !~ /security/) { print uri; exit } ok = 0 }
			END { if (ok && uri !~ /security/) print uri }' "$f"
	done | head -1
	{ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null ||
		true; } | awk -v suite="$suite" '$1 == "deb" && $0 ~ " " suite " " &&
			$0 !~ /security/ { for (i = 2; i <= NF; i++)
			if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' | head -1
}

# source_tree [PKG]: the path of the pristine unpacked tree of the
# installed PKG (default $LAB_SOURCE_PKG).
source_tree() {
	local pkg=${1:-$LAB_SOURCE_PKG}
	echo "$LAB_CACHE/src/$pkg-$(source_pkg_version "$pkg")"
}

# hash_inputs FILE... : one sha256 over the names and contents of the files.
hash_inputs() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$LAB_ROOT"/}"
		cat "$f"
	done | sha256sum | cut -c1-16
}

# A flavour name may carry config overlays: gup-v7+debug is gup-v7 built
# with patches/overlays/debug.fragment on top (patches/overlays/README).
# flavour_base NAME: the name without its overlays.
flavour_base() {
	echo "${1%%+*}"
}

# flavour_overlays NAME: its overlays, one per line, in order.
flavour_overlays() {
	local rest=${1#"$(flavour_base "$1")"}
	[ -z "$rest" ] || tr '+' '\n' <<<"${rest#+}"
}

# flavour_field NAME COLUMN: one column of the flavour's line in
# patches/flavours (2 series, 3 gup policy, 4 ext4 behaviour, 5 kernel
# source).  Overlays share their base flavour's line.
flavour_field() {
	local base table=$LAB_FLAVOURS
	base=$(flavour_base "$1")
	if [[ $base == *@* ]]; then
		table=$LAB_CACHE/user/$base.flavour
		[ -f "$table" ] || die "unknown kernel '$base': not registered (give KERNEL=DIR or SERIES=PATH BASE=FLAVOUR: docs/your-kernel.md)"
	fi
	awk -v f="$base" -v c="$2" '!/^#/ && $1 == f { print $c; found = 1 }
		END { exit !found }' "$table" ||
		die "unknown flavour '$base' (see ${LAB_FLAVOURS#"$LAB_ROOT"/})"
}

# flavour_source_pkg NAME: the Debian package holding its kernel source.
flavour_source_pkg() {
	local v
	v=$(flavour_field "$1" 5) || exit 1
	echo "linux-source-$v"
}

# flavour_fragments NAME: the config fragments merged onto tinyconfig, in
# order: the lab's, the source version's (if any), then each overlay's.
flavour_fragments() {
	local v o
	v=$(flavour_field "$1" 5) || exit 1
	echo "$LAB_ROOT/patches/config.fragment"
	[ ! -f "$LAB_ROOT/patches/config-$v.fragment" ] ||
		echo "$LAB_ROOT/patches/config-$v.fragment"
	for o in $(flavour_overlays "$1"); do
		[ -f "$LAB_ROOT/patches/overlays/$o.fragment" ] ||
			die "unknown overlay '$o' in '$1' (see patches/overlays/)"
		echo "$LAB_ROOT/patches/overlays/$o.fragment"
	done
}

# user_field NAME FIELD: a field of a registered kernel's NAME.json
# (patches/user-kernel.sh: kind, tree, state, builddir, series, base);
# empty for a flavour of patches/flavours.
user_field() {
	local base
	base=$(flavour_base "$1")
	[[ $base == *@* ]] || return 0
	jq -r --arg f "$2" '.[$f] // empty' "$LAB_CACHE/user/$base.json"
}

# flavour_policy NAME: the GUP policy its cells are judged against: the
# table's column, or for a registered kernel given no POLICY=, the one
# detected from its kernel (jobs/lib.sh's job_detect, cached by the base
# kernel's key: overlays change no GUP code): a policy name, "none" (no
# known policy matched: cells are measured, not judged), or "detect" until
# it has been.
flavour_policy() {
	local p f
	p=$(flavour_field "$1" 3) || exit 1
	# (only then: the lookup hashes the detection code and the kernel's inputs)
	if [ "$p" = detect ]; then
		f=$(flavour_detected "$1")
		[ ! -f "$f" ] || p=$(jq -r '.policy // "none"' "$f")
	fi
	echo "$p"
}

# flavour_detected NAME: where its detected policy is (or will be) kept.
# Keyed by the kernel and by what detection is: the policy models and the
# probes derived from them.
flavour_detected() {
	local code
	code=$(hash_inputs "$LAB_ROOT"/userspace/model/{policy,probe,detect}.c \
		"$LAB_ROOT/userspace/matrix/detect.c")
	# (the key, not the name: every name of a state is one kernel)
	echo "$LAB_CACHE/detect/$(flavour_key "$(flavour_base "$1")")-$code.json"
}

# flavour_patches NAME: every patch file the flavour applies, in order:
# its series directories', then a registered series' own.
flavour_patches() {
	local s base
	for s in $(flavour_series "$1"); do
		printf '%s\n' "$LAB_ROOT"/patches/"$s"/*.patch
	done
	base=$(flavour_base "$1")
	[ "$(user_field "$1" kind)" != series ] ||
		printf '%s\n' "$LAB_CACHE/user/$base.patches"/*.patch
}

# flavour_series NAME: the flavour's series directories, in order.
flavour_series() {
	local s
	s=$(flavour_field "$1" 2) || exit 1
	[ "$s" = "-" ] || tr ',' '\n' <<<"$s"
}

all_flavours() {
	awk '!/^#/ && NF { print $1 }' "$LAB_FLAVOURS"
}

# flavour_key NAME: hash of every input of the flavour's kernel build: the
# source package and its version, the series, the config fragments and the
# build script.  (Not this file: what here decides the inputs is above.)
# A caller that runs many boots computes the keys once and exports them
# (flavour_keys_export): GUP_LAB_KEY_<NAME, non-alphanumerics as _>.
flavour_key() {
	local name=$1 pkg s files=() frags memo=GUP_LAB_KEY_${1//[^A-Za-z0-9]/_}
	if [ -n "${!memo:-}" ]; then
		echo "${!memo}"
		return
	fi
	frags=$(flavour_fragments "$name") || exit 1
	if [ "$(user_field "$name" kind)" = tree ]; then
		# a tree: its state (patches/user-kernel.sh), not a package
		{
			# the state, not the name: every name of a state is one kernel
			echo "tree $(user_field "$name" state) overlays $(flavour_overlays "$name" | paste -sd+)"
			# shellcheck disable=SC2086 # one path per line, no spaces
			hash_inputs $frags "$LAB_ROOT/patches/build-mine.sh"
		} | sha256sum | cut -c1-16
		return
	fi
	pkg=$(flavour_source_pkg "$name") || exit 1
	mapfile -t files < <(flavour_patches "$name")
	{
		echo "$pkg $(source_pkg_version "$pkg") flavour $name"
		echo "series: $(flavour_series "$name" | tr '\n' ' ')"
		# shellcheck disable=SC2086 # one path per line, no spaces
		hash_inputs "${files[@]}" $frags "$LAB_ROOT/patches/$(flavour_builder "$name")"
	} | sha256sum | cut -c1-16
}

# flavour_keys_export NAME...: compute each flavour's key now and export it
# for flavour_key in this shell and everything it starts: one reading of
# the inputs for a whole run (tests/run.sh), where each boot's lookups read
# them three or four times (about 0.2 s each).
flavour_keys_export() {
	local f
	for f in "$@"; do
		export "GUP_LAB_KEY_${f//[^A-Za-z0-9]/_}=$(flavour_key "$f")"
	done
}

# flavour_builder NAME: the script that builds it: build-flavour.sh, or
# for a registered kernel build-mine.sh.
flavour_builder() {
	if [ -n "$(user_field "$1" kind)" ]; then echo build-mine.sh; else echo build-flavour.sh; fi
}

# flavour_build NAME: build it if it is not in the cache (progress on
# stderr) and print its directory (src/, build/).
flavour_build() {
	local dir
	# In make lab one builder makes every kernel in turn (jobs/lab.sh); a
	# job beside it waits for the kernel rather than build it at once too
	# (and lose what ccache would have shared).  If the builder is gone,
	# the lookup below builds it, or says why not.
	if [ -n "${GUP_LAB_BUILDER_PID:-}" ]; then
		dir=$(flavour_dir "$1")
		while [ ! -f "$dir/.gup-lab-built" ] && kill -0 "$GUP_LAB_BUILDER_PID" 2>/dev/null; do
			sleep 2
		done
	fi
	"$LAB_ROOT/patches/$(flavour_builder "$1")" "$1"
}

# flavour_dir NAME: where the flavour's built tree (O= directory) lives.
# A registered tree has one, rebuilt incrementally as the tree changes
# (build-mine.sh records the key it holds): tree-ID[+OVERLAYS].
flavour_dir() {
	local b
	b=$(user_field "$1" builddir)
	if [ -n "$b" ] && [ "$(user_field "$1" kind)" = tree ]; then
		echo "$b${1#"$(flavour_base "$1")"}"
		return
	fi
	echo "$LAB_CACHE/kernels/$1-$(flavour_key "$1")"
}

rootfs_key() {
	hash_inputs "$LAB_ROOT/rootfs/build-rootfs.sh" "$LAB_ROOT/rootfs/init" \
		"$LAB_ROOT/rootfs/fstab" "$LAB_ROOT/rootfs/packages"
}

rootfs_image() {
	echo "$LAB_CACHE/rootfs/rootfs-$(rootfs_key).img"
}

# uapi_headers PKG: the uapi headers of PKG's kernel tree (`make
# headers_install`), exported once per package version into
# $LAB_CACHE/uapi/PKG-VERSION; prints its include/ directory, for
# -isystem.  Made from an O= directory: the pristine tree is only read.
uapi_headers() {
	local pkg=$1 tree dir
	tree=$("$LAB_ROOT/patches/unpack-source.sh" "$pkg") || exit 1
	dir=$LAB_CACHE/uapi/$pkg-$(source_pkg_version "$pkg")
	mkdir -p "$LAB_CACHE/uapi"
	(
		flock 9
		[ -f "$dir/.gup-lab-installed" ] && exit 0
		rm -rf "$dir"
		make -s -C "$tree" O="$dir/obj" ARCH=x86_64 headers_install \
			INSTALL_HDR_PATH="$dir" >"$dir.log" 2>&1 ||
			{ cat "$dir.log" >&2; exit 1; }
		rm -rf "$dir/obj"
		touch "$dir/.gup-lab-installed"
	) 9>"$dir.lock" || die "make headers_install of $pkg failed (log: $dir.log)"
	echo "$dir/include"
}
