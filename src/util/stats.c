/* SPDX-License-Identifier: MIT */
/* Counters and phase timers of one run, and their text and JSON forms. */
#include "config.h"

#include <time.h>

#include "util/stats.h"

static const char *const stats_entry_names[ST_NENTRY] = {
	"file", "hardlink", "symlink", "dir", "char", "block", "fifo",
	"skipped",
};

static const char *const stats_call_names[SC_NCALL] = {
	"sync_file_range_write", "sync_file_range_wait", "fadvise",
	"fdatasync", "fsync", "syncfs", "rename", "link", "reopen", "fiemap",
};

static const char *const stats_phase_names[PH_NPHASE] = {
	"extract", "writeback_wait", "fdatasync", "rename", "dir_sync",
};

double
stats_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
stats_write_text(FILE *fp, const struct stats *st)
{
	double total = 0;
	int i;

	fprintf(fp, "sync mode:  %s\n", st->mode);
	if (st->nosync)
		fprintf(fp, "nosync:     yes (debunpack-nosync: the sync calls"
		    " did nothing, nothing was made durable)\n");
	fprintf(fp, "packages:   %lu\n", st->packages);
	fprintf(fp, "entries:   ");
	for (i = 0; i < ST_NENTRY; i++)
		fprintf(fp, " %s %lu", stats_entry_names[i], st->entries[i]);
	fprintf(fp, "\nbytes:      %llu\n", (unsigned long long)st->bytes);
	fprintf(fp, "calls:     ");
	for (i = 0; i < SC_NCALL; i++)
		fprintf(fp, " %s %lu", stats_call_names[i], st->calls[i]);
	fprintf(fp, "\nseconds:   ");
	for (i = 0; i < PH_NPHASE; i++) {
		fprintf(fp, " %s %.3f", stats_phase_names[i], st->phase[i]);
		total += st->phase[i];
	}
	fprintf(fp, " total %.3f\n", total);
	if (st->cache)
		fprintf(fp, "cache:      decoded %lu cloned %lu copied %lu"
		    " bytes_not_decoded %llu filled %lu\n", st->cache_pkgs[0],
		    st->cache_pkgs[1], st->cache_pkgs[2],
		    (unsigned long long)st->cache_saved, st->cache_filled);
	for (i = 0; i < (int)st->nfs; i++)
		fprintf(fp, "filesystem: %s %s (%s)\n", st->fs[i].type,
		    st->fs[i].how, st->fs[i].why);
	if (st->dev.name[0] != '\0')
		fprintf(fp, "device:     %s (device-wide) flushes %llu"
		    " flush_ms %llu written_bytes %llu\n", st->dev.name,
		    (unsigned long long)st->dev.flushes,
		    (unsigned long long)st->dev.flush_ms,
		    (unsigned long long)st->dev.written);
}

void
stats_write_json(FILE *fp, const struct stats *st)
{
	double total = 0;
	int i;

	fprintf(fp, "{\"sync_mode\":\"%s\",\"nosync\":%s,\"packages\":%lu,"
	    "\"entries\":{", st->mode, st->nosync ? "true" : "false",
	    st->packages);
	for (i = 0; i < ST_NENTRY; i++)
		fprintf(fp, "%s\"%s\":%lu", i ? "," : "", stats_entry_names[i],
		    st->entries[i]);
	fprintf(fp, "},\"bytes\":%llu,\"calls\":{",
	    (unsigned long long)st->bytes);
	for (i = 0; i < SC_NCALL; i++)
		fprintf(fp, "%s\"%s\":%lu", i ? "," : "", stats_call_names[i],
		    st->calls[i]);
	fprintf(fp, "},\"seconds\":{");
	for (i = 0; i < PH_NPHASE; i++) {
		fprintf(fp, "%s\"%s\":%.6f", i ? "," : "", stats_phase_names[i],
		    st->phase[i]);
		total += st->phase[i];
	}
	fprintf(fp, ",\"total\":%.6f},\"filesystems\":[", total);
	/* Types and reasons are fixed strings: nothing to escape. */
	for (i = 0; i < (int)st->nfs; i++)
		fprintf(fp, "%s{\"type\":\"%s\",\"sync\":\"%s\",\"why\":\"%s\"}",
		    i ? "," : "", st->fs[i].type, st->fs[i].how, st->fs[i].why);
	fprintf(fp, "]");
	if (st->cache)
		fprintf(fp, ",\"cache\":{\"decoded\":%lu,\"cloned\":%lu,"
		    "\"copied\":%lu,\"bytes_not_decoded\":%llu,"
		    "\"filled\":%lu}", st->cache_pkgs[0], st->cache_pkgs[1],
		    st->cache_pkgs[2], (unsigned long long)st->cache_saved,
		    st->cache_filled);
	/* The name of a disk is the kernel's: no character to escape. */
	if (st->dev.name[0] != '\0')
		fprintf(fp, ",\"device\":{\"name\":\"%s\",\"scope\":"
		    "\"device-wide\",\"flushes\":%llu,\"flush_ms\":%llu,"
		    "\"written_bytes\":%llu}", st->dev.name,
		    (unsigned long long)st->dev.flushes,
		    (unsigned long long)st->dev.flush_ms,
		    (unsigned long long)st->dev.written);
	else
		fprintf(fp, ",\"device\":null");
	fprintf(fp, "}\n");
}
