#!/bin/bash
# Judge a guest's serial console log: print the kernel verdict (clean,
# warning, bug, oops, panic, hung-task) and, for anything but clean, the
# first report with its trace symbolised against the flavour's vmlinux.
#   scan-console.sh LOG [FLAVOUR_DIR]    (prints "verdict=KIND" first)
#   scan-console.sh --reports LOG        every report as JSON: [{"line",
#                                        "kind", "severity", "title",
#                                        "location"}], in console order
set -euo pipefail

list=0
if [ "${1:-}" = --reports ]; then
	list=1
	shift
fi
[ $# -ge 1 ] || { echo "usage: $0 [--reports] LOG [FLAVOUR_DIR]" >&2; exit 2; }
log=$1
kdir=${2:-}

# Most severe first: the verdict names the worst thing the kernel said.
patterns=(
	'panic:Kernel panic - not syncing'
	'bug:kernel BUG at|BUG: |general protection fault|UBSAN: '
	'oops:Oops: |Oops#'
	'hung-task:INFO: task .* blocked for more than'
	'warning:WARNING: |WARNING at '
	'leak:unreferenced object'
)

if [ "$list" = 1 ]; then
	# Each matching line once, as the most severe kind it matches, with
	# that kind's severity (0 the most severe: the order of patterns);
	# the title without the printk time stamp; file:line where it says
	# one (6.x's "WARNING: CPU: N PID: N at FILE:LINE FUNC", 7.3's
	# "WARNING: FILE:LINE at FUNC, CPU#N: COMM/PID" (kernel/panic.c:1090),
	# "kernel BUG at FILE:LINE!"), from the
	# source root (an O= build says ../src/mm/gup.c).  "---[ end Kernel
	# panic ..." closes the panic's report, it starts none.
	for i in "${!patterns[@]}"; do
		entry=${patterns[$i]}
		grep -nE "${entry#*:}" "$log" | sed "s/^/${entry%%:*}:$i:/" || true
	done | jq -Rn '[inputs
		| capture("^(?<kind>[^:]+):(?<severity>[0-9]+):(?<line>[0-9]+):(?<title>.*)$")
		| .line |= tonumber | .severity |= tonumber
		| .title |= (sub("\r$"; "") | sub("^\\[ *[0-9]+\\.[0-9]+\\] "; ""))
		| select(.title | startswith("---[ end ") | not)
		| .location = ((.title | (capture("^WARNING: (?<l>[^ ]+:[0-9]+) at ")
					 // capture(" at (?<l>[^ !]+:[0-9]+)")) | .l
			      | sub("^(\\.\\./)*src/"; "")) // null)]
		| group_by(.line) | map(min_by(.severity))'
	exit 0
fi

verdict=clean
any=''
for entry in "${patterns[@]}"; do
	re=${entry#*:}
	any+="${any:+|}$re"
	if [ "$verdict" = clean ] && grep -qE "$re" "$log"; then
		verdict=${entry%%:*}
	fi
done
echo "verdict=$verdict"
[ "$verdict" = clean ] && exit 0

# The report a human wants is the earliest one, whatever its kind.
first=$(grep -m1 -nE "$any" "$log" | cut -d: -f1)
echo "first_report=$(sed -n "${first}p" "$log" | tr -d '\r')"
excerpt=$(sed -n "$((first > 2 ? first - 2 : 1)),$((first + 60))p" "$log" |
	tr -d '\r' | sed -n '1,/---\[ end trace/p')
echo "---- kernel report (line $first of $log) ----"
if [ -n "$kdir" ] && [ -x "$kdir/src/scripts/decode_stacktrace.sh" ] &&
	[ -f "$kdir/build/vmlinux" ]; then
	# decode_stacktrace.sh turns func+0x12/0x40 into file:line.  Objects
	# ccache shared with another flavour's build name that build's
	# directory: keep the path from the source root on.
	{ echo "$excerpt" | "$kdir/src/scripts/decode_stacktrace.sh" \
		"$kdir/build/vmlinux" "$kdir/src" 2>/dev/null || echo "$excerpt"; } |
		sed -E 's#[^ (]*/kernels/[^/ ]+/(build/\.\./)?src/##g'
else
	echo "$excerpt"
fi
echo "---- end of kernel report ----"
