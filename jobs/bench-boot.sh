#!/bin/bash
# `make bench-boot`: what the lab's boot costs beside the floor and beside
# virtme-ng, the same bzImage each time, under the same accelerator.
#   lab   qemu/run.sh --flavour F --quiet --exec true: the lab's runner
#         (its scratch disk, control channel, console scan, exit channel);
#   bare  qemu-system-x86_64 alone: the same root image (snapshot), no
#         scratch disk, no control channel, init=/bin/true; the kernel's
#         panic when init exits ends QEMU (panic=-1, -no-reboot);
#   vng   vng --run BZIMAGE --exec true (virtme-ng 1.42, installed by this
#         benchmark into a venv under the cache, never by make lab): the
#         host's root over 9p.  The lab's kernels have no ACPI, so vng's
#         guest halts instead of powering off (kernel/reboot.c): its time
#         ends at virtme-ng-init's "script exited with code 0" line on the
#         console (vng --verbose), where QEMU is stopped.
# --rounds N rounds (default 10), each booting every flavour all three
# ways, in an order that turns from round to round.  Prints the medians
# and the ratios lab/bare and lab/vng per flavour, and where the lab's and
# the bare boot's time goes, read on the guest's clock: the kernel's "Run
# INIT as init process", the lab init's steps (gup_lab.time_init:
# rootfs/init's "gup-lab: init STEP SECONDS" lines), the bare kernel's
# panic, and the rest, outside the guest's clock (QEMU's start, the
# kernel's decompression, the host's preparing and collecting, QEMU's
# exit); boot.jsonl (one line per boot) and bench-boot.json (named
# fields) in the results directory.
#
#   jobs/bench-boot.sh [--rounds N] [--results DIR] [FLAVOUR...]
#   (default flavours: stock latest)
#
# Exit status: 0 every boot measured; 1 a boot failed (said, and left out
# of the medians) or vng could not be installed (its column says why);
# 2 usage error.
set -euo pipefail
# shellcheck source=../patches/flavours.sh
. "$(dirname "$0")/../patches/flavours.sh"
# shellcheck source=lib.sh
. "$LAB_ROOT/jobs/lib.sh"
job_guard "$@"
rounds=10 results=''
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?--rounds needs N}; shift ;;
	--results) results=${2:?--results needs a DIR}; shift ;;
	-h | --help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "jobs/bench-boot.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) args+=("$1") ;;
	esac
	shift
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "jobs/bench-boot.sh: --rounds takes a number from 1" >&2; exit 2; }
[ ${#args[@]} -gt 0 ] || args=(stock latest)
list=$(job_flavours bench-boot "${args[@]}") || exit 2
mapfile -t flavours <<<"$list"
for f in "${flavours[@]}"; do
	"$LAB_ROOT/patches/build-flavour.sh" "$f" >/dev/null
done
rootfs=$("$LAB_ROOT/rootfs/build-rootfs.sh")
results_begin bench-boot "$results" "${flavours[@]}"
out=$RESULTS_DIR
scratch=$(job_tmpdir)
trap 'rm -rf "$scratch"' EXIT
bad=0

# virtme-ng into its own venv (python3-venv; pip as this machine is
# configured), once per cache
venv=$LAB_CACHE/venv/virtme-ng-1.42
vng_why=''
if [ ! -x "$venv/bin/vng" ]; then
	log "bench-boot: installing virtme-ng 1.42 into $venv"
	rm -rf "$venv"
	if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q virtme-ng==1.42; } \
		>"$out/vng-install.log" 2>&1; then
		vng_why="virtme-ng 1.42 did not install: $(tail -1 "$out/vng-install.log")"
		rm -rf "$venv"
		bad=1
	fi
fi

# run_lab F N, run_bare F N, run_vng F N: one boot of F, its wall time as
# a line of boot.jsonl (ok false when it did not end as it should)
stamp() { date +%s.%N; }
# record F KIND ROUND SECONDS OK [GUEST]: GUEST, the guest's clock at
# each point the console gives (JSON, see guest_clock)
record() {
	jq -nc --arg flavour "$1" --arg kind "$2" --argjson round "$3" \
		--argjson seconds "$4" --argjson ok "$5" --arg accel "$accel" \
		--argjson guest "${6:-null}" \
		'{flavour: $flavour, kind: $kind, round: $round, seconds: $seconds,
		  ok: $ok, accel: $accel, guest: $guest}' >>"$out/boot.jsonl"
	[ "$5" = true ] || { echo "# bench-boot: $1 $2 round $3 failed" >&2; bad=1; }
}
# guest_clock CONSOLE [INIT]: {"init": INIT (the runner's report's
# guest_init_seconds: the kernel's "Run ... as init process"), STEP: each
# "gup-lab: init STEP SECONDS", "panic": the kernel's panic}, seconds on
# the guest's clock, each null when there is none
guest_clock() {
	tr -d '\r' <"$1" | awk -v init="${2:-}" '
		/\] Kernel panic - not syncing/ { sub(/^\[ */, ""); sub(/\].*/, ""); panic = $0 }
		/\] gup-lab: init bash/ { sub(/^\[ */, ""); sub(/\].*/, ""); steps = steps ", \"bash\": " $0 }
		/^gup-lab: init [a-z]+ [0-9.]+$/ { steps = steps sprintf(", \"%s\": %s", $3, $4) }
		END { printf "{\"init\": %s, \"panic\": %s%s}\n", init == "" ? "null" : init,
			panic == "" ? "null" : panic, steps }'
}
run_lab() {
	local t0 t ok=true
	rm -rf "$scratch/lab-run"
	t0=$(stamp)
	"$LAB_ROOT/qemu/run.sh" --flavour "$1" --quiet --exec true --append gup_lab.time_init \
		--out "$scratch/lab-run" --report "$scratch/lab.json" >/dev/null 2>&1 || ok=false
	t=$(echo "$(stamp) - $t0" | bc)
	record "$1" lab "$2" "$t" "$ok" "$(guest_clock "$scratch/lab-run/console.log" \
		"$(jq -r '.guest_init_seconds // empty' "$scratch/lab.json" 2>/dev/null)")"
}
# shellcheck disable=SC2317 # called as run_$kind
run_bare() {
	local t0 ok=false
	t0=$(stamp)
	timeout 120 qemu-system-x86_64 -machine q35 "${accel_args[@]}" -m 1024 -smp 2 \
		-nodefaults -display none -no-reboot -serial "file:$scratch/bare.console" \
		-kernel "$(flavour_dir "$1")/build/arch/x86/boot/bzImage" \
		-append "console=ttyS0 root=/dev/vda ro init=/bin/true panic=-1 quiet" \
		-drive "file=$rootfs,if=virtio,format=raw,snapshot=on" >/dev/null 2>&1 || true
	local t
	t=$(echo "$(stamp) - $t0" | bc)
	# the kernel ran init: its exit is the panic that ended QEMU
	! grep -q 'Attempted to kill init' "$scratch/bare.console" || ok=true
	record "$1" bare "$2" "$t" "$ok" "$(guest_clock "$scratch/bare.console")"
}
# shellcheck disable=SC2317 # called as run_$kind
run_vng() {
	local t0 t ok=false pid
	[ -z "$vng_why" ] || return 0
	# a copy: vng writes next to the kernel it runs (.virtme_mods)
	cp "$(flavour_dir "$1")/build/arch/x86/boot/bzImage" "$scratch/vng-bzImage"
	: >"$scratch/vng.out"
	t0=$(stamp)
	PATH=$venv/bin:$PATH setsid "$venv/bin/vng" --verbose --run "$scratch/vng-bzImage" \
		"${vng_args[@]}" --memory 1G --cpus 2 --exec true >"$scratch/vng.out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if grep -q 'script exited with code 0' "$scratch/vng.out"; then
			t=$(echo "$(stamp) - $t0" | bc)
			ok=true
			break
		fi
		if [ "$(echo "$(stamp) - $t0 > 120" | bc)" = 1 ]; then break; fi
		sleep 0.05
	done
	t=${t:-$(echo "$(stamp) - $t0" | bc)}
	kill -- -"$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ "$ok" = true ] || cp "$scratch/vng.out" "$out/vng-failed-$1-$2.log"
	record "$1" vng "$2" "$t" "$ok"
}

# run: the accelerator is the lab runner's choice for the first flavour
# (qemu/accel.sh), the other two are given the same
: >"$out/boot.jsonl"
accel=tcg
run_lab "${flavours[0]}" 0
accel=$(jq -r '.accel // "tcg"' "$scratch/lab.json" 2>/dev/null || echo tcg)
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu host) vng_args=()
else
	accel_args=(-accel tcg -cpu max) vng_args=(--disable-kvm)
fi
# round 0 above warmed the caches: it is left out of the medians
sed -i '1d' "$out/boot.jsonl"
log "bench-boot: $rounds rounds of ${flavours[*]}, lab, bare and vng, under $accel"
kinds=(lab bare vng)
for r in $(seq 1 "$rounds"); do
	for f in "${flavours[@]}"; do
		for i in 0 1 2; do
			"run_${kinds[(i + r) % 3]}" "$f" "$r"
		done
	done
	echo "# bench-boot: round $r of $rounds done" >&2
done

# collect: medians and ratios per flavour
# shellcheck disable=SC2016 # jq's own variables
jq -s --arg vng_why "$vng_why" --argjson rounds "$rounds" "$JQ_MEDIAN"'
	def med(f; k): map(select(.flavour == f and .kind == k and .ok) | .seconds) | median;
	def gmed(f; k; p): map(select(.flavour == f and .kind == k and .ok) | .guest[p] // empty)
		| median;
	def outside(f; k; p): map(select(.flavour == f and .kind == k and .ok and .guest[p] != null)
		| .seconds - .guest[p]) | median;
	def ratio(a; b): if a == null or b == null then null else a / b end;
	. as $b | {rounds: $rounds, accel: ($b[0].accel // null),
	 vng: (if $vng_why == "" then {version: "1.42"} else {not_run: $vng_why} end),
	 flavours: ([$b[].flavour] | unique | map(. as $f |
		{flavour: $f, lab: ($b | med($f; "lab")), bare: ($b | med($f; "bare")),
		 vng: ($b | med($f; "vng")),
		 lab_guest: {init: ($b | gmed($f; "lab"; "init")),
			bash: ($b | gmed($f; "lab"; "bash")), mounted: ($b | gmed($f; "lab"; "mounted")),
			hugepages: ($b | gmed($f; "lab"; "hugepages")), command: ($b | gmed($f; "lab"; "command")),
			unmounted: ($b | gmed($f; "lab"; "unmounted")),
			outside: ($b | outside($f; "lab"; "unmounted"))},
		 bare_guest: {panic: ($b | gmed($f; "bare"; "panic")),
			outside: ($b | outside($f; "bare"; "panic"))},
		 failed: ($b | map(select(.flavour == $f and (.ok | not))) | length)}
		| . + {lab_over_bare: ratio(.lab; .bare), lab_over_vng: ratio(.lab; .vng)}))}' \
	"$out/boot.jsonl" >"$out/bench-boot.json"

# report: one line per flavour
jq -r 'def r2: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
	"# bench-boot: medians of \(.rounds) rounds under \(.accel) (seconds, boot to exit)",
	(.flavours[] | "# \(.flavour): lab \(.lab | r2), bare \(.bare | r2), vng \(.vng | r2); lab/bare \(.lab_over_bare | r2), lab/vng \(.lab_over_vng | r2)\(if .failed > 0 then ", \(.failed) failed" else "" end)",
		"#   lab, on the guest clock: init runs at \(.lab_guest.init | r2), bash starts \(.lab_guest.bash | r2), mount -a done \(.lab_guest.mounted | r2), huge pages \(.lab_guest.hugepages | r2), command done \(.lab_guest.command | r2), unmounted \(.lab_guest.unmounted | r2); outside the guest clock \(.lab_guest.outside | r2)",
		"#   bare (quiet: its console has the panic only), on the guest clock: panic \(.bare_guest.panic | r2); outside the guest clock \(.bare_guest.outside | r2)"),
	(.vng.not_run // empty | "# vng: not run: \(.)")' "$out/bench-boot.json"
results_end
exit "$bad"
