/* SPDX-License-Identifier: GPL-2.0 */
/* gupctl bench: GUP timed per method, flags and backing, in the guest. */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

int cmd_bench(int argc, char **argv);

#endif /* BENCH_RUN_H */
