// SPDX-License-Identifier: GPL-2.0
/*
 * detect: which policy a kernel's facts show (detect.h).
 *
 * The policies model 6.1.192's code and, for mainline, 6.12's.  On 6.12
 * the release decides (the lab builds no series on 6.12: a changed 6.12
 * tree is the your-kernel issue's to tell apart).  On 6.1 the series'
 * symbols decide: v7 and v9 add vma_needs_dirty_tracking() (mm/mmap.c,
 * global), v9 also folio_fast_pin_allowed() (mm/gup.c); v1 adds neither,
 * but only its tree has FOLL_ALLOW_BROKEN_FILE_MAPPING, which the driver
 * built against it reports (GUP_PIN_FEATURE_ALLOW_BROKEN): stock and v1
 * are told apart by the driver, so a kernel without either symbol needs
 * the module loaded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gup_pin_test.h"
#include "lib/gupdev.h"
#include "model/detect.h"

const char *policy_detect(const struct kernel_facts *k, char *why, size_t size)
{
	bool v1;

	if (!k->release[0]) {
		snprintf(why, size, "uname() failed: no release to go by");
		return NULL;
	}
	if (!strncmp(k->release, "6.12.", 5) || !strcmp(k->release, "6.12")) {
		snprintf(why, size, "release %.40s: on 6.12 the lab models mainline only",
			 k->release);
		return "mainline";
	}
	if (!strncmp(k->release, "7.3.", 4) || !strcmp(k->release, "7.3")) {
		snprintf(why, size, "release %.40s: on 7.3 the lab models latest only",
			 k->release);
		return "latest";
	}
	if (strncmp(k->release, "6.1.", 4) && strcmp(k->release, "6.1")) {
		snprintf(why, size, "release %.40s: the policies model 6.1, 6.12 and 7.3 only",
			 k->release);
		return NULL;
	}
	if (k->syms < 0) {
		snprintf(why, size, "release %.40s, /proc/kallsyms unreadable: %s",
			 k->release, errno_name(k->syms));
		return NULL;
	}
	if (k->syms & KSYM_FAST_PIN_ALLOWED) {
		snprintf(why, size, "release %.40s, folio_fast_pin_allowed in /proc/kallsyms",
			 k->release);
		return "v9";
	}
	if (k->syms & KSYM_DIRTY_TRACKING) {
		snprintf(why, size, "release %.40s, vma_needs_dirty_tracking in /proc/kallsyms, not folio_fast_pin_allowed",
			 k->release);
		return "v7";
	}
	if (k->driver) {
		snprintf(why, size, "release %.40s, neither series symbol in /proc/kallsyms, and /dev/gup_test does not answer (%s): v1 cannot be told from stock",
			 k->release, errno_name(k->driver));
		return NULL;
	}
	v1 = k->driver_features & GUP_PIN_FEATURE_ALLOW_BROKEN;
	snprintf(why, size, "release %.40s, neither series symbol in /proc/kallsyms; the driver %s FOLL_ALLOW_BROKEN_FILE_MAPPING",
		 k->release, v1 ? "has" : "lacks");
	return v1 ? "v1" : "stock";
}
