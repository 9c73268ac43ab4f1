// SPDX-License-Identifier: GPL-2.0
/*
 * kernel: what the running kernel says of its GUP code (kernel.h): its
 * release, the series' symbols in /proc/kallsyms and the features the
 * driver, built against its tree, reports.  model/detect.c reads a policy
 * from them; nothing here knows the policies.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "lib/gupdev.h"
#include "lib/kernel.h"

/* Which of KSYM_*'s symbols /proc/kallsyms lists: a mask, or -errno. */
static int kallsyms_mask(void)
{
	static const struct {
		const char *name;
		int bit;
	} syms[] = {
		{ "vma_needs_dirty_tracking", KSYM_DIRTY_TRACKING },
		{ "folio_fast_pin_allowed", KSYM_FAST_PIN_ALLOWED },
	};
	char line[512], sym[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	int found = 0;
	size_t i;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", sym) != 1)
			continue;
		for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
			if (!strcmp(sym, syms[i].name))
				found |= syms[i].bit;
	}
	fclose(f);
	return found;
}

void kernel_facts_read(struct kernel_facts *k)
{
	struct gupdev dev;
	struct utsname u;

	memset(k, 0, sizeof(*k));
	if (uname(&u) == 0)
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	k->syms = kallsyms_mask();
	k->driver = gupdev_open(&dev);
	if (!k->driver) {
		k->driver_features = dev.ver.features;
		gupdev_close(&dev);
	}
}
