/* SPDX-License-Identifier: MIT */
/* What every sync strategy does before it makes anything durable: the journal first, writeback started early. */
#ifndef DEBUNPACK_SYNCSTEP_H
#define DEBUNPACK_SYNCSTEP_H

#include "util/error.h"
#include "durable/syncbatch_int.h"

/*
 * Make the batch's journal durable (if it has one), before anything of
 * the run is: it names the directories where the batch's files are.
 * While undoing, a journal that cannot be written does not stop the undo.
 */
int syncstep_journal_first(struct syncbatch *sb, struct dbp_error *err);

/* Start the writeback of IT's data (IT->fd) without waiting for it. */
int syncstep_writeback(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err);

/*
 * Write back what is left of IT's data (on FD) and wait for it, returning
 * the writeback error the file holds, without a device flush: the
 * FS_IOC_FIEMAP ioctl with FIEMAP_FLAG_SYNC, which reaches an overlay's
 * upper file (fskind.c).  Where there is no FIEMAP, fdatasync.
 */
int syncstep_check(struct syncbatch *sb, struct sb_item *it, int fd,
    struct dbp_error *err);

#endif
