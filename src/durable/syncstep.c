/* SPDX-License-Identifier: MIT */
/* What every sync strategy does before it makes anything durable: the journal first, writeback started early. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable/fileat.h"
#include "durable/journal.h"
#include "durable/syncstep.h"

/*
 * Nothing of the run is made durable before the journal lines that name
 * where it is: else a power cut could keep a temporary, or a directory,
 * that no durable journal tells the repair about.
 */
int
syncstep_journal_first(struct syncbatch *sb, struct dbp_error *err)
{
	struct dbp_error ignored;

	if (sb->journal == NULL)
		return 0;
	/*
	 * An undo still wants the journal durable first (a directory it
	 * fails to remove must stay listed), but a journal that cannot be
	 * written (its own write failed, say) must not stop the undo from
	 * being made durable.
	 */
	if (sb->aborting) {
		journal_sync(sb->journal, &ignored);
		return 0;
	}
	return journal_sync(sb->journal, err);
}

int
syncstep_writeback(struct syncbatch *sb, struct sb_item *it,
    struct dbp_error *err)
{
#ifdef HAVE_SYNC_FILE_RANGE
	/*
	 * Start writeback now, without waiting: by the commit most data is
	 * on its way, and the fdatasync calls find little left to write.
	 */
	sb->st->calls[SC_SYNC_FILE_RANGE_WRITE]++;
	if (sync_file_range(it->fd, 0, 0, SYNC_FILE_RANGE_WRITE) != 0 &&
	    errno != ENOSYS && errno != EINVAL)
		return dbp_err(err, errno, it->path, "cannot start writeback");
#elif defined(HAVE_POSIX_FADVISE)
	/* What dpkg falls back to: DONTNEED starts writeback of dirty pages. */
	sb->st->calls[SC_FADVISE]++;
	(void)posix_fadvise(it->fd, 0, 0, POSIX_FADV_DONTNEED);
#else
	(void)sb;
	(void)it;
	(void)err;
#endif
	return 0;
}

int
syncstep_check(struct syncbatch *sb, struct sb_item *it, int fd,
    struct dbp_error *err)
{
	int r;

	/* The writeback before the mapping is what counts. */
	sb->st->calls[SC_FIEMAP]++;
	if ((r = fileat_writeback_mapped(fd)) == 0)
		return 0;
	if (r < 0)
		return dbp_err(err, errno, it->path, "cannot write");
	sb->st->calls[SC_FDATASYNC]++;
	if (fdatasync(fd) != 0)
		return dbp_err(err, errno, it->path, "cannot sync");
	return 0;
}

int
sb_close(struct syncbatch *sb, struct sb_item *it, struct dbp_error *err)
{
	int r;

	if (it->fd < 0)
		return 0;
	r = close(it->fd);
	it->fd = -1;
	sb->nopen--;
	/* A close error is a write error reported late: the data is not safe. */
	if (r != 0 && errno != EINTR)
		return dbp_err(err, errno, it->path, "cannot close");
	return 0;
}

/* Whether a file closed now can be opened again for reading. */
bool
sb_reopenable(int fd)
{
	struct stat st;

	if (geteuid() == 0)
		return true;
	return fstat(fd, &st) == 0 && (st.st_mode & S_IRUSR) &&
	    st.st_uid == geteuid();
}

int
sb_item_fd(struct syncbatch *sb, struct sb_item *it, bool *reopened,
    struct dbp_error *err)
{
	int dfd, fd;

	*reopened = false;
	if (it->fd >= 0)
		return it->fd;
	if ((dfd = dirs_fd(sb->dirs, it->dir)) < 0)
		return dbp_err(err, -dfd, dirs_path(sb->dirs, it->dir),
		    "cannot open directory");
	sb->st->calls[SC_REOPEN]++;
	fd = openat(dfd, it->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return dbp_err(err, errno, it->path, "cannot reopen");
	*reopened = true;
	return fd;
}
