/* SPDX-License-Identifier: MIT */
/* Unit tests of dpkgadopt.c: the packages dpkg installed, read as installed records. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkutil.h"
#include "db/dpkgadopt.h"
#include "db/dpkgstatus.h"
#include "durable/rootfs.h"

#define MD5_ONE	"5bbf5a52328e7439ae6e719dfe712200"	/* "one\n" */
#define MD5_TWO	"c193497a1a06b2c72230e6146ff47080"	/* "two\n" */

static const char status_text[] =
    "Package: tree\n"
    "Status: install ok installed\n"
    "Maintainer: T <t@example.org>\n"
    "Architecture: all\n"
    "Version: 1.0-1\n"
    "Replaces: old\n"
    "Conffiles:\n"
    " /etc/tree.conf " MD5_ONE "\n"
    " /etc/gone.conf " MD5_TWO " obsolete\n"
    "Description: a tree\n"
    "\n"
    "Package: rc\n"
    "Status: deinstall ok config-files\n"
    "Architecture: all\n"
    "Version: 2\n"
    "Conffiles:\n"
    " /etc/rc.conf newconffile\n"
    "\n"
    "Package: gone\n"
    "Status: purge ok not-installed\n"
    "Architecture: all\n"
    "\n"
    "Package: lib\n"
    "Status: install ok unpacked\n"
    "Architecture: amd64\n"
    "Multi-Arch: same\n"
    "Version: 3\n"
    "\n"
    "Package: lib\n"
    "Status: install ok unpacked\n"
    "Architecture: i386\n"
    "Multi-Arch: same\n"
    "Version: 3\n"
    "\n"
    "Package: known\n"
    "Status: install ok installed\n"
    "Architecture: all\n"
    "Version: 1\n"
    "\n";

/* A root with dpkg's database and the files it lists, and its status. */
static void
adopt_root(struct dpkgstatus *st, struct rootfs *rf)
{
	struct dbp_error err;

	checkutil_mkdir("var");
	checkutil_mkdir("var/lib");
	checkutil_mkdir("var/lib/dpkg");
	checkutil_mkdir("var/lib/dpkg/info");
	checkutil_write("var/lib/dpkg/status", status_text);
	checkutil_write("var/lib/dpkg/info/tree.list", "/.\n/usr\n/usr/bin\n"
	    "/usr/bin/tree\n/bin\n/bin/tree\n/usr/bin/link\n/usr/bin/missing\n"
	    "/etc\n/etc/tree.conf\n");
	checkutil_write("var/lib/dpkg/info/tree.md5sums", MD5_TWO
	    "  usr/bin/tree\n" MD5_ONE "  etc/tree.conf\nshort  usr/bin/x\n");
	checkutil_write("var/lib/dpkg/info/rc.list", "/etc\n/etc/rc.conf\n");
	checkutil_write("var/lib/dpkg/info/lib:amd64.list", "/usr\n/usr/lib\n");
	checkutil_mkdir("usr");
	checkutil_mkdir("usr/bin");
	checkutil_mkdir("etc");
	checkutil_write("usr/bin/tree", "two\n");
	checkutil_symlink("usr/bin", "bin");
	checkutil_symlink("tree", "usr/bin/link");
	checkutil_write("etc/tree.conf", "changed\n");
	checkutil_write("etc/rc.conf", "rc\n");
	memset(st, 0, sizeof(*st));
	ck_assert_int_eq(dpkgstatus_parse(st, status_text,
	    strlen(status_text)), 0);
	ck_assert_int_eq(rootfs_open(rf, checkutil_scratch(), &err), 0);
}

static bool
adopt_known(void *ctx, const char *name)
{
	(void)ctx;
	return strcmp(name, "known") == 0;
}

static struct record *
adopt_find(struct record **v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(control_get(v[i]->ctl, "Package"), name) == 0)
			return v[i];
	return NULL;
}

START_TEST(test_dpkgadopt_typed)
{
	const struct record_entry *e;
	struct record **v, *tree;
	struct dpkgstatus st;
	struct dbp_error err;
	struct rootfs rf;
	size_t n, i;

	adopt_root(&st, &rf);
	ck_assert_int_eq(dpkgadopt_all(&rf, &st, 0, adopt_known, NULL, &v,
	    &n, &err), 0);
	/* tree, rc, one lib; not the purged one, nor the one known already. */
	ck_assert_uint_eq(n, 3);
	ck_assert_ptr_null(adopt_find(v, n, "known"));
	ck_assert_ptr_null(adopt_find(v, n, "gone"));
	tree = adopt_find(v, n, "tree");
	ck_assert_ptr_nonnull(tree);
	ck_assert(tree->adopted && tree->dpkg_db);
	/* The package's fields, not dpkg's state of it. */
	ck_assert_str_eq(control_get(tree->ctl, "Replaces"), "old");
	ck_assert_ptr_null(control_get(tree->ctl, "Status"));
	ck_assert_ptr_null(control_get(tree->ctl, "Conffiles"));
	ck_assert(!record_config_files(tree));
	ck_assert_ptr_null(record_find(tree, "/."));
	for (i = 0; i < tree->n; i++)
		ck_assert(tree->v[i].sha256_unknown);
	ck_assert_int_eq(record_find(tree, "/usr/bin")->type, 'd');
	e = record_find(tree, "/usr/bin/tree");
	ck_assert_int_eq(e->type, 'f');
	ck_assert(e->has_md5 && !e->conffile);
	ck_assert_uint_eq(e->size, 4);
	/* merged /usr's link is a directory to every rule. */
	ck_assert_int_eq(record_find(tree, "/bin")->type, 'd');
	e = record_find(tree, "/usr/bin/link");
	ck_assert_int_eq(e->type, 'l');
	ck_assert_str_eq(e->target, "tree");
	ck_assert_int_eq(record_find(tree, "/usr/bin/missing")->type, 'f');
	/* Conffiles: the status's MD5, not the md5sums' nor the file's. */
	e = record_find(tree, "/etc/tree.conf");
	ck_assert(e->conffile && e->has_md5 && !e->obsolete);
	ck_assert_int_eq(e->md5[0], 0x5b);
	/* An obsolete one, out of the list, is the package's still. */
	e = record_find(tree, "/etc/gone.conf");
	ck_assert_ptr_nonnull(e);
	ck_assert(e->conffile && e->obsolete && e->type == 'f');
	/* config-files: its conffiles, as debunpack's records say it. */
	ck_assert(record_config_files(adopt_find(v, n, "rc")));
	e = record_find(adopt_find(v, n, "rc"), "/etc/rc.conf");
	ck_assert(e->conffile && !e->has_md5);
	/* One lib: the first instance of the Multi-Arch: same package. */
	ck_assert_str_eq(control_get(adopt_find(v, n, "lib")->ctl,
	    "Architecture"), "amd64");
	ck_assert_int_eq(record_find(adopt_find(v, n, "lib"), "/usr/lib")->type,
	    'f');	/* not there */
	for (i = 0; i < n; i++)
		record_free(v[i]);
	free(v);
	dpkgstatus_clear(&st);
	rootfs_close(&rf);
}
END_TEST

START_TEST(test_dpkgadopt_untyped)
{
	struct dpkgstatus st;
	struct dbp_error err;
	struct record *r;
	struct rootfs rf;
	size_t i;
	int dfd;

	adopt_root(&st, &rf);
	dfd = open(checkutil_at("var/lib/dpkg"), O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(dpkgadopt_one(&rf, dfd, &st.v[0], DPKGADOPT_UNTYPED,
	    &r, &err), 0);
	/* Nothing looked at in the root: every path a file, in list order. */
	ck_assert_uint_eq(r->n, 10);
	for (i = 0; i < r->n; i++)
		ck_assert_int_eq(r->v[i].type, 'f');
	ck_assert_str_eq(r->v[0].path, "/usr");
	ck_assert(record_find(r, "/etc/tree.conf")->conffile);
	record_free(r);
	/* No list: no paths; the stanza's package all the same. */
	ck_assert_int_eq(unlinkat(dfd, "info/tree.list", 0), 0);
	ck_assert_int_eq(dpkgadopt_one(&rf, dfd, &st.v[0], 0, &r, &err), 0);
	ck_assert_uint_eq(r->n, 2);	/* the conffiles */
	record_free(r);
	close(dfd);
	dpkgstatus_clear(&st);
	rootfs_close(&rf);
}
END_TEST

/* Read lazily, then typed: entry for entry what the typed read gives. */
START_TEST(test_dpkgadopt_lazy)
{
	const struct record_entry *a, *b;
	struct record **v, **w;
	struct dpkgstatus st;
	struct dbp_error err;
	struct rootfs rf;
	size_t n, m, i, k;
	int perr = 0;

	adopt_root(&st, &rf);
	ck_assert_int_eq(dpkgadopt_all(&rf, &st, 0, adopt_known, NULL, &v,
	    &n, &err), 0);
	ck_assert_int_eq(dpkgadopt_all(&rf, &st, DPKGADOPT_LAZY, adopt_known,
	    NULL, &w, &m, &err), 0);
	ck_assert_uint_eq(n, m);
	/* Nothing of the root looked at, nor the md5sums read. */
	a = record_find(adopt_find(w, m, "tree"), "/usr/bin");
	ck_assert_int_eq(a->type, 'f');
	a = record_find(adopt_find(w, m, "tree"), "/usr/bin/tree");
	ck_assert(!a->has_md5 && a->size == 0);
	/* Conffiles are files whatever is there: known without looking. */
	a = record_find(adopt_find(w, m, "tree"), "/etc/tree.conf");
	ck_assert(a->conffile && a->has_md5);
	for (i = 0; i < m; i++) {
		ck_assert(w[i]->untyped);
		ck_assert_int_eq(dpkgadopt_type(&rf, w[i]), 0);
		ck_assert(!w[i]->untyped);
		/* Typing twice does nothing. */
		ck_assert_int_eq(dpkgadopt_type(&rf, w[i]), 0);
	}
	for (i = 0; i < n; i++) {
		struct record *x = v[i];
		struct record *y = adopt_find(w, m, control_get(x->ctl,
		    "Package"));

		ck_assert_ptr_nonnull(y);
		ck_assert_uint_eq(x->n, y->n);
		for (k = 0; k < x->n; k++) {
			a = &x->v[k];
			b = &y->v[k];
			ck_assert_str_eq(a->path, b->path);
			ck_assert_int_eq(a->type, b->type);
			ck_assert_uint_eq(a->mode, b->mode);
			ck_assert_uint_eq(a->uid, b->uid);
			ck_assert_uint_eq(a->gid, b->gid);
			ck_assert_uint_eq(a->size, b->size);
			ck_assert(a->conffile == b->conffile &&
			    a->obsolete == b->obsolete &&
			    a->has_md5 == b->has_md5);
			ck_assert_mem_eq(a->md5, b->md5, sizeof(a->md5));
			if (a->target != NULL)
				ck_assert_str_eq(a->target, b->target);
			else
				ck_assert_ptr_null(b->target);
		}
	}
	/* One path at a time, as the typed read types it. */
	ck_assert_int_eq(dpkgadopt_path_type(&rf, "/usr/bin", &perr), 'd');
	ck_assert_int_eq(dpkgadopt_path_type(&rf, "/bin", &perr), 'd');
	ck_assert_int_eq(dpkgadopt_path_type(&rf, "/usr/bin/link", &perr),
	    'l');
	ck_assert_int_eq(dpkgadopt_path_type(&rf, "/usr/bin/tree", &perr),
	    'f');
	ck_assert_int_eq(dpkgadopt_path_type(&rf, "/usr/bin/missing", &perr),
	    'f');
	ck_assert_int_eq(perr, 0);
	for (i = 0; i < n; i++)
		record_free(v[i]);
	for (i = 0; i < m; i++)
		record_free(w[i]);
	free(v);
	free(w);
	dpkgstatus_clear(&st);
	rootfs_close(&rf);
}
END_TEST

START_TEST(test_dpkgadopt_none)
{
	struct dpkgstatus st;
	struct dbp_error err;
	struct record **v;
	struct rootfs rf;
	size_t n;

	/* No database in the root, or no status: none. */
	ck_assert_int_eq(rootfs_open(&rf, checkutil_scratch(), &err), 0);
	ck_assert_int_eq(dpkgadopt_all(&rf, NULL, 0, adopt_known, NULL, &v,
	    &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(dpkgstatus_parse(&st, status_text,
	    strlen(status_text)), 0);
	ck_assert_int_eq(dpkgadopt_all(&rf, &st, 0, adopt_known, NULL, &v,
	    &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	dpkgstatus_clear(&st);
	rootfs_close(&rf);
}
END_TEST

static Suite *
dpkgadopt_suite(void)
{
	Suite *s = suite_create("dpkgadopt");
	TCase *tc;

	tc = checkutil_scratch_tcase(s, "read", NULL, NULL);
	tcase_add_test(tc, test_dpkgadopt_typed);
	tcase_add_test(tc, test_dpkgadopt_untyped);
	tcase_add_test(tc, test_dpkgadopt_lazy);
	tc = checkutil_scratch_tcase(s, "limits", NULL, NULL);
	tcase_add_test(tc, test_dpkgadopt_none);
	return s;
}

int
main(void)
{
	return checkutil_run(dpkgadopt_suite());
}
