# gup-lab: see README.md.  Every target builds what it needs and nothing
# more; kernels, the root image and modules are cached outside the clone
# (GUP_LAB_CACHE, default /var/cache/gup-lab).

FLAVOURS := $(shell awk '!/^\#/ && NF { print $$1 }' patches/flavours)
FLAVOUR ?= stock
# A command-line variable stays this Makefile's: V=1 is the jobs' (the
# guests' consoles streamed, jobs/README.md), and the kernel's own make,
# run below, would read a command-line V=1 as its verbose build (whose
# log build-progress.sh cannot count).  The environment still has it.
MAKEOVERRIDES :=

# Your kernel (docs/your-kernel.md): KERNEL=DIR, or SERIES=PATH BASE=FLAVOUR
# (and NAME=, POLICY=), on matrix, repro, holders, consumers, shell and
# boot: registered as NAME@ID (patches/user-kernel.sh) and run as that
# flavour; only it is built.  Otherwise FLAVOUR=F given on the command line
# runs one flavour, and none given runs every one.
# Each counts only on the command line (an environment may well have a
# NAME or a KERNEL of its own); the recipe reads them from its environment,
# where make puts them, so that no quoting of a path is needed.
cmdline = $(if $(filter command line,$(origin $(1))),$($(1)))
MINE = $(if $(call cmdline,KERNEL)$(call cmdline,SERIES),yes)
# One kernel asked for (yours, or FLAVOUR=F): the job builds it and its
# module when it stages the flavour, and nothing else (the inner loop:
# docs/performance.md); otherwise every flavour first.
NEEDS = $(if $(MINE)$(call cmdline,FLAVOUR)$(call cmdline,SHARD),rootfs gupctl,all)
# SHARD=I/N (matrix, repro, holders, consumers, soak, boot, lab): only
# shard I of N of the flavours, the others left to other machines; `make
# docs RESULTS="PART..."` merges the parts (docs/results.md, "Shards").
# Like FLAVOUR=, the job builds only the kernels it runs.
SHARDOPT = $(if $(call cmdline,SHARD),--shard '$(SHARD)')
uservar = "$(if $(filter command line,$(origin $(1))),$$$(1))"
# In a recipe: f= the flavour to run (empty: every one), or exit 1.
PICK = f=$$(patches/user-kernel.sh from-make $(call uservar,KERNEL) $(call uservar,SERIES) \
	$(call uservar,BASE) $(call uservar,NAME) $(call uservar,POLICY)) || exit 1; \
	f=$${f:-$(call cmdline,FLAVOUR)}

.PHONY: all deps kernels rootfs modules gupctl shell boot lab matrix docs repro holders export consumers soak bench bench-pipeline bench-boot check lint help clean

#> build what is missing: kernels, root image, modules, gupctl | the cache | docs/lab.md
all: kernels rootfs modules gupctl

#> install the host's packages and the kernel sources (apt) | the cache | README.md
deps:
	@qemu/install-host-deps.sh

#> build every flavour's kernel | the cache | docs/lab.md
kernels: deps
	@for f in $(FLAVOURS); do patches/build-flavour.sh $$f >/dev/null || exit 1; done

#> build the guests' root image | the cache | docs/lab.md
rootfs: deps
	@rootfs/build-rootfs.sh >/dev/null

#> build gup_pin_test.ko for every flavour | the cache | docs/driver.md
modules: kernels
	@for f in $(FLAVOURS) headers; do module/build.sh $$f || exit 1; done

# One make of userspace/ at a time (jobs/lib.sh's job_userspace takes the
# same lock): two targets started at once in one clone (make repro beside
# make holders) linked the same objects at once ("undefined reference").
#> build gupctl | userspace/gupctl | docs/gupctl.md
gupctl: deps
	@flock userspace/.make.lock $(MAKE) -s -C userspace

# An interactive root shell: module loaded, gupctl on PATH, scratch ext4
# at /mnt/ext4 with file.img ready.  Ctrl-A X leaves QEMU.
#> a root shell in a guest (FLAVOUR=F) | - | docs/lab.md
shell: $(NEEDS)
	@$(PICK); qemu/shell.sh $${f:-$(FLAVOUR)}

# Boot every flavour once and report each verdict.
#> boot every flavour once, print each verdict | - | docs/lab.md
boot: $(NEEDS)
	@$(PICK); jobs/boot.sh $(SHARDOPT) $$f

# The main job (README): every flavour's kernel, the GUP matrix and the
# kernel's own GUP users on each, the runs overlapping the builds, with a
# progress line (jobs/lab.sh): results/lab/, results/matrix/,
# results/consumers/.
#> the main job: every kernel, the matrix and the consumers on each | results/lab, matrix, consumers | docs/matrix.md
lab: deps gupctl
	@jobs/lab.sh $(SHARDOPT)

# The GUP matrix on every flavour: a results directory under results/matrix/.
#> the GUP matrix on every flavour | results/matrix | docs/matrix.md
matrix: $(NEEDS)
	@$(PICK); jobs/matrix.sh $(SHARDOPT) $$f

# The generated pages of docs/ from results: the latest run of each job,
# or RESULTS=DIR (a results directory; several: the parts of a sharded
# run, merged first by jobs/merge.sh).
#> regenerate the generated pages from the latest results | docs/ | docs/results.md
docs: gupctl
	@jobs/docs.sh $(RESULTS)

#> the 2018 ext4 crash and its data loss, per flavour | results/repro | docs/repro-ext4-2018.md
repro: $(NEEDS)
	@$(PICK); jobs/repro.sh $(SHARDOPT) $${f:+--flavour $$f}

# What two kernels measured differently, cell by cell (docs/your-kernel.md,
# "Reading a diff"): A= and B= each a results directory (DIR, DIR:FLAVOUR,
# several comma-separated), a flavour or a kernel tree, which run the matrix
# and the reproduction first (JOBS=matrix: the matrix only; jobs/diff.sh);
# JSON=FILE, MARKDOWN=FILE, HTML=FILE (the explorer's diff view).
.PHONY: diff
#> what two kernels measured differently (A=, B=) | stdout, JSON=, HTML= | docs/your-kernel.md
diff: gupctl
	@jobs/diff.sh $(if $(JOBS),--jobs '$(JOBS)') $(if $(JSON),--json '$(JSON)') $(if $(MARKDOWN),--markdown '$(MARKDOWN)') $(if $(HTML),--html '$(HTML)') '$(A)' '$(B)'

# The kernel's own short-term GUP users (an O_DIRECT read, process_vm_writev,
# an io_uring read) hold a page of an ext4, xfs or btrfs file while the file
# system writes it back, reclaims, defragments, punches or clones it; the host
# reads what reached the disk.  No test driver.  Every flavour, one boot each,
# or FLAVOUR=F given on the command line: results/holders/
# (docs/filesystems.md).
#> real GUP users hold file pages while the file system acts | results/holders | docs/filesystems.md
holders: $(NEEDS)
	@$(PICK); jobs/holders.sh $(SHARDOPT) $${f:+--flavour $$f}

# The holders' findings as reproducers that need nothing of the lab
# (gupctl export), each run alone on every flavour: results/export/.
#> the holders' findings as stand-alone reproducers, run on every flavour | results/export | docs/findings/README.md
export: $(NEEDS)
	@$(PICK); jobs/export.sh $${f:+$$f}

# The kernel's own GUP users (ptrace, /proc/PID/mem, process_vm_rw,
# O_DIRECT, vmsplice, io_uring, AF_XDP, RDMA, uprobes) on every flavour:
# results/consumers/.
#> the kernel's own GUP users on every flavour | results/consumers | docs/consumers.md
consumers: $(if $(MINE)$(call cmdline,SHARD),,kernels) rootfs gupctl
	@$(PICK); jobs/consumers.sh $(SHARDOPT) $${f:+--flavour $$f}

# Every flavour's debug overlay (FLAVOUR+debug): the driver selftests, the
# long fuzz, the fuzz under fault injection, the driver's line coverage,
# kmemleak, the matrix and the reproduction; builds its own
# kernels (many minutes each).  A results directory under results/soak/.
#> the debug overlays, the long fuzz, fault injection (hours) | results/soak | docs/reliability.md
soak: deps
	@jobs/soak.sh $(SHARDOPT)

# What GUP costs under each policy: gupctl bench (and the kernel's own
# gup_test beside it) on stock, gup-v1, gup-v7 and gup-v9, round-robin
# boots: results/bench/; `make docs` turns it into docs/bench.md.
#> what GUP costs under each policy | results/bench | docs/bench.md
bench: all
	@jobs/bench.sh

# How fast the lab answers: a scripted boot's parts, warm `make check`,
# medians of several runs: results/pipeline/ (docs/performance.md).
#> how fast the lab answers: a boot's parts, warm make check | results/pipeline | docs/performance.md
bench-pipeline: all
	@jobs/bench-pipeline.sh

# The lab's boot beside the floor (QEMU alone) and virtme-ng's, the same
# bzImage (stock, latest): results/bench-boot/ (docs/performance.md).
#> one boot three ways: the lab, QEMU alone, virtme-ng | results/bench-boot | docs/performance.md
bench-boot: all
	@jobs/bench-boot.sh

# The host-side checks alone (shellcheck, checkpatch, the patches'
# -F0): tests/host/lint.sh, as make check runs it.
#> shellcheck, checkpatch, the patches' -F0 | - | docs/lab.md
lint:
	@tests/run.sh tests/host/lint.sh

# The tests (README).  The kernels and the root image first: on a cold
# cache their builds show their progress here, before the suites, whose
# output is one KTAP document.
#> the tests: host checks, then every flavour booted | results/check (failed suites only) | README.md
check: kernels rootfs
	@tests/run.sh

# Every target, from the "#>" line above its rule (WHAT | RESULTS | PAGE):
# README.md's quick start shows this table, and tests/docs-check.sh holds
# the two equal.
#> this table | - | README.md
help:
	@awk -F' [|] ' '/^#> / { h = substr($$0, 4); next } \
		/^[a-z-]+:/ && h != "" { split($$0, t, ":"); split(h, f, " [|] "); \
			printf "| `make %s` | %s | %s | %s |\n", t[1], f[1], f[2], f[3] } \
		{ h = "" }' Makefile

#> remove userspace/'s build products | - | userspace/README.md
clean:
	@$(MAKE) -s -C userspace clean
