/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel: the facts of the running kernel that tell its GUP policy apart,
 * read from the kernel itself (never from the lab's flavour table):
 * model/detect.h turns them into a policy, with its evidence.
 */
#ifndef LIB_KERNEL_H
#define LIB_KERNEL_H

/* Symbols of the series in /proc/kallsyms (struct kernel_facts.syms). */
#define KSYM_DIRTY_TRACKING	0x1	/* vma_needs_dirty_tracking: v7, v9 (mm/mmap.c) */
#define KSYM_FAST_PIN_ALLOWED	0x2	/* folio_fast_pin_allowed: v9 (mm/gup.c) */

struct kernel_facts {
	char release[65];		/* uname -r, "" if uname() failed */
	int syms;			/* KSYM_* found, or -errno: kallsyms unreadable */
	int driver;			/* 0: /dev/gup_test answered; else gupdev_open()'s -errno */
	unsigned int driver_features;	/* GUP_PIN_FEATURE_*, when driver is 0 */
};

/* Read them now (the driver's features only if its module is loaded). */
void kernel_facts_read(struct kernel_facts *k);

#endif /* LIB_KERNEL_H */
