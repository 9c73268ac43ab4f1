# The matrix's axes in cell order (docs/gupctl.md, "gupctl matrix"), for
# the host tests' synthetic documents (tests/host/matrix_report.sh,
# tests/host/detect.sh read it as jq definitions): the index of a cell is
# computed here, so that the reader's check of it is tested too.
def backings: ["anon-private", "anon-thp", "shmem-memfd", "shmem-thp",
	"hugetlb-memfd", "tmpfs-shared", "ext4-shared", "ext4-private",
	"ext4-shared-ro", "ext4-private-ro", "ramfs-shared",
	"xfs-shared", "xfs-private", "xfs-shared-ro", "xfs-private-ro",
	"btrfs-shared", "btrfs-private", "btrfs-shared-ro", "btrfs-private-ro"];
def states: ["untouched", "read-faulted", "write-faulted", "written-back"];
def methods: ["pin_user_pages", "pin_user_pages_fast", "get_user_pages",
	"get_user_pages_fast", "pin_user_pages_remote", "get_user_pages_remote",
	"pin_user_pages_unlocked", "get_user_pages_unlocked"];
def flagsets: ["none", "WRITE", "LONGTERM", "WRITE|LONGTERM", "FORCE",
	"WRITE|FORCE", "LONGTERM|FORCE", "WRITE|LONGTERM|FORCE",
	"WRITE|ALLOW_BROKEN", "WRITE|LONGTERM|ALLOW_BROKEN",
	"WRITE|FORCE|ALLOW_BROKEN", "WRITE|LONGTERM|FORCE|ALLOW_BROKEN"];
def cellno($m; $f; $b; $s):
	(((backings | index($b)) * 4 + (states | index($s))) * 8 +
	 (methods | index($m))) * 12 + (flagsets | index($f)) + 1;
