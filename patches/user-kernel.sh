#!/bin/bash
# Your kernel as a flavour (docs/your-kernel.md): register a kernel source
# tree (KERNEL=DIR) or a series on a flavour (SERIES=PATH BASE=FLAVOUR)
# under a name of its own, NAME@ID, that every job, page and `make shell`
# then takes like a flavour of patches/flavours.  Prints the name.
#
#   patches/user-kernel.sh register --kernel DIR [--name NAME] [--policy P]
#   patches/user-kernel.sh register --series PATH --base FLAVOUR [--name NAME] [--policy P]
#   patches/user-kernel.sh from-make KERNEL SERIES BASE NAME POLICY
#                     (the Makefile's variables, empty when not given; prints
#                     nothing when neither KERNEL nor SERIES is given)
#   patches/user-kernel.sh state DIR  (the tree's state as registered: what
#                     build-mine.sh checks before every use of its kernel)
#
# --kernel DIR   a kernel source tree: a git work tree at any commit
#                (uncommitted changes included) or a plain tree.  Built out
#                of tree (O= in the cache); the tree is only ever read.  ID
#                is the commit (12 hex), the commit and a hash of the
#                uncommitted changes (8-6), or a hash of every file (12).
# --series PATH  a directory of patches (*.patch, in name order) or one
#                mbox (as `b4 am` writes it: a cover letter without a diff
#                is skipped), applied with -F0 on top of FLAVOUR's series;
#                ID hashes FLAVOUR and the patches.  The patches are copied
#                into the cache: editing PATH later makes another ID.
# --name NAME    the part before '@' (default "mine"): [a-z0-9_.-]
# --policy P     judge the kernel against policy P (stock v1 v7 v9
#                mainline latest, or none: measure only); default: detect it from
#                the kernel, by its facts and probe cells (`gupctl detect`)
#
# What it writes: $GUP_LAB_CACHE/user/NAME@ID.flavour (the flavour's line,
# patches/flavours' columns) and NAME@ID.json (where it came from), and for
# a series NAME@ID.patches/.  Exit status: 0 registered; 1 the tree or
# series cannot be used (why on stderr); 2 usage error.
set -euo pipefail
# A failure inside $(...) (an unreadable file while hashing a tree) is a
# failure, not the hash of what was read before it.
shopt -s inherit_errexit
# shellcheck source=flavours.sh
. "$(dirname "$0")/flavours.sh"

usage() {
	sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'
}

bad_usage() {
	echo "patches/user-kernel.sh: $*" >&2
	exit 2
}

# tree_version DIR: "6.1" from the tree's top Makefile (VERSION, PATCHLEVEL).
tree_version() {
	awk '$1 == "VERSION" && $2 == "=" { v = $3 }
	     $1 == "PATCHLEVEL" && $2 == "=" { p = $3 }
	     END { if (v != "" && p != "") print v "." p }' "$1/Makefile"
}

# tree_state DIR: "ID KEYPART" of the tree as it is now: for a git work
# tree the commit and, when it has uncommitted changes (tracked or
# untracked, not ignored), a hash of them; otherwise a hash of every file.
# Reads only: GIT_OPTIONAL_LOCKS=0 keeps git from refreshing the index.
tree_state() {
	local dir=$1 commit dirty
	if git -C "$dir" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
		[ "$(git -C "$dir" rev-parse --show-toplevel)" = "$dir" ]; then
		commit=$(git -C "$dir" rev-parse HEAD)
		dirty=$(GIT_OPTIONAL_LOCKS=0 git -C "$dir" status --porcelain | head -1)
		if [ -z "$dirty" ]; then
			echo "${commit:0:12} git:$commit"
			return
		fi
		dirty=$({
			GIT_OPTIONAL_LOCKS=0 git -C "$dir" diff HEAD --binary
			# untracked files by content, symbolic links by target
			# shellcheck disable=SC2016 # the inner sh expands them
			GIT_OPTIONAL_LOCKS=0 git -C "$dir" ls-files -z -o --exclude-standard |
				(cd "$dir" && xargs -0 -r sh -c 'for f; do
					if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"
					else sha256sum "$f"; fi; done' sh)
		} | sha256sum | cut -c1-64)
		echo "${commit:0:8}-${dirty:0:6} git:$commit+$dirty"
		return
	fi
	log "hashing every file of $dir (not a git work tree)"
	# each file's content, each symbolic link's target
	dirty=$(cd "$dir" && {
		find . -type f -print0 | xargs -0 -r -n 2000 -P "$(nproc)" sha256sum
		find . -type l -printf '%l %p\n'
	} | sort -k2 | sha256sum | cut -c1-64)
	echo "${dirty:0:12} files:$dirty"
}

# check_tree DIR VERSION: fail (status 1) before any build when the lab
# cannot build or drive this tree: a version it has no config or policy
# model for, a GUP API the driver calls that the tree lacks, a tree that
# holds an in-tree build (Kbuild refuses O= then, and cleaning it would
# write into it).
check_tree() {
	local dir=$1 v=$2 api missing=()
	[ -f "$LAB_ROOT/patches/config-$v.fragment" ] ||
		die "$dir is linux $v: the lab builds and models 6.1, 6.12 and 7.3 (patches/config-*.fragment, userspace/model/policy.c); support for another version starts in module/gup_compat.h"
	# The GUP calls the driver makes (module/gup_compat.h wraps the ones
	# whose signature changed), each looked for in the tree's mm.h.
	for api in pin_user_pages pin_user_pages_fast pin_user_pages_remote \
		pin_user_pages_unlocked get_user_pages get_user_pages_fast \
		get_user_pages_remote get_user_pages_unlocked unpin_user_pages_dirty_lock \
		folio_maybe_dma_pinned; do
		grep -qw "$api" "$dir/include/linux/mm.h" || missing+=("$api")
	done
	[ ${#missing[@]} -eq 0 ] ||
		die "$dir lacks what gup_pin_test.ko calls (include/linux/mm.h): ${missing[*]} (module/gup_compat.h is where support grows)"
	if [ -e "$dir/.config" ] || [ -d "$dir/include/config" ]; then
		die "$dir holds an in-tree build (.config or include/config): Kbuild builds out of tree (O=) only from a clean tree, and the lab never writes into yours: run 'make mrproper' there, or give a clean work tree (git worktree add)"
	fi
}

# write_flavour NAME SERIES GUP EXT4 SOURCE KEY=VALUE...: the registry
# entry, made aside and renamed into place.
write_flavour() {
	local name=$1 kv dir=$LAB_CACHE/user
	mkdir -p "$dir"
	printf '%s %s %s %s %s\n' "$1" "$2" "$3" "$4" "$5" >"$dir/$name.flavour.new"
	shift 5
	for kv in "$@"; do
		jq -n --arg k "${kv%%=*}" --arg v "${kv#*=}" '{($k): $v}'
	done | jq -s add >"$dir/$name.json.new"
	mv "$dir/$name.json.new" "$dir/$name.json"
	mv "$dir/$name.flavour.new" "$dir/$name.flavour"
}

# split_series PATH OUT: PATH's patches into OUT as NNNN.patch, in order;
# an mail without a diff (a cover letter) is left out.
split_series() {
	local path=$1 out=$2 n=0 p tmp
	rm -rf "$out"
	mkdir -p "$out"
	if [ -d "$path" ]; then
		for p in "$path"/*.patch; do
			[ -f "$p" ] || continue
			n=$((n + 1))
			cp "$p" "$out/$(printf %04d "$n")-$(basename "$p")"
		done
	else
		tmp=$(mktemp -d)
		git mailsplit -o"$tmp" "$path" >/dev/null 2>&1 ||
			die "$path is neither a directory of patches nor an mbox: git mailsplit rejects it. Its line 1 is '$(head -c 80 "$path" | head -1)'; an mbox starts each message with a 'From ' line (git format-patch --stdout writes 'From <sha1> Mon Sep 17 00:00:00 2001'), or give a directory of .patch files"
		for p in "$tmp"/*; do
			grep -q '^diff --git \|^--- ' "$p" || continue
			n=$((n + 1))
			mv "$p" "$out/$(printf %04d "$n").patch"
		done
		rm -rf "$tmp"
	fi
	[ "$n" -gt 0 ] || die "no patches in $path"
}

register() {
	local kernel='' series='' base='' name=mine policy=detect
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=${2:?--kernel needs a DIR}; shift ;;
		--series) series=${2:?--series needs a PATH}; shift ;;
		--base) base=${2:?--base needs a FLAVOUR}; shift ;;
		--name) name=${2:?--name needs a NAME}; shift ;;
		--policy) policy=${2:?--policy needs a POLICY}; shift ;;
		*) bad_usage "unknown argument '$1' (see --help)" ;;
		esac
		shift
	done
	[[ $name =~ ^[a-z0-9_.-]+$ ]] || bad_usage "--name '$name': use [a-z0-9_.-] only"
	case $policy in
	detect | none | stock | v1 | v7 | v9 | mainline | latest) ;;
	*) bad_usage "--policy '$policy': give stock, v1, v7, v9, mainline, latest or none" ;;
	esac
	if [ -n "$kernel" ] && [ -n "$series" ]; then
		bad_usage "give --kernel or --series, not both"
	elif [ -n "$kernel" ]; then
		[ -z "$base" ] || bad_usage "--base goes with --series"
		register_tree "$kernel" "$name" "$policy"
	elif [ -n "$series" ]; then
		[ -n "$base" ] || bad_usage "--series needs --base FLAVOUR (one of: $(all_flavours | paste -sd' '))"
		register_series "$series" "$base" "$name" "$policy"
	else
		bad_usage "give --kernel DIR or --series PATH --base FLAVOUR"
	fi
}

# register_tree DIR NAME POLICY
register_tree() {
	local dir name=$2 policy=$3 v state id ext4 builddir
	[ -d "$1" ] || die "KERNEL=$1: no such directory"
	dir=$(cd "$1" && pwd -P)
	[[ $dir != *[[:space:]:]* ]] ||
		die "KERNEL=$dir: Kbuild cannot build a tree whose path has a space or a colon"
	if [ ! -f "$dir/Makefile" ] || [ ! -f "$dir/Kconfig" ] || [ ! -d "$dir/mm" ]; then
		die "KERNEL=$dir is not a kernel source tree (no Makefile, Kconfig and mm/)"
	fi
	v=$(tree_version "$dir")
	[ -n "$v" ] || die "KERNEL=$dir: no VERSION and PATCHLEVEL in its Makefile"
	check_tree "$dir" "$v"
	state=$(tree_state "$dir")
	id=${state%% *}
	# What ext4 writeback does with a dirty page without buffers: the
	# warning cc5095747edf added (fs/ext4/inode.c), or the BUG before it.
	ext4=bug
	! grep -q 'does not have buffers attached' "$dir/fs/ext4/inode.c" || ext4=warn
	# One build directory per tree (overlays beside it), rebuilt
	# incrementally as the tree changes; the key (patches/flavours.sh:
	# state, config, build script) names what it holds.
	builddir=$LAB_CACHE/kernels/tree-$(printf '%s\n' "$dir" "$v" | sha256sum | cut -c1-16)
	write_flavour "$name@$id" - "$policy" "$ext4" "$v" kind=tree "tree=$dir" \
		"state=${state#* }" "builddir=$builddir" \
		"registered=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	log "KERNEL=$dir: linux $v, ${state#* }: flavour $name@$id (policy $policy, ext4 $ext4)"
	echo "$name@$id"
}

# register_series PATH BASE NAME POLICY
register_series() {
	local path=$1 base=$2 name=$3 policy=$4 tmp id flavour pkg
	[ -e "$path" ] || die "SERIES=$path: no such file or directory"
	grep -qxF -- "$base" <<<"$(all_flavours)" ||
		die "BASE=$base: not a flavour of patches/flavours ($(all_flavours | paste -sd' '))"
	tmp=$(mktemp -d)
	split_series "$path" "$tmp/p"
	# (the patches by name and content, not where they were split)
	id=$({
		echo "base $base $(flavour_key "$base")"
		cd "$tmp/p" && hash_inputs ./*.patch
	} | sha256sum | cut -c1-12)
	flavour=$name@$id
	mkdir -p "$LAB_CACHE/user"
	rm -rf "$LAB_CACHE/user/$flavour.patches"
	mv "$tmp/p" "$LAB_CACHE/user/$flavour.patches"
	rm -rf "$tmp"
	[ "$policy" != detect ] || [ "$(flavour_field "$base" 3)" = stock ] ||
		log "SERIES on $base: its policy is detected, not taken from $base's ($(flavour_field "$base" 3))"
	pkg=$(flavour_field "$base" 5)
	write_flavour "$flavour" "$(flavour_field "$base" 2)" "$policy" \
		"$(flavour_field "$base" 4)" "$pkg" kind=series "series=$(cd "$(dirname "$path")" &&
		pwd -P)/$(basename "$path")" "base=$base" \
		"registered=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	log "SERIES=$path on $base: $(find "$LAB_CACHE/user/$flavour.patches" -name '*.patch' |
		wc -l) patches: flavour $flavour (policy $policy)"
	echo "$flavour"
}

# from_make KERNEL SERIES BASE NAME POLICY: the Makefile's way in, its
# variables as given (empty: not given).
from_make() {
	local args=()
	[ $# -eq 5 ] || bad_usage "from-make takes KERNEL SERIES BASE NAME POLICY"
	[ -n "$1$2" ] || { [ -z "$3" ] || bad_usage "BASE=$3 goes with SERIES=PATH"; return 0; }
	[ -z "$1" ] || args+=(--kernel "$1")
	[ -z "$2" ] || args+=(--series "$2")
	[ -z "$3" ] || args+=(--base "$3")
	[ -z "$4" ] || args+=(--name "$4")
	[ -z "$5" ] || args+=(--policy "$5")
	register "${args[@]}"
}

case ${1:-} in
register) shift; register "$@" ;;
from-make) shift; from_make "$@" ;;
# (build-mine.sh's check that a registered tree is still as registered)
state) [ $# -eq 2 ] || bad_usage "state takes a DIR"; s=$(tree_state "$2"); echo "${s#* }" ;;
-h | --help) usage ;;
*) bad_usage "give register, from-make or state (see --help)" ;;
esac
