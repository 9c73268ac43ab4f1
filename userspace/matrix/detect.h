/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gupctl detect: which GUP policy the running kernel implements, from its
 * facts (model/detect.h) confirmed or refuted by a few matrix cells
 * (model/probe.h).  The guide: docs/policies-guide.md, "Your kernel".
 */
#ifndef MATRIX_DETECT_H
#define MATRIX_DETECT_H

int cmd_detect(int argc, char **argv);

#endif /* MATRIX_DETECT_H */
