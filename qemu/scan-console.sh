#!/bin/bash
# Judge a guest's serial console log: print the kernel verdict (clean,
# warning, bug, oops, panic, hung-task) and, for anything but clean, the
# first report with its trace symbolised against the flavour's vmlinux.
#   scan-console.sh LOG [FLAVOUR_DIR]    (prints "verdict=KIND" first)
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 LOG [FLAVOUR_DIR]" >&2; exit 2; }
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
