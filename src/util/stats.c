/* SPDX-License-Identifier: MIT */
/* Counters and phase timers of one run, and their text and JSON forms. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/escape.h"
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

/* enum store_how's order. */
static const char *const stats_how_names[] = { "decoded", "cloned", "copied" };

int
stats_add_pkg(struct stats *st, const char *name, int how, uint64_t saved,
    bool filled)
{
	struct stats_pkg *v;
	char *n;

	if ((n = strdup(name)) == NULL)
		return -ENOMEM;
	if ((v = realloc(st->pkg, (st->npkg + 1) * sizeof(*v))) == NULL) {
		free(n);
		return -ENOMEM;
	}
	st->pkg = v;
	v[st->npkg].name = n;
	v[st->npkg].how = how >= 0 && how < 3 ? how : 0;
	v[st->npkg].saved = saved;
	v[st->npkg].filled = filled;
	st->npkg++;
	return 0;
}

void
stats_free(struct stats *st)
{
	size_t i;

	for (i = 0; i < st->npkg; i++)
		free(st->pkg[i].name);
	free(st->pkg);
	st->pkg = NULL;
	st->npkg = 0;
}

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
	char name[256];
	size_t j;
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
	if (st->ahead > 0)
		fprintf(fp, "ahead:      decoded_ahead %lu\n", st->ahead);
	if (st->cache)
		fprintf(fp, "cache:      decoded %lu cloned %lu copied %lu"
		    " bytes_not_decoded %llu filled %lu\n", st->cache_pkgs[0],
		    st->cache_pkgs[1], st->cache_pkgs[2],
		    (unsigned long long)st->cache_saved, st->cache_filled);
	/*
	 * One line a package, after the totals: a script that reads the
	 * lines it knows by their first word is not disturbed.  Names come
	 * from control files: escaped (a valid one is itself).
	 */
	for (j = 0; st->cache && j < st->npkg; j++)
		fprintf(fp, "cache pkg:  %s %s bytes_not_decoded %llu filled"
		    " %s\n", escape_name(st->pkg[j].name, name, sizeof(name)),
		    stats_how_names[st->pkg[j].how],
		    (unsigned long long)st->pkg[j].saved,
		    st->pkg[j].filled ? "yes" : "no");
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
	size_t j;
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
	if (st->ahead > 0)
		fprintf(fp, ",\"decoded_ahead\":%lu", st->ahead);
	if (st->cache)
		fprintf(fp, ",\"cache\":{\"decoded\":%lu,\"cloned\":%lu,"
		    "\"copied\":%lu,\"bytes_not_decoded\":%llu,"
		    "\"filled\":%lu", st->cache_pkgs[0], st->cache_pkgs[1],
		    st->cache_pkgs[2], (unsigned long long)st->cache_saved,
		    st->cache_filled);
	if (st->cache) {
		fprintf(fp, ",\"packages\":[");
		for (j = 0; j < st->npkg; j++) {
			fprintf(fp, "%s{\"name\":", j ? "," : "");
			escape_put_json(fp, st->pkg[j].name);
			fprintf(fp, ",\"how\":\"%s\",\"bytes_not_decoded\":%llu,"
			    "\"filled\":%s}", stats_how_names[st->pkg[j].how],
			    (unsigned long long)st->pkg[j].saved,
			    st->pkg[j].filled ? "true" : "false");
		}
		fprintf(fp, "]}");
	}
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
