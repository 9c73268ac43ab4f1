// SPDX-License-Identifier: GPL-2.0
/*
 * rdma: the RDMA cells of gupctl consumers run, in gupctl-rdma
 * only (linked with libibverbs, which dlopens its providers: librxe,
 * libsiw).  The target's page is registered with ibv_reg_mr() on the soft
 * device consumers/run.c made (CONS_RXE_DEV, CONS_SIW_DEV); on rxe a second
 * RC QP on the same port then RDMA WRITEs a page of NEW into it, so that
 * the cell judges whether the data landed.  siw: registration only (an
 * iWARP QP reaches RTS only through the connection manager).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "consumers/cells.h"
#include "consumers/run.h"
#include "lib/gupdev.h"
#include "lib/target.h"
#include "lib/util.h"
#include "model/cell.h"

const bool consumers_have_verbs = true;

#define RDMA_PORT	1
#define RDMA_WAIT_MS	5000

/* The port's IPv4-mapped RoCE GID (::ffff:a.b.c.d): its index, or -1. */
static int rdma_v4_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pa;
	int i;

	if (ibv_query_port(ctx, RDMA_PORT, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid(ctx, RDMA_PORT, i, gid) &&
		    !memcmp(gid->raw, v4, sizeof(v4)))
			return i;
	return -1;
}

/* RESET -> INIT -> RTR -> RTS, connected to @dest_qpn on the same port. */
static int rdma_connect(struct ibv_qp *qp, uint32_t dest_qpn, const union ibv_gid *gid,
			int gid_index)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = RDMA_PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = RDMA_PORT;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return -errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return -errno;
	return 0;
}

/* An RDMA WRITE of @index's NEW page from a second QP into @mr. */
static void rdma_write(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_mr *mr,
		       unsigned int index, struct cons_result *r)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *src_qp = NULL, *dst_qp = NULL;
	struct ibv_mr *src_mr = NULL;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_cq *cq;
	struct ibv_sge sge;
	struct ibv_wc wc;
	union ibv_gid gid;
	char *src = NULL;
	int gidx, ret, n = 0, waited = 0;

	gidx = rdma_v4_gid(ctx, &gid);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (gidx < 0 || !cq) {
		snprintf(r->note, sizeof(r->note), "registered; no write: %s",
			 gidx < 0 ? "no IPv4 RoCE GID on the port" : "ibv_create_cq failed");
		goto out;
	}
	qa.send_cq = cq;
	qa.recv_cq = cq;
	src_qp = ibv_create_qp(pd, &qa);
	dst_qp = ibv_create_qp(pd, &qa);
	src = aligned_alloc(CONS_PAGE, CONS_PAGE);
	if (src)
		consumer_pattern(index, true, src, CONS_PAGE);
	src_mr = src ? ibv_reg_mr(pd, src, CONS_PAGE, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!src_qp || !dst_qp || !src_mr) {
		snprintf(r->note, sizeof(r->note), "registered; no write: QPs or the source MR: %s",
			 errno_name(errno));
		goto out;
	}
	ret = rdma_connect(src_qp, dst_qp->qp_num, &gid, gidx);
	if (!ret)
		ret = rdma_connect(dst_qp, src_qp->qp_num, &gid, gidx);
	if (ret) {
		snprintf(r->note, sizeof(r->note), "registered; no write: ibv_modify_qp: %s",
			 errno_name(-ret));
		goto out;
	}
	sge = (struct ibv_sge){ (uintptr_t)src, CONS_PAGE, src_mr->lkey };
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)mr->addr;
	wr.wr.rdma.rkey = mr->rkey;
	if (ibv_post_send(src_qp, &wr, &bad)) {
		snprintf(r->note, sizeof(r->note), "registered; ibv_post_send: %s",
			 errno_name(errno));
		goto out;
	}
	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && waited < RDMA_WAIT_MS) {
		poll(NULL, 0, 10);
		waited += 10;
	}
	/* the cell's result is the write's: the bytes that landed, or EIO */
	r->bytes = -1;
	r->err = EIO;
	if (n <= 0)
		snprintf(r->note, sizeof(r->note), "registered; the RDMA WRITE did not complete in %d ms",
			 RDMA_WAIT_MS);
	else if (wc.status != IBV_WC_SUCCESS)
		snprintf(r->note, sizeof(r->note), "registered; the RDMA WRITE completed with %s",
			 ibv_wc_status_str(wc.status));
	else
		r->bytes = CONS_PAGE;
	if (r->bytes > 0)
		snprintf(r->note, sizeof(r->note), "registered; an RDMA WRITE of %lu bytes completed",
			 CONS_PAGE);
out:
	if (src_qp)
		ibv_destroy_qp(src_qp);
	if (dst_qp)
		ibv_destroy_qp(dst_qp);
	if (src_mr)
		ibv_dereg_mr(src_mr);
	if (cq)
		ibv_destroy_cq(cq);
	free(src);
}

void consumers_rdma_call(int iface, const struct target *t, unsigned int index,
			 struct cons_result *r)
{
	const char *want = iface == CONS_RDMA_RXE ? CONS_RXE_DEV : CONS_SIW_DEV;
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr;
	int i, n = 0;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), want))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		snprintf(r->unsupported, sizeof(r->unsupported),
			 "no RDMA device %s (%d device(s)): this kernel has no %s, or `rdma link add` failed (the run's log)",
			 want, n, consumers[iface].config);
		goto out;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		snprintf(r->note, sizeof(r->note), "ibv_alloc_pd: %s", errno_name(errno));
		goto out;
	}
	mr = ibv_reg_mr(pd, t->addr, CONS_PAGE,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	r->done = 1;
	r->reg_err = mr ? 0 : errno;
	if (!mr) {
		r->bytes = -1;
		r->err = errno;
		goto out;
	}
	r->bytes = CONS_PAGE;
	if (iface == CONS_RDMA_RXE)
		rdma_write(ctx, pd, mr, index, r);
	else
		snprintf(r->note, sizeof(r->note), "registered; no data moves: %s",
			 consumers[iface].no_data);
	/* unpins, dirtying the pages (ib_umem_release(), siw_umem_release()) */
	ibv_dereg_mr(mr);
out:
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	if (list)
		ibv_free_device_list(list);
}
