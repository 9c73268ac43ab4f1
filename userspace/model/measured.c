// SPDX-License-Identifier: GPL-2.0
/*
 * measured: the cells of a kernel with no policy to compare (measured.h).
 */
#include <stdio.h>
#include <string.h>

#include "model/measured.h"
#include "model/policy.h"

bool measured_policy_ok(const char *policy)
{
	return policy && (policy_lookup(policy) || policy_is_none(policy));
}

const char *measured_policy_error(const char *policy, const char *source,
				  char *buf, size_t size)
{
	if (!measured_policy_ok(policy)) {
		snprintf(buf, size, "unknown --policy '%s': give one of: %s, or %s",
			 policy ? policy : "", policy_names(), POLICY_NONE);
		return buf;
	}
	if (policy_is_none(policy) && measured_kernel(policy, source) == POLICY_KERNEL_COUNT) {
		snprintf(buf, size, "--policy %s needs --source 6.1, 6.12 or 7.3 (the flavour's source column): with no policy, the kernel's version decides which cells can run",
			 POLICY_NONE);
		return buf;
	}
	return NULL;
}

enum policy_kernel measured_kernel(const char *policy, const char *source)
{
	if (!policy)
		return POLICY_KERNEL_COUNT;
	if (!policy_is_none(policy))
		return policy_kernel(policy);
	return policy_kernel_of_source(source);
}

bool measured_any_policy(enum policy_kernel k, bool (*pred)(const char *policy, void *ctx),
			 void *ctx)
{
	const char *names[16];
	size_t i, n = policy_family(k, names, sizeof(names) / sizeof(names[0]));

	for (i = 0; i < n; i++)
		if (pred(names[i], ctx))
			return true;
	return false;
}

char *measured_ktap(char *buf, size_t size, unsigned int n, const char *name,
		    const char *what)
{
	snprintf(buf, size, "ok %u %s # SKIP " MEASURED_ONLY "%s%s", n, name,
		 what && *what ? ": " : "", what ? what : "");
	return buf;
}
