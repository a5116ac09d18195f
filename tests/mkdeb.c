/* SPDX-License-Identifier: MIT */
/* mkdeb: build .deb test fixtures, sound or deliberately broken, from a text description. */

/*
 * Usage: mkdeb DESC OUT.deb
 *
 * DESC may be "-" for standard input, OUT.deb may be "-" for standard
 * output.  Nothing is written unless the whole description is valid.
 * Errors are reported as "mkdeb: FILE:LINE: cause" with exit status 1;
 * a usage error exits with status 2.
 *
 * The result is an ar archive laid out the way dpkg-deb lays it out:
 * "!<arch>\n", then members named without a trailing slash, mode 100644,
 * uid and gid 0, padded to an even length with "\n".  By default the
 * members are debian-binary ("2.0\n"), control.tar.xz and data.tar.xz.
 * Both tar members are GNU tar by default, as dpkg-deb writes them.
 * Output is deterministic: every timestamp comes from the description.
 *
 * DESCRIPTION FORMAT
 *
 * The description is read line by line.  Blank lines and lines whose
 * first non-blank character is "#" are ignored; a "#" anywhere else is
 * an ordinary character.  A line is a keyword followed by arguments
 * separated by blanks (space, tab).
 *
 * Every argument may use these escapes, which is how paths get spaces,
 * newlines or control characters:
 *
 *	\n  newline	\t  tab		\r  carriage return
 *	\s  space	\\  backslash	\xNN  the byte 0xNN (two hex digits)
 *	\&  nothing, as in troff: "\&" alone is an empty argument, which
 *	    is how a tar entry or link target gets an empty name
 *
 * Any other backslash sequence is an error.  Arguments written as TEXT
 * below take the rest of the line: inner blanks are kept, leading and
 * trailing blanks are dropped (write \s or \t to keep them), escapes
 * are applied, and no newline is added (write \n).  Paths must not
 * contain \x00; TEXT may.
 *
 * Numbers are decimal, except MODE which is octal (0755, 04755, 01777).
 *
 * Package-wide settings may appear anywhere; when repeated, the last one
 * wins.
 *
 *   control-field NAME TEXT
 *	Append "NAME: TEXT\n" to the control file ("NAME:\n" if TEXT is
 *	empty).
 *   control-raw TEXT
 *	Append TEXT verbatim to the control file, for malformed control
 *	files.  Mixes with control-field in order of appearance.  Without
 *	any control-field or control-raw line the control file is:
 *		Package: test
 *		Version: 1.0
 *		Architecture: all
 *		Maintainer: Test <t@example.org>
 *		Description: test package
 *   no-control-file
 *	control.tar has no ./control member.
 *   control-file NAME MODE TEXT
 *	Add ./NAME to control.tar (conffiles, postinst, md5sums...) after
 *	./control, holding TEXT.
 *   compress data|control xz|gz|zst|bz2|lzma|none [LEVEL]
 *	Compression of that tar member, also its name suffix; "none"
 *	gives a bare control.tar or data.tar.  Default xz for both.
 *	LEVEL is passed to libarchive as compression-level (xz 0-9,
 *	gz 1-9, zst 1-22, bz2 1-9, lzma 0-9); the default is
 *	libarchive's (xz 6, as dpkg-deb uses).  Lower levels make big
 *	fixtures much quicker to build.  A zst member is one frame with
 *	a content checksum (XXH64), as dpkg-deb writes it, so that a
 *	corrupt-member in it can be noticed by the reader.
 *   xz-blocks data|control SIZE [nosizes]
 *	The member, which must be compressed xz, is written with
 *	liblzma as a stream of independent blocks of SIZE uncompressed
 *	bytes each (the last one may be shorter), LZMA2 at the member's
 *	LEVEL (default 6) and a CRC64 check, instead of libarchive's
 *	one block.  Every block header stores the block's compressed and
 *	uncompressed size, as "xz -T2 --block-size=SIZE" writes them;
 *	with nosizes no header stores them, as "xz -T1 --block-size=SIZE"
 *	writes them.  The settings below need xz-blocks.
 *   xz-split data|control BLOCK
 *	Block BLOCK starts a second, concatenated stream (as "cat a.xz
 *	b.xz"); BLOCK "end" (or the number of blocks) appends a stream
 *	without blocks.
 *   xz-padding data|control N
 *	Append N zero bytes of stream padding after the last stream
 *	(valid xz wants a multiple of 4).
 *   xz-damage data|control BLOCK HOW
 *	Break block BLOCK; may be repeated.  HOW is one of
 *		corrupt		XOR 0xFF into the byte in the middle of
 *				the block's compressed data
 *		cut		end the member in the middle of the
 *				block's compressed data: no later block,
 *				index or stream footer
 *		usize N		the block header (and the index, which
 *				agrees with it) claims N uncompressed
 *				bytes; the header grows if N needs more
 *				bytes than the true size
 *		dict PROP	the block header's LZMA2 dictionary
 *				property byte is PROP (0-40: 37 is
 *				1.5 GiB, 40 is 4 GiB - 1); the data is
 *				still encoded with the preset's
 *				dictionary, so it decodes with any
 *				dictionary at least that large
 *	Block headers keep valid CRC32s.  BLOCK counts from 0; "middle"
 *	is the block at half the count, "last" the last one.
 *   format data|control gnu|pax|ustar
 *	Tar dialect of that member.  Default gnu.  ustar cannot hold
 *	long names; such an entry is an error.
 *   debian-binary TEXT
 *	Content of the debian-binary member.  Default "2.0\n".
 *   member-order MEMBER...
 *	The ar members to write, in this order.  MEMBER is debian-binary,
 *	control, data or extra:NAME; the last adds a member with that
 *	exact ar name (at most 16 bytes) holding "x\n".  Leaving one
 *	out builds a .deb without it; naming one twice duplicates it.
 *	Default: debian-binary control data.
 *   timestamp N
 *	mtime of the ar members and of the implicit ./ and ./control
 *	entries of control.tar.  Default 1700000000.
 *   truncate N
 *	Cut the last N bytes off the finished .deb.
 *   append-garbage N
 *	Append N bytes of 0xAB after the finished .deb.
 *   corrupt-member data|control OFFSET
 *	XOR 0xFF into one byte of the member's payload as stored in the
 *	ar archive (so: compressed).  OFFSET counts from the start, or
 *	from the end if negative (-1 is the last byte); "middle" means
 *	the byte at half the length.  The member must be in member-order.
 *   ar-size-lie data|control DELTA
 *	The member's ar header claims a size of true size + DELTA (DELTA
 *	may be negative); the payload and its padding stay as they are.
 *   tar-size-lie PATH DELTA
 *	The tar header of every data.tar entry named exactly PATH claims
 *	size + DELTA while the data that follows keeps its true length.
 *	With a positive DELTA on the last entry, reading runs off the end
 *	of the tar: a truncated archive that is still validly compressed.
 *
 * State that applies to the entries declared after it:
 *
 *   owner UID GID UNAME GNAME
 *	Default 0 0 root root.
 *   mtime N
 *	Default 1700000000.
 *
 * Entries of data.tar, written in order of appearance.  PATH is put into
 * the tar exactly as given, so "./usr/bin/foo", "../x" and "/etc/x" are
 * all possible; dpkg-built packages start with "dir ./ 0755" and use
 * "./" paths throughout.  Nothing is added implicitly, and directory
 * names get a trailing "/" if they lack one, as in dpkg-built tars.
 *
 *   dir PATH MODE
 *   file PATH MODE CONTENT
 *	CONTENT is one of
 *		text:TEXT	TEXT as described above (rest of line)
 *		empty		zero bytes
 *		size:N		N pseudo-random bytes, seeded from PATH
 *		fill:N:C	N copies of the byte C (C may be an escape)
 *   hardlink PATH TARGET
 *	Tar hard link to TARGET as given; it takes the mode of the latest
 *	entry declared with path TARGET, else 0644.
 *   symlink PATH TARGET
 *   chardev PATH MODE MAJOR MINOR
 *   blockdev PATH MODE MAJOR MINOR
 *   fifo PATH MODE
 *   gen COUNT PREFIX MODE SIZE
 *	COUNT regular files named PREFIX followed by the index printed
 *	as %05d, each holding SIZE pseudo-random bytes seeded from its
 *	name.
 *
 * Example:
 *
 *	compress control gz
 *	control-field Package hello
 *	control-field Version 1.0-1
 *	control-field Architecture all
 *	control-field Maintainer Test <t@example.org>
 *	control-field Description greets\n more detail
 *	control-file conffiles 0644 /etc/hello.conf\n
 *	dir ./ 0755
 *	dir ./etc/ 0755
 *	file ./etc/hello.conf 0644 text:greeting = hi\n
 *	dir ./usr/ 0755
 *	dir ./usr/bin/ 0755
 *	file ./usr/bin/hello 0755 size:4096
 *	symlink ./usr/bin/hi hello
 */

/* getline(), strdup() and reallocarray() even under a strict -std=. */
#define _DEFAULT_SOURCE

#include <sys/types.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TIME	1700000000LL
/* Largest value an 11-digit octal tar field (size, mtime) can hold. */
#define MAX_OCTAL11	077777777777LL
#define MAX_PAYLOAD	((long long)1 << 34)

struct buf {
	unsigned char	*data;
	size_t		 len;
	size_t		 cap;
};

enum comp { COMP_XZ, COMP_GZ, COMP_ZST, COMP_BZ2, COMP_LZMA, COMP_NONE };
enum tarfmt { TAR_GNU, TAR_PAX, TAR_USTAR };
enum part_id { PART_CONTROL, PART_DATA, PART_COUNT };

enum etype {
	ENT_DIR, ENT_FILE, ENT_HARDLINK, ENT_SYMLINK, ENT_CHR, ENT_BLK,
	ENT_FIFO, ENT_GEN
};

enum ctype { CONT_TEXT, CONT_EMPTY, CONT_RANDOM, CONT_FILL };

struct owner {
	long long	 uid;
	long long	 gid;
	const char	*uname;
	const char	*gname;
};

struct entry {
	enum etype	 type;
	char		*path;		/* PREFIX for ENT_GEN */
	char		*target;
	int		 mode;
	struct owner	 owner;
	long long	 mtime;
	enum ctype	 ctype;
	struct buf	 text;
	size_t		 size;
	int		 fill;
	long long	 major;
	long long	 minor;
	long long	 count;
	int		 line;
};

enum mkind { MEM_DEBBIN, MEM_CONTROL, MEM_DATA, MEM_EXTRA };

struct member {
	enum mkind	 kind;
	char		 name[17];
};

struct lie {
	char		*path;
	long long	 delta;
	int		 line;
	int		 used;
};

enum xzhow { XZ_CORRUPT, XZ_CUT, XZ_USIZE, XZ_DICT };

/* Blocks are numbered from 0; these stand for the named ones. */
#define XZ_MIDDLE	(-1)
#define XZ_LAST		(-2)
#define XZ_END		(-3)	/* one past the last: xz-split only */

struct xzdamage {
	enum xzhow	 how;
	long long	 block;
	long long	 arg;
	int		 line;
};

struct part {
	enum comp	 comp;
	int		 level;		/* -1: libarchive's default */
	int		 level_line;
	enum tarfmt	 fmt;
	int		 corrupt;
	int		 corrupt_mid;
	long long	 corrupt_off;
	int		 corrupt_line;
	long long	 size_lie;
	int		 size_lie_line;
	long long	 xz_block;	/* 0: libarchive's single block */
	int		 xz_nosizes;
	int		 xz_line;
	long long	 xz_split;
	int		 xz_split_line;	/* 0: one stream */
	long long	 xz_padding;
	struct xzdamage	*xz_damage;
	size_t		 xz_ndamage;
	struct buf	 payload;
	int		 built;
};

struct desc {
	const char	*file;
	int		 line;

	struct buf	 control;
	int		 control_set;
	int		 no_control;
	struct buf	 debbin;
	long long	 timestamp;

	struct entry	*ctl;
	size_t		 nctl;
	size_t		 ctlcap;
	struct entry	*ents;
	size_t		 nents;
	size_t		 entcap;

	struct part	 parts[PART_COUNT];
	struct member	*order;
	size_t		 norder;
	struct lie	*lies;
	size_t		 nlies;
	size_t		 liecap;

	long long	 truncate;
	int		 truncate_line;
	long long	 garbage;

	struct owner	 owner;
	long long	 mtime;

	/*
	 * Entries copy the owner by value, so one name is shared by many
	 * entries and by d->owner, and the default "root" is a literal;
	 * keeping every allocated name here lets desc_free() release each
	 * exactly once.
	 */
	char		**names;
	size_t		 nnames;
	size_t		 namecap;
};

static const char *const comp_names[] = {
	"xz", "gz", "zst", "bz2", "lzma", "none"
};
static const char *const comp_suffix[] = {
	".xz", ".gz", ".zst", ".bz2", ".lzma", ""
};
static const char *const fmt_names[] = { "gnu", "pax", "ustar" };
static const char *const part_names[] = { "control", "data" };

static const char default_control[] =
    "Package: test\n"
    "Version: 1.0\n"
    "Architecture: all\n"
    "Maintainer: Test <t@example.org>\n"
    "Description: test package\n";

static void __attribute__((noreturn, format(printf, 1, 2)))
fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("mkdeb: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void __attribute__((noreturn, format(printf, 3, 4)))
fatal_at(const struct desc *d, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mkdeb: %s:%d: ", d->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *
xreallocarray(void *p, size_t n, size_t size)
{
	if ((p = reallocarray(p, n, size)) == NULL)
		fatal("out of memory");
	return p;
}

static char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		fatal("out of memory");
	return p;
}

static void
buf_reserve(struct buf *b, size_t n)
{
	size_t cap;

	if (n <= b->cap - b->len)
		return;
	if (n > SIZE_MAX / 2 - b->len)
		fatal("out of memory");
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	b->data = xreallocarray(b->data, cap, 1);
	b->cap = cap;
}

static void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void
buf_addc(struct buf *b, int c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = (unsigned char)c;
}

static void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Tokens double as C strings, so keep a NUL past the end. */
static void
buf_term(struct buf *b)
{
	buf_reserve(b, 1);
	b->data[b->len] = '\0';
}

static void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/*
 * splitmix64: cheap, well mixed, and identical everywhere, so fixture
 * content is reproducible across machines.
 */
static uint64_t
rng_next(uint64_t *state)
{
	uint64_t z;

	z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t
rng_seed(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int
lex_isblank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
lex_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *
lex_char(const struct desc *d, const char *p, struct buf *out)
{
	int hi, lo;

	if (*p != '\\') {
		buf_addc(out, *p);
		return p + 1;
	}
	switch (p[1]) {
	case 'n':
		buf_addc(out, '\n');
		break;
	case 't':
		buf_addc(out, '\t');
		break;
	case 'r':
		buf_addc(out, '\r');
		break;
	case 's':
		buf_addc(out, ' ');
		break;
	case '\\':
		buf_addc(out, '\\');
		break;
	case '&':
		break;
	case 'x':
		if ((hi = lex_hexval(p[2])) < 0 || (lo = lex_hexval(p[3])) < 0)
			fatal_at(d, d->line, "\\x needs two hex digits");
		buf_addc(out, hi << 4 | lo);
		return p + 4;
	case '\0':
		fatal_at(d, d->line, "backslash at end of line");
	default:
		if (p[1] > ' ' && p[1] < 0x7f)
			fatal_at(d, d->line, "unknown escape \\%c", p[1]);
		fatal_at(d, d->line, "unknown escape: backslash, byte 0x%02x",
		    (unsigned char)p[1]);
	}
	return p + 2;
}

/* Returns 0 when the line has no more tokens. */
static int
lex_token(const struct desc *d, const char **pp, struct buf *tok)
{
	const char *p = *pp;

	tok->len = 0;
	while (lex_isblank(*p))
		p++;
	if (*p == '\0') {
		*pp = p;
		buf_term(tok);
		return 0;
	}
	while (*p != '\0' && !lex_isblank(*p))
		p = lex_char(d, p, tok);
	buf_term(tok);
	*pp = p;
	return 1;
}

static void
lex_need(const struct desc *d, const char **pp, struct buf *tok,
    const char *what)
{
	if (!lex_token(d, pp, tok))
		fatal_at(d, d->line, "missing %s", what);
}

static void
lex_rest(const struct desc *d, const char **pp, struct buf *out)
{
	const char *p = *pp, *end;

	while (lex_isblank(*p))
		p++;
	end = p + strlen(p);
	*pp = end;
	while (end > p && lex_isblank(end[-1]))
		end--;
	out->len = 0;
	while (p < end)
		p = lex_char(d, p, out);
	buf_term(out);
}

static void
lex_end(const struct desc *d, const char **pp)
{
	const char *p = *pp;

	while (lex_isblank(*p))
		p++;
	if (*p != '\0')
		fatal_at(d, d->line, "unexpected text at end of line: %s", p);
}

/* Paths and names end up in C strings, so an embedded NUL is fatal. */
static char *
tok_str(const struct desc *d, const struct buf *tok, const char *what)
{
	if (memchr(tok->data, '\0', tok->len) != NULL)
		fatal_at(d, d->line, "%s contains a NUL byte", what);
	return xstrdup((const char *)tok->data);
}

static long long
num_parse(const struct desc *d, const char *s, int base, long long min,
    long long max, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, base);
	if (*s == '\0' || *end != '\0' || lex_isblank(*s))
		fatal_at(d, d->line, "%s: not a number: %s", what, s);
	if (errno == ERANGE || v < min || v > max)
		fatal_at(d, d->line, "%s out of range: %s", what, s);
	return v;
}

static int
mode_parse(const struct desc *d, const char *s)
{
	return (int)num_parse(d, s, 8, 0, 07777, "mode");
}

static int
name_lookup(const struct desc *d, const char *s, const char *const *names,
    size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	fatal_at(d, d->line, "unknown %s: %s", what, s);
}

static struct part *
part_lookup(struct desc *d, const char *s)
{
	return &d->parts[name_lookup(d, s, part_names, PART_COUNT, "member")];
}

/* Takes ownership of path. */
static struct entry *
entry_new(struct desc *d, enum etype type, char *path)
{
	struct entry *e;

	if (d->nents == d->entcap) {
		d->entcap = d->entcap ? d->entcap * 2 : 64;
		d->ents = xreallocarray(d->ents, d->entcap, sizeof(*d->ents));
	}
	e = &d->ents[d->nents++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->path = path;
	e->owner = d->owner;
	e->mtime = d->mtime;
	e->line = d->line;
	return e;
}

static void
content_parse(struct desc *d, struct entry *e, const struct buf *arg)
{
	const char *s = (const char *)arg->data;
	const char *colon;
	char num[32];
	size_t n;

	if (arg->len >= 5 && memcmp(s, "text:", 5) == 0) {
		e->ctype = CONT_TEXT;
		buf_add(&e->text, s + 5, arg->len - 5);
		e->size = e->text.len;
	} else if (strcmp(s, "empty") == 0 && arg->len == 5) {
		e->ctype = CONT_EMPTY;
		e->size = 0;
	} else if (strncmp(s, "size:", 5) == 0 && strlen(s) == arg->len) {
		e->ctype = CONT_RANDOM;
		e->size = (size_t)num_parse(d, s + 5, 10, 0, MAX_PAYLOAD,
		    "size");
	} else if (strncmp(s, "fill:", 5) == 0) {
		s += 5;
		if ((colon = strchr(s, ':')) == NULL)
			fatal_at(d, d->line, "fill needs N:C");
		if ((n = (size_t)(colon - s)) >= sizeof(num))
			fatal_at(d, d->line, "fill count too long");
		memcpy(num, s, n);
		num[n] = '\0';
		e->ctype = CONT_FILL;
		e->size = (size_t)num_parse(d, num, 10, 0, MAX_PAYLOAD,
		    "fill count");
		/* The fill byte may itself be \x00, so go by length. */
		if ((const char *)arg->data + arg->len != colon + 2)
			fatal_at(d, d->line, "fill needs exactly one byte");
		e->fill = (unsigned char)colon[1];
	} else
		fatal_at(d, d->line,
		    "content must be text:, empty, size: or fill:, not %s", s);
}

/*
 * Parsing: each keyword gets a handler that consumes its own arguments,
 * because some of them take the rest of the line as TEXT.
 */

static void
cmd_control_field(struct desc *d, const char *p, struct buf *tok)
{
	lex_need(d, &p, tok, "field name");
	if (memchr(tok->data, '\0', tok->len) != NULL)
		fatal_at(d, d->line, "field name contains a NUL byte");
	buf_add(&d->control, tok->data, tok->len);
	buf_addc(&d->control, ':');
	lex_rest(d, &p, tok);
	if (tok->len > 0) {
		buf_addc(&d->control, ' ');
		buf_add(&d->control, tok->data, tok->len);
	}
	buf_addc(&d->control, '\n');
	d->control_set = 1;
}

static void
cmd_control_raw(struct desc *d, const char *p, struct buf *tok)
{
	lex_rest(d, &p, tok);
	buf_add(&d->control, tok->data, tok->len);
	d->control_set = 1;
}

static void
cmd_no_control_file(struct desc *d, const char *p, struct buf *tok)
{
	(void)tok;
	lex_end(d, &p);
	d->no_control = 1;
}

static void
cmd_control_file(struct desc *d, const char *p, struct buf *tok)
{
	struct entry *e;
	struct buf path = { 0 };

	lex_need(d, &p, tok, "control file name");
	buf_adds(&path, "./");
	buf_add(&path, tok->data, tok->len);
	buf_term(&path);
	if (d->nctl == d->ctlcap) {
		d->ctlcap = d->ctlcap ? d->ctlcap * 2 : 8;
		d->ctl = xreallocarray(d->ctl, d->ctlcap, sizeof(*d->ctl));
	}
	e = &d->ctl[d->nctl++];
	memset(e, 0, sizeof(*e));
	e->type = ENT_FILE;
	e->path = tok_str(d, &path, "control file name");
	buf_free(&path);
	e->owner = d->owner;
	e->mtime = d->mtime;
	e->line = d->line;
	lex_need(d, &p, tok, "mode");
	e->mode = mode_parse(d, (const char *)tok->data);
	lex_rest(d, &p, tok);
	e->ctype = CONT_TEXT;
	buf_add(&e->text, tok->data, tok->len);
	e->size = e->text.len;
}

static void
cmd_compress(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	lex_need(d, &p, tok, "compression");
	pt->comp = name_lookup(d, (const char *)tok->data, comp_names,
	    sizeof(comp_names) / sizeof(comp_names[0]), "compression");
	pt->level = -1;
	if (lex_token(d, &p, tok)) {
		if (pt->comp == COMP_NONE)
			fatal_at(d, d->line, "none takes no level");
		pt->level = (int)num_parse(d, (const char *)tok->data, 10, 0,
		    22, "compression level");
		pt->level_line = d->line;
	}
	lex_end(d, &p);
}

static void
cmd_xz_blocks(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	lex_need(d, &p, tok, "block size");
	pt->xz_block = num_parse(d, (const char *)tok->data, 10, 1,
	    MAX_PAYLOAD, "block size");
	pt->xz_line = d->line;
	pt->xz_nosizes = 0;
	if (lex_token(d, &p, tok)) {
		if (strcmp((const char *)tok->data, "nosizes") != 0)
			fatal_at(d, d->line, "expected nosizes, not %s",
			    (const char *)tok->data);
		pt->xz_nosizes = 1;
	}
	lex_end(d, &p);
}

static long long
xz_block_parse(const struct desc *d, const char *s)
{
	if (strcmp(s, "middle") == 0)
		return XZ_MIDDLE;
	if (strcmp(s, "last") == 0)
		return XZ_LAST;
	if (strcmp(s, "end") == 0)
		return XZ_END;
	return num_parse(d, s, 10, 0, MAX_PAYLOAD, "block");
}

static void
cmd_xz_split(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	lex_need(d, &p, tok, "block");
	pt->xz_split = xz_block_parse(d, (const char *)tok->data);
	pt->xz_split_line = d->line;
	lex_end(d, &p);
}

static void
cmd_xz_padding(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	lex_need(d, &p, tok, "byte count");
	pt->xz_padding = num_parse(d, (const char *)tok->data, 10, 0,
	    MAX_PAYLOAD, "byte count");
	lex_end(d, &p);
}

static void
cmd_xz_damage(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;
	struct xzdamage *x;
	const char *s;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	pt->xz_damage = xreallocarray(pt->xz_damage, pt->xz_ndamage + 1,
	    sizeof(*pt->xz_damage));
	x = &pt->xz_damage[pt->xz_ndamage++];
	memset(x, 0, sizeof(*x));
	x->line = d->line;
	lex_need(d, &p, tok, "block");
	x->block = xz_block_parse(d, (const char *)tok->data);
	lex_need(d, &p, tok, "damage");
	s = (const char *)tok->data;
	if (strcmp(s, "corrupt") == 0)
		x->how = XZ_CORRUPT;
	else if (strcmp(s, "cut") == 0)
		x->how = XZ_CUT;
	else if (strcmp(s, "usize") == 0) {
		x->how = XZ_USIZE;
		lex_need(d, &p, tok, "uncompressed size");
		x->arg = num_parse(d, (const char *)tok->data, 10, 0,
		    (long long)(LZMA_VLI_MAX / 4), "uncompressed size");
	} else if (strcmp(s, "dict") == 0) {
		x->how = XZ_DICT;
		lex_need(d, &p, tok, "dictionary property");
		x->arg = num_parse(d, (const char *)tok->data, 10, 0, 40,
		    "dictionary property");
	} else
		fatal_at(d, d->line,
		    "damage must be corrupt, cut, usize or dict, not %s", s);
	lex_end(d, &p);
}

static void
cmd_format(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	lex_need(d, &p, tok, "tar format");
	pt->fmt = name_lookup(d, (const char *)tok->data, fmt_names,
	    sizeof(fmt_names) / sizeof(fmt_names[0]), "tar format");
	lex_end(d, &p);
}

static void
cmd_debian_binary(struct desc *d, const char *p, struct buf *tok)
{
	lex_rest(d, &p, tok);
	d->debbin.len = 0;
	buf_add(&d->debbin, tok->data, tok->len);
}

static void
cmd_member_order(struct desc *d, const char *p, struct buf *tok)
{
	struct member *m;
	const char *s;

	free(d->order);
	d->order = NULL;
	d->norder = 0;
	while (lex_token(d, &p, tok)) {
		d->order = xreallocarray(d->order, d->norder + 1,
		    sizeof(*d->order));
		m = &d->order[d->norder++];
		memset(m, 0, sizeof(*m));
		s = (const char *)tok->data;
		if (strcmp(s, "debian-binary") == 0)
			m->kind = MEM_DEBBIN;
		else if (strcmp(s, "control") == 0)
			m->kind = MEM_CONTROL;
		else if (strcmp(s, "data") == 0)
			m->kind = MEM_DATA;
		else if (strncmp(s, "extra:", 6) == 0) {
			m->kind = MEM_EXTRA;
			if (tok->len - 6 == 0 || tok->len - 6 > 16)
				fatal_at(d, d->line,
				    "ar member name must be 1 to 16 bytes: %s",
				    s + 6);
			if (memchr(s, '\0', tok->len) != NULL)
				fatal_at(d, d->line,
				    "member name contains a NUL byte");
			memcpy(m->name, s + 6, tok->len - 6);
		} else
			fatal_at(d, d->line, "unknown member: %s", s);
	}
}

static void
cmd_timestamp(struct desc *d, const char *p, struct buf *tok)
{
	lex_need(d, &p, tok, "timestamp");
	d->timestamp = num_parse(d, (const char *)tok->data, 10, 0,
	    MAX_OCTAL11, "timestamp");
	lex_end(d, &p);
}

static void
cmd_truncate(struct desc *d, const char *p, struct buf *tok)
{
	lex_need(d, &p, tok, "byte count");
	d->truncate = num_parse(d, (const char *)tok->data, 10, 0,
	    LLONG_MAX, "byte count");
	d->truncate_line = d->line;
	lex_end(d, &p);
}

static void
cmd_append_garbage(struct desc *d, const char *p, struct buf *tok)
{
	lex_need(d, &p, tok, "byte count");
	d->garbage = num_parse(d, (const char *)tok->data, 10, 0,
	    MAX_PAYLOAD, "byte count");
	lex_end(d, &p);
}

static void
cmd_corrupt_member(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	lex_need(d, &p, tok, "offset");
	pt->corrupt = 1;
	pt->corrupt_line = d->line;
	pt->corrupt_mid = strcmp((const char *)tok->data, "middle") == 0;
	if (!pt->corrupt_mid)
		pt->corrupt_off = num_parse(d, (const char *)tok->data, 10,
		    -MAX_PAYLOAD, MAX_PAYLOAD, "offset");
	lex_end(d, &p);
}

static void
cmd_ar_size_lie(struct desc *d, const char *p, struct buf *tok)
{
	struct part *pt;

	lex_need(d, &p, tok, "member");
	pt = part_lookup(d, (const char *)tok->data);
	lex_need(d, &p, tok, "delta");
	pt->size_lie = num_parse(d, (const char *)tok->data, 10,
	    -MAX_PAYLOAD, MAX_PAYLOAD, "delta");
	pt->size_lie_line = d->line;
	lex_end(d, &p);
}

static void
cmd_tar_size_lie(struct desc *d, const char *p, struct buf *tok)
{
	struct lie *l;

	if (d->nlies == d->liecap) {
		d->liecap = d->liecap ? d->liecap * 2 : 4;
		d->lies = xreallocarray(d->lies, d->liecap, sizeof(*d->lies));
	}
	l = &d->lies[d->nlies++];
	memset(l, 0, sizeof(*l));
	l->line = d->line;
	lex_need(d, &p, tok, "path");
	l->path = tok_str(d, tok, "path");
	lex_need(d, &p, tok, "delta");
	l->delta = num_parse(d, (const char *)tok->data, 10, -MAX_OCTAL11,
	    MAX_OCTAL11, "delta");
	lex_end(d, &p);
}

static const char *
owner_name(struct desc *d, const struct buf *tok, const char *what)
{
	if (d->nnames == d->namecap) {
		d->namecap = d->namecap ? d->namecap * 2 : 8;
		d->names = xreallocarray(d->names, d->namecap,
		    sizeof(*d->names));
	}
	return d->names[d->nnames++] = tok_str(d, tok, what);
}

static void
cmd_owner(struct desc *d, const char *p, struct buf *tok)
{
	lex_need(d, &p, tok, "uid");
	d->owner.uid = num_parse(d, (const char *)tok->data, 10, 0,
	    UINT32_MAX, "uid");
	lex_need(d, &p, tok, "gid");
	d->owner.gid = num_parse(d, (const char *)tok->data, 10, 0,
	    UINT32_MAX, "gid");
	/* Entries keep pointers to these; desc_free() releases them. */
	lex_need(d, &p, tok, "user name");
	d->owner.uname = owner_name(d, tok, "user name");
	lex_need(d, &p, tok, "group name");
	d->owner.gname = owner_name(d, tok, "group name");
	lex_end(d, &p);
}

static void
cmd_mtime(struct desc *d, const char *p, struct buf *tok)
{
	lex_need(d, &p, tok, "mtime");
	d->mtime = num_parse(d, (const char *)tok->data, 10, 0, MAX_OCTAL11,
	    "mtime");
	lex_end(d, &p);
}

static void
cmd_dir(struct desc *d, const char *p, struct buf *tok)
{
	struct entry *e;

	lex_need(d, &p, tok, "path");
	e = entry_new(d, ENT_DIR, tok_str(d, tok, "path"));
	lex_need(d, &p, tok, "mode");
	e->mode = mode_parse(d, (const char *)tok->data);
	lex_end(d, &p);
}

static void
cmd_file(struct desc *d, const char *p, struct buf *tok)
{
	struct entry *e;

	lex_need(d, &p, tok, "path");
	e = entry_new(d, ENT_FILE, tok_str(d, tok, "path"));
	lex_need(d, &p, tok, "mode");
	e->mode = mode_parse(d, (const char *)tok->data);
	lex_rest(d, &p, tok);
	if (tok->len == 0)
		fatal_at(d, d->line, "missing content");
	content_parse(d, e, tok);
}

static void
cmd_hardlink(struct desc *d, const char *p, struct buf *tok)
{
	struct entry *e;
	size_t i;

	lex_need(d, &p, tok, "path");
	e = entry_new(d, ENT_HARDLINK, tok_str(d, tok, "path"));
	lex_need(d, &p, tok, "target");
	e->target = tok_str(d, tok, "target");
	e->mode = 0644;
	for (i = d->nents - 1; i-- > 0;)
		if (strcmp(d->ents[i].path, e->target) == 0) {
			e->mode = d->ents[i].mode;
			break;
		}
	lex_end(d, &p);
}

static void
cmd_symlink(struct desc *d, const char *p, struct buf *tok)
{
	struct entry *e;

	lex_need(d, &p, tok, "path");
	e = entry_new(d, ENT_SYMLINK, tok_str(d, tok, "path"));
	lex_need(d, &p, tok, "target");
	e->target = tok_str(d, tok, "target");
	e->mode = 0777;
	lex_end(d, &p);
}

static void
dev_parse(struct desc *d, const char *p, struct buf *tok, enum etype type)
{
	struct entry *e;

	lex_need(d, &p, tok, "path");
	e = entry_new(d, type, tok_str(d, tok, "path"));
	lex_need(d, &p, tok, "mode");
	e->mode = mode_parse(d, (const char *)tok->data);
	lex_need(d, &p, tok, "major");
	e->major = num_parse(d, (const char *)tok->data, 10, 0, 07777777,
	    "major");
	lex_need(d, &p, tok, "minor");
	e->minor = num_parse(d, (const char *)tok->data, 10, 0, 07777777,
	    "minor");
	lex_end(d, &p);
}

static void
cmd_chardev(struct desc *d, const char *p, struct buf *tok)
{
	dev_parse(d, p, tok, ENT_CHR);
}

static void
cmd_blockdev(struct desc *d, const char *p, struct buf *tok)
{
	dev_parse(d, p, tok, ENT_BLK);
}

static void
cmd_fifo(struct desc *d, const char *p, struct buf *tok)
{
	struct entry *e;

	lex_need(d, &p, tok, "path");
	e = entry_new(d, ENT_FIFO, tok_str(d, tok, "path"));
	lex_need(d, &p, tok, "mode");
	e->mode = mode_parse(d, (const char *)tok->data);
	lex_end(d, &p);
}

static void
cmd_gen(struct desc *d, const char *p, struct buf *tok)
{
	struct entry *e;
	long long count;

	lex_need(d, &p, tok, "count");
	count = num_parse(d, (const char *)tok->data, 10, 0, 100000000,
	    "count");
	lex_need(d, &p, tok, "prefix");
	e = entry_new(d, ENT_GEN, tok_str(d, tok, "prefix"));
	e->count = count;
	lex_need(d, &p, tok, "mode");
	e->mode = mode_parse(d, (const char *)tok->data);
	lex_need(d, &p, tok, "size");
	e->size = (size_t)num_parse(d, (const char *)tok->data, 10, 0,
	    MAX_PAYLOAD, "size");
	e->ctype = CONT_RANDOM;
	lex_end(d, &p);
}

struct command {
	const char	*name;
	void		(*fn)(struct desc *, const char *, struct buf *);
};

static const struct command commands[] = {
	{ "control-field",	cmd_control_field },
	{ "control-raw",	cmd_control_raw },
	{ "no-control-file",	cmd_no_control_file },
	{ "control-file",	cmd_control_file },
	{ "compress",		cmd_compress },
	{ "xz-blocks",		cmd_xz_blocks },
	{ "xz-split",		cmd_xz_split },
	{ "xz-padding",		cmd_xz_padding },
	{ "xz-damage",		cmd_xz_damage },
	{ "format",		cmd_format },
	{ "debian-binary",	cmd_debian_binary },
	{ "member-order",	cmd_member_order },
	{ "timestamp",		cmd_timestamp },
	{ "truncate",		cmd_truncate },
	{ "append-garbage",	cmd_append_garbage },
	{ "corrupt-member",	cmd_corrupt_member },
	{ "ar-size-lie",	cmd_ar_size_lie },
	{ "tar-size-lie",	cmd_tar_size_lie },
	{ "owner",		cmd_owner },
	{ "mtime",		cmd_mtime },
	{ "dir",		cmd_dir },
	{ "file",		cmd_file },
	{ "hardlink",		cmd_hardlink },
	{ "symlink",		cmd_symlink },
	{ "chardev",		cmd_chardev },
	{ "blockdev",		cmd_blockdev },
	{ "fifo",		cmd_fifo },
	{ "gen",		cmd_gen },
};

static void
desc_init(struct desc *d, const char *file)
{
	int i;

	memset(d, 0, sizeof(*d));
	d->file = file;
	d->timestamp = DEFAULT_TIME;
	d->mtime = DEFAULT_TIME;
	d->owner.uname = "root";
	d->owner.gname = "root";
	buf_adds(&d->debbin, "2.0\n");
	for (i = 0; i < PART_COUNT; i++) {
		d->parts[i].comp = COMP_XZ;
		d->parts[i].level = -1;
		d->parts[i].fmt = TAR_GNU;
	}
	d->order = xreallocarray(NULL, 3, sizeof(*d->order));
	memset(d->order, 0, 3 * sizeof(*d->order));
	d->order[0].kind = MEM_DEBBIN;
	d->order[1].kind = MEM_CONTROL;
	d->order[2].kind = MEM_DATA;
	d->norder = 3;
}

/* Owner names are not the entry's own; see struct desc. */
static void
entries_free(struct entry *ents, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ents[i].path);
		free(ents[i].target);
		buf_free(&ents[i].text);
	}
	free(ents);
}

/* Only so that leak checkers see a clean exit; d is left zeroed. */
static void
desc_free(struct desc *d)
{
	size_t i;
	int id;

	entries_free(d->ctl, d->nctl);
	entries_free(d->ents, d->nents);
	for (i = 0; i < d->nlies; i++)
		free(d->lies[i].path);
	free(d->lies);
	for (i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->order);
	for (id = 0; id < PART_COUNT; id++) {
		buf_free(&d->parts[id].payload);
		free(d->parts[id].xz_damage);
	}
	buf_free(&d->control);
	buf_free(&d->debbin);
	memset(d, 0, sizeof(*d));
}

static void
desc_line(struct desc *d, const char *line, struct buf *tok)
{
	const char *p = line;
	size_t i;

	while (lex_isblank(*p))
		p++;
	if (*p == '\0' || *p == '#')
		return;
	/* Keywords are plain words; lex them like any token anyway. */
	lex_token(d, &p, tok);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp((const char *)tok->data, commands[i].name) == 0) {
			commands[i].fn(d, p, tok);
			return;
		}
	fatal_at(d, d->line, "unknown keyword: %s", (const char *)tok->data);
}

static void
desc_read(struct desc *d, FILE *fp)
{
	struct buf tok = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, fp)) != -1) {
		d->line++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (strlen(line) != (size_t)n)
			fatal_at(d, d->line, "NUL byte in description");
		desc_line(d, line, &tok);
	}
	if (ferror(fp))
		fatal("%s: %s", d->file, strerror(errno));
	free(line);
	buf_free(&tok);
	if (!d->control_set)
		buf_adds(&d->control, default_control);
}

static la_ssize_t
sink_write(struct archive *a, void *cookie, const void *p, size_t n)
{
	(void)a;
	buf_add(cookie, p, n);
	return (la_ssize_t)n;
}

static struct archive *
la_open(void)
{
	struct archive *a;

	if ((a = archive_write_new()) == NULL)
		fatal("out of memory");
	return a;
}

/*
 * Everything goes through memory unblocked (bytes_per_block 0): the tar
 * then has no 10240-byte tail padding, every header lands in the buffer
 * as soon as archive_write_header() returns, which is what makes
 * tar-size-lie patchable, and compressed streams carry no trailing
 * zeros that a strict decompressor would reject.
 */
static void
la_start(struct archive *a, struct buf *out)
{
	if (archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK ||
	    archive_write_open2(a, out, NULL, sink_write, NULL, NULL) !=
	    ARCHIVE_OK)
		fatal("libarchive: %s", archive_error_string(a));
}

static void
la_finish(struct archive *a)
{
	if (archive_write_close(a) != ARCHIVE_OK)
		fatal("libarchive: %s", archive_error_string(a));
	archive_write_free(a);
}

static void
la_write(const struct desc *d, int line, struct archive *a, const void *p,
    size_t n)
{
	const unsigned char *cp = p;
	la_ssize_t r;

	while (n > 0) {
		if ((r = archive_write_data(a, cp, n)) <= 0)
			fatal_at(d, line, "libarchive: %s",
			    r < 0 ? archive_error_string(a) : "short write");
		cp += r;
		n -= (size_t)r;
	}
}

static void
content_write(const struct desc *d, const struct entry *e, const char *path,
    struct archive *a)
{
	static unsigned char chunk[65536];
	uint64_t state, v = 0;
	size_t left, n, i;

	switch (e->ctype) {
	case CONT_EMPTY:
		return;
	case CONT_TEXT:
		la_write(d, e->line, a, e->text.data, e->text.len);
		return;
	case CONT_FILL:
		memset(chunk, e->fill, sizeof(chunk));
		for (left = e->size; left > 0; left -= n) {
			n = left < sizeof(chunk) ? left : sizeof(chunk);
			la_write(d, e->line, a, chunk, n);
		}
		return;
	case CONT_RANDOM:
		state = rng_seed(path);
		for (left = e->size; left > 0; left -= n) {
			n = left < sizeof(chunk) ? left : sizeof(chunk);
			/* Byte by byte, so content is endian-neutral. */
			for (i = 0; i < n; i++) {
				if (i % 8 == 0)
					v = rng_next(&state);
				chunk[i] = (unsigned char)v;
				v >>= 8;
			}
			la_write(d, e->line, a, chunk, n);
		}
		return;
	}
}

static void
tar_patch_size(const struct desc *d, const struct lie *l, unsigned char *h,
    size_t size)
{
	char field[13];
	unsigned int sum;
	long long claimed;
	int i;

	claimed = (long long)size + l->delta;
	if (claimed < 0 || claimed > MAX_OCTAL11)
		fatal_at(d, l->line, "claimed size %lld does not fit", claimed);
	if (snprintf(field, sizeof(field), "%011llo", claimed) != 11)
		fatal_at(d, l->line, "claimed size %lld does not fit", claimed);
	memcpy(h + 124, field, 12);
	memset(h + 148, ' ', 8);
	for (sum = 0, i = 0; i < 512; i++)
		sum += h[i];
	if (snprintf(field, sizeof(field), "%06o", sum) != 6)
		fatal("tar checksum overflow");
	memcpy(h + 148, field, 7);
}

static void
tar_put(struct desc *d, struct archive *a, struct archive_entry *ae,
    const struct entry *e, const char *path, struct buf *out, int isdata)
{
	size_t i;
	int r;

	archive_entry_clear(ae);
	archive_entry_copy_pathname(ae, path);
	archive_entry_set_uid(ae, e->owner.uid);
	archive_entry_set_gid(ae, e->owner.gid);
	archive_entry_copy_uname(ae, e->owner.uname);
	archive_entry_copy_gname(ae, e->owner.gname);
	archive_entry_set_mtime(ae, e->mtime, 0);
	archive_entry_set_perm(ae, e->mode);
	switch (e->type) {
	case ENT_DIR:
		archive_entry_set_filetype(ae, AE_IFDIR);
		break;
	case ENT_FILE:
	case ENT_GEN:
		archive_entry_set_filetype(ae, AE_IFREG);
		archive_entry_set_size(ae, e->size);
		break;
	case ENT_HARDLINK:
		archive_entry_set_filetype(ae, AE_IFREG);
		archive_entry_copy_hardlink(ae, e->target);
		break;
	case ENT_SYMLINK:
		archive_entry_set_filetype(ae, AE_IFLNK);
		archive_entry_copy_symlink(ae, e->target);
		break;
	case ENT_CHR:
	case ENT_BLK:
		archive_entry_set_filetype(ae,
		    e->type == ENT_CHR ? AE_IFCHR : AE_IFBLK);
		archive_entry_set_rdevmajor(ae, e->major);
		archive_entry_set_rdevminor(ae, e->minor);
		break;
	case ENT_FIFO:
		archive_entry_set_filetype(ae, AE_IFIFO);
		break;
	}
	/* A warning (e.g. pax falling back to hdrcharset=BINARY) is fine. */
	if ((r = archive_write_header(a, ae)) < ARCHIVE_WARN)
		fatal_at(d, e->line, "%s: libarchive: %s", path,
		    archive_error_string(a));
	if (isdata)
		for (i = 0; i < d->nlies; i++)
			if (strcmp(d->lies[i].path, path) == 0) {
				tar_patch_size(d, &d->lies[i],
				    out->data + out->len - 512,
				    (size_t)archive_entry_size(ae));
				d->lies[i].used = 1;
			}
	if (e->type == ENT_FILE || e->type == ENT_GEN)
		content_write(d, e, path, a);
}

static void
tar_build(struct desc *d, enum part_id id, const struct entry *ents,
    size_t n, struct buf *out)
{
	struct archive *a;
	struct archive_entry *ae;
	struct buf name = { 0 };
	char num[32];
	long long k;
	size_t i;
	int r;

	a = la_open();
	switch (d->parts[id].fmt) {
	case TAR_GNU:
		r = archive_write_set_format_gnutar(a);
		break;
	case TAR_PAX:
		r = archive_write_set_format_pax_restricted(a);
		break;
	default:
		r = archive_write_set_format_ustar(a);
		break;
	}
	if (r != ARCHIVE_OK)
		fatal("libarchive: %s", archive_error_string(a));
	la_start(a, out);
	if ((ae = archive_entry_new()) == NULL)
		fatal("out of memory");
	for (i = 0; i < n; i++) {
		if (ents[i].type != ENT_GEN) {
			tar_put(d, a, ae, &ents[i], ents[i].path, out,
			    id == PART_DATA);
			continue;
		}
		for (k = 0; k < ents[i].count; k++) {
			name.len = 0;
			buf_adds(&name, ents[i].path);
			snprintf(num, sizeof(num), "%05lld", k);
			buf_adds(&name, num);
			buf_term(&name);
			tar_put(d, a, ae, &ents[i], (const char *)name.data,
			    out, id == PART_DATA);
		}
	}
	archive_entry_free(ae);
	buf_free(&name);
	la_finish(a);
}

/* XXH64 with seed 0, the content checksum of a zstd frame. */
#define XXH_P1	0x9e3779b185ebca87ULL
#define XXH_P2	0xc2b2ae3d27d4eb4fULL
#define XXH_P3	0x165667b19e3779f9ULL
#define XXH_P4	0x85ebca77c2b2ae63ULL
#define XXH_P5	0x27d4eb2f165667c5ULL

static uint64_t
xxh_rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static uint64_t
xxh_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

static uint64_t
xxh_round(uint64_t acc, uint64_t input)
{
	return xxh_rotl(acc + input * XXH_P2, 31) * XXH_P1;
}

static uint64_t
xxh_merge(uint64_t h, uint64_t v)
{
	return (h ^ xxh_round(0, v)) * XXH_P1 + XXH_P4;
}

static uint64_t
xxh64(const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	uint64_t v[4], h;
	int i;

	if (len >= 32) {
		v[0] = XXH_P1 + XXH_P2;
		v[1] = XXH_P2;
		v[2] = 0;
		v[3] = -XXH_P1;
		for (; end - p >= 32; p += 32)
			for (i = 0; i < 4; i++)
				v[i] = xxh_round(v[i], xxh_le(p + 8 * i, 8));
		h = xxh_rotl(v[0], 1) + xxh_rotl(v[1], 7) +
		    xxh_rotl(v[2], 12) + xxh_rotl(v[3], 18);
		for (i = 0; i < 4; i++)
			h = xxh_merge(h, v[i]);
	} else
		h = XXH_P5;
	h += len;
	for (; end - p >= 8; p += 8)
		h = xxh_rotl(h ^ xxh_round(0, xxh_le(p, 8)), 27) * XXH_P1 +
		    XXH_P4;
	if (end - p >= 4) {
		h = xxh_rotl(h ^ xxh_le(p, 4) * XXH_P1, 23) * XXH_P2 + XXH_P3;
		p += 4;
	}
	for (; p < end; p++)
		h = xxh_rotl(h ^ *p * XXH_P5, 11) * XXH_P1;
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	return h ^ h >> 32;
}

/*
 * libarchive writes zstd frames without the content checksum that
 * dpkg-deb (and the zstd tool) put in, and without it a flipped byte in
 * a raw block decodes silently.  Walk the one frame libarchive wrote
 * (RFC 8878, section 3.1.1), set its Content_Checksum_flag and append
 * the low 32 bits of XXH64 of CONTENT.
 */
static void
zst_add_checksum(struct buf *z, size_t start, const struct buf *content)
{
	static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const size_t dictlen[4] = { 0, 1, 2, 4 };
	static const size_t fcslen[4] = { 0, 2, 4, 8 };
	unsigned char *f = z->data + start, fhd, sum[4];
	size_t len = z->len - start, off, bsize;
	uint64_t h;
	uint32_t bh;
	int i;

	if (len < 5 || memcmp(f, magic, 4) != 0)
		fatal("libarchive wrote no zstd frame");
	fhd = f[4];
	if (fhd & 0x04)
		return;
	/* Window_Descriptor unless Single_Segment; then Dictionary_ID, FCS. */
	off = (fhd & 0x20 ? 5 : 6) + dictlen[fhd & 3];
	off += (fhd >> 6) == 0 && (fhd & 0x20) ? 1 : fcslen[fhd >> 6];
	for (;;) {
		if (off > len || len - off < 3)
			fatal("zstd frame ends inside a block header");
		bh = (uint32_t)xxh_le(f + off, 3);
		bsize = ((bh >> 1) & 3) == 1 ? 1 : bh >> 3;
		if (((bh >> 1) & 3) == 3 || bsize > len - off - 3)
			fatal("zstd frame has a bad block");
		off += 3 + bsize;
		if (bh & 1)
			break;
	}
	if (off != len)
		fatal("libarchive wrote more than one zstd frame");
	f[4] |= 0x04;
	h = xxh64(content->data, content->len);
	for (i = 0; i < 4; i++)
		sum[i] = (unsigned char)(h >> 8 * i);
	buf_add(z, sum, 4);
}

/*
 * The raw format passes one stream of bytes through the filter chain,
 * which lets the already built (and possibly patched) tar be compressed
 * with exactly the code libarchive uses for its own archives.
 */
static void
comp_apply(const struct desc *d, enum part_id id, const struct buf *in,
    struct buf *out)
{
	enum comp comp = d->parts[id].comp;
	char level[16];
	struct archive *a;
	struct archive_entry *ae;
	const unsigned char *p;
	size_t left, start = out->len;
	la_ssize_t r;
	int rc;

	if (comp == COMP_NONE) {
		buf_add(out, in->data, in->len);
		return;
	}
	a = la_open();
	switch (comp) {
	case COMP_XZ:
		rc = archive_write_add_filter_xz(a);
		break;
	case COMP_GZ:
		rc = archive_write_add_filter_gzip(a);
		break;
	case COMP_ZST:
		rc = archive_write_add_filter_zstd(a);
		break;
	case COMP_BZ2:
		rc = archive_write_add_filter_bzip2(a);
		break;
	default:
		rc = archive_write_add_filter_lzma(a);
		break;
	}
	/* gzip stores a timestamp by default, which breaks determinism. */
	if (rc == ARCHIVE_OK && comp == COMP_GZ)
		rc = archive_write_set_filter_option(a, "gzip", "timestamp",
		    NULL);
	if (rc == ARCHIVE_OK && d->parts[id].level >= 0) {
		snprintf(level, sizeof(level), "%d", d->parts[id].level);
		if (archive_write_set_filter_option(a, NULL,
		    "compression-level", level) != ARCHIVE_OK)
			fatal_at(d, d->parts[id].level_line,
			    "level %d not valid for %s", d->parts[id].level,
			    comp_names[comp]);
	}
	if (rc != ARCHIVE_OK ||
	    archive_write_set_format_raw(a) != ARCHIVE_OK)
		fatal("libarchive: %s", archive_error_string(a));
	la_start(a, out);
	if ((ae = archive_entry_new()) == NULL)
		fatal("out of memory");
	archive_entry_set_pathname(ae, "payload");
	archive_entry_set_filetype(ae, AE_IFREG);
	archive_entry_set_perm(ae, 0644);
	archive_entry_set_size(ae, in->len);
	if (archive_write_header(a, ae) != ARCHIVE_OK)
		fatal("libarchive: %s", archive_error_string(a));
	for (p = in->data, left = in->len; left > 0; p += r,
	    left -= (size_t)r)
		if ((r = archive_write_data(a, p, left)) <= 0)
			fatal("libarchive: %s",
			    r < 0 ? archive_error_string(a) : "short write");
	archive_entry_free(ae);
	la_finish(a);
	if (comp == COMP_ZST)
		zst_add_checksum(out, start, in);
}

/* Where a block's compressed data landed in the member. */
struct xzplace {
	size_t		 data;
	size_t		 clen;
};

/* A block named in the description, as a number below LIMIT. */
static size_t
xz_resolve(const struct desc *d, int line, long long block, size_t n,
    size_t limit)
{
	if (n == 0)
		fatal_at(d, line, "the member has no xz block");
	if (block == XZ_MIDDLE)
		block = (long long)(n / 2);
	else if (block == XZ_LAST)
		block = (long long)n - 1;
	else if (block == XZ_END)
		block = (long long)n;
	if ((unsigned long long)block >= limit)
		fatal_at(d, line, "no block %lld: the member has %zu", block,
		    n);
	return (size_t)block;
}

static void
xz_stream_start(struct buf *out, lzma_index **idx)
{
	lzma_stream_flags fl = { .version = 0, .check = LZMA_CHECK_CRC64 };
	unsigned char h[LZMA_STREAM_HEADER_SIZE];

	if (lzma_stream_header_encode(&fl, h) != LZMA_OK)
		fatal("liblzma: cannot encode a stream header");
	buf_add(out, h, sizeof(h));
	if ((*idx = lzma_index_init(NULL)) == NULL)
		fatal("out of memory");
}

/* The index and footer of the stream IDX; frees IDX. */
static void
xz_stream_end(struct buf *out, lzma_index *idx)
{
	lzma_stream_flags fl = { .version = 0, .check = LZMA_CHECK_CRC64 };
	unsigned char f[LZMA_STREAM_HEADER_SIZE];
	size_t pos = 0, n;

	n = (size_t)lzma_index_size(idx);
	buf_reserve(out, n);
	if (lzma_index_buffer_encode(idx, out->data + out->len, &pos, n) !=
	    LZMA_OK)
		fatal("liblzma: cannot encode an index");
	out->len += pos;
	fl.backward_size = n;
	if (lzma_stream_footer_encode(&fl, f) != LZMA_OK)
		fatal("liblzma: cannot encode a stream footer");
	buf_add(out, f, sizeof(f));
	lzma_index_end(idx, NULL);
}

/*
 * Block BI holding N bytes from P: the data is encoded first, with a
 * streaming block encoder that never looks at the sizes, so that the
 * header can then say whatever the description wants: the true sizes,
 * none, or a lie.  AT holds the block each damage of PT applies to.
 */
static void
xz_block_put(const struct desc *d, const struct part *pt,
    const lzma_filter *filters, const unsigned char *p, size_t n, size_t bi,
    const size_t *at, lzma_index *idx, struct buf *out, struct xzplace *pl)
{
	unsigned char hdr[LZMA_BLOCK_HEADER_SIZE_MAX];
	lzma_options_lzma hopt;
	lzma_filter hf[2];
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_block b, h;
	lzma_vli usize;
	lzma_ret r;
	size_t bound, i;
	long long prop;

	memset(&b, 0, sizeof(b));
	b.version = 0;
	b.check = LZMA_CHECK_CRC64;
	b.filters = (lzma_filter *)filters;
	b.compressed_size = LZMA_VLI_UNKNOWN;
	b.uncompressed_size = LZMA_VLI_UNKNOWN;
	if (lzma_block_encoder(&s, &b) != LZMA_OK)
		fatal("liblzma: cannot start a block encoder");
	bound = lzma_block_buffer_bound(n);
	buf_reserve(out, LZMA_BLOCK_HEADER_SIZE_MAX + bound);
	/* The header goes in front once its size is known. */
	s.next_in = p;
	s.avail_in = n;
	s.next_out = out->data + out->len + LZMA_BLOCK_HEADER_SIZE_MAX;
	s.avail_out = bound;
	if ((r = lzma_code(&s, LZMA_FINISH)) != LZMA_STREAM_END)
		fatal("liblzma: block encoder failed (%d)", (int)r);
	lzma_end(&s);

	h = b;
	hopt = *(const lzma_options_lzma *)filters[0].options;
	hf[0] = filters[0];
	hf[0].options = &hopt;
	hf[1] = filters[1];
	h.filters = hf;
	usize = b.uncompressed_size;
	if (pt->xz_nosizes) {
		h.compressed_size = LZMA_VLI_UNKNOWN;
		h.uncompressed_size = LZMA_VLI_UNKNOWN;
	}
	for (i = 0; i < pt->xz_ndamage; i++) {
		if (at[i] != bi)
			continue;
		if (pt->xz_damage[i].how == XZ_USIZE)
			h.uncompressed_size = usize =
			    (lzma_vli)pt->xz_damage[i].arg;
		if (pt->xz_damage[i].how == XZ_DICT) {
			prop = pt->xz_damage[i].arg;
			hopt.dict_size = prop == 40 ? UINT32_MAX :
			    (uint32_t)(2 | (prop & 1)) << (prop / 2 + 11);
		}
	}
	if (lzma_block_header_size(&h) != LZMA_OK ||
	    lzma_block_header_encode(&h, hdr) != LZMA_OK)
		fatal_at(d, pt->xz_line, "liblzma: cannot encode block %zu's"
		    " header", bi);
	memmove(out->data + out->len + h.header_size,
	    out->data + out->len + LZMA_BLOCK_HEADER_SIZE_MAX,
	    bound - s.avail_out);
	memcpy(out->data + out->len, hdr, h.header_size);
	out->len += h.header_size;
	pl->data = out->len;
	pl->clen = (size_t)b.compressed_size;
	out->len += bound - s.avail_out;
	if (lzma_index_append(idx, NULL, h.header_size + b.compressed_size +
	    lzma_check_size(b.check), usize) != LZMA_OK)
		fatal_at(d, pt->xz_line, "liblzma: cannot index block %zu",
		    bi);
}

/*
 * The member as liblzma's blocks (xz-blocks), then the damage the
 * description asks for, which needs to know where each block landed.
 */
static void
xz_blocks_apply(const struct desc *d, enum part_id id, const struct buf *in,
    struct buf *out)
{
	const struct part *pt = &d->parts[id];
	const struct xzdamage *x;
	lzma_options_lzma opt;
	lzma_filter filters[2];
	lzma_index *idx;
	struct xzplace *pl;
	size_t bs = (size_t)pt->xz_block, n, i, off, len, split, cut, *at;
	long long pad;

	if (lzma_lzma_preset(&opt, pt->level < 0 ? 6 : (uint32_t)pt->level))
		fatal_at(d, pt->level_line, "level %d not valid for xz",
		    pt->level);
	filters[0].id = LZMA_FILTER_LZMA2;
	filters[0].options = &opt;
	filters[1].id = LZMA_VLI_UNKNOWN;
	filters[1].options = NULL;
	n = in->len / bs + (in->len % bs != 0);
	at = xreallocarray(NULL, pt->xz_ndamage + 1, sizeof(*at));
	for (i = 0; i < pt->xz_ndamage; i++)
		at[i] = xz_resolve(d, pt->xz_damage[i].line,
		    pt->xz_damage[i].block, n, n);
	split = SIZE_MAX;
	if (pt->xz_split_line)
		split = xz_resolve(d, pt->xz_split_line, pt->xz_split, n,
		    n + 1);
	pl = xreallocarray(NULL, n + 1, sizeof(*pl));

	xz_stream_start(out, &idx);
	for (i = 0, off = 0; i < n; i++, off += len) {
		if (i == split) {
			xz_stream_end(out, idx);
			xz_stream_start(out, &idx);
		}
		len = in->len - off < bs ? in->len - off : bs;
		xz_block_put(d, pt, filters, in->data + off, len, i, at, idx,
		    out, &pl[i]);
	}
	if (split == n) {
		xz_stream_end(out, idx);
		xz_stream_start(out, &idx);
	}
	xz_stream_end(out, idx);
	for (pad = pt->xz_padding; pad > 0; pad--)
		buf_addc(out, 0);

	cut = SIZE_MAX;
	for (i = 0; i < pt->xz_ndamage; i++) {
		x = &pt->xz_damage[i];
		if (x->how == XZ_CORRUPT)
			out->data[pl[at[i]].data + pl[at[i]].clen / 2] ^= 0xff;
		else if (x->how == XZ_CUT &&
		    pl[at[i]].data + pl[at[i]].clen / 2 < cut)
			cut = pl[at[i]].data + pl[at[i]].clen / 2;
	}
	if (cut != SIZE_MAX)
		out->len = cut;
	free(pl);
	free(at);
}

static void
part_build(struct desc *d, enum part_id id)
{
	struct part *pt = &d->parts[id];
	struct entry *ents;
	struct buf tar = { 0 };
	size_t n, i;
	long long off;

	if (pt->built)
		return;
	if (id == PART_DATA) {
		tar_build(d, id, d->ents, d->nents, &tar);
		for (i = 0; i < d->nlies; i++)
			if (!d->lies[i].used)
				fatal_at(d, d->lies[i].line,
				    "no data.tar entry named %s",
				    d->lies[i].path);
	} else {
		ents = xreallocarray(NULL, d->nctl + 2, sizeof(*ents));
		memset(ents, 0, 2 * sizeof(*ents));
		ents[0].type = ENT_DIR;
		ents[0].path = "./";
		ents[0].mode = 0755;
		ents[1].type = ENT_FILE;
		ents[1].path = "./control";
		ents[1].mode = 0644;
		ents[1].ctype = CONT_TEXT;
		ents[1].text = d->control;
		ents[1].size = d->control.len;
		for (i = 0; i < 2; i++) {
			ents[i].owner.uname = "root";
			ents[i].owner.gname = "root";
			ents[i].mtime = d->timestamp;
		}
		n = 1;
		if (!d->no_control)
			n = 2;
		if (d->nctl > 0)
			memcpy(ents + n, d->ctl, d->nctl * sizeof(*ents));
		tar_build(d, id, ents, n + d->nctl, &tar);
		free(ents);
	}
	if (pt->xz_block > 0) {
		if (pt->comp != COMP_XZ)
			fatal_at(d, pt->xz_line, "xz-blocks: %s is not xz",
			    part_names[id]);
		xz_blocks_apply(d, id, &tar, &pt->payload);
	} else if (pt->xz_split_line || pt->xz_padding || pt->xz_ndamage)
		fatal("%s: xz-split, xz-padding and xz-damage need xz-blocks",
		    part_names[id]);
	else
		comp_apply(d, id, &tar, &pt->payload);
	buf_free(&tar);

	if (pt->corrupt) {
		if (pt->corrupt_mid)
			off = (long long)(pt->payload.len / 2);
		else if (pt->corrupt_off < 0)
			off = (long long)pt->payload.len + pt->corrupt_off;
		else
			off = pt->corrupt_off;
		if (off < 0 || off >= (long long)pt->payload.len)
			fatal_at(d, pt->corrupt_line,
			    "offset outside the %zu-byte %s member",
			    pt->payload.len, part_names[id]);
		pt->payload.data[off] ^= 0xff;
	}
	pt->built = 1;
}

static void
ar_put(const struct desc *d, struct buf *deb, const char *name,
    const struct buf *payload, long long lie, int lie_line)
{
	char hdr[61];
	long long size;

	size = (long long)payload->len + lie;
	if (size < 0)
		fatal_at(d, lie_line, "%s is %zu bytes, cannot claim %lld",
		    name, payload->len, size);
	/* The same layout dpkg-deb writes; the size field is 10 digits. */
	if (snprintf(hdr, sizeof(hdr), "%-16s%-12lld%-6d%-6d%-8o%-10lld`\n",
	    name, d->timestamp, 0, 0, 0100644, size) != 60)
		fatal("%s: ar header field overflow", name);
	buf_add(deb, hdr, 60);
	buf_add(deb, payload->data, payload->len);
	if (payload->len % 2 != 0)
		buf_addc(deb, '\n');
}

static void
deb_build(struct desc *d, struct buf *deb)
{
	static const struct buf extra = { (unsigned char *)"x\n", 2, 2 };
	struct part *pt;
	char name[32];
	size_t i;
	int seen[PART_COUNT] = { 0 };
	enum part_id id;

	buf_adds(deb, "!<arch>\n");
	for (i = 0; i < d->norder; i++) {
		switch (d->order[i].kind) {
		case MEM_DEBBIN:
			ar_put(d, deb, "debian-binary", &d->debbin, 0, 0);
			break;
		case MEM_CONTROL:
		case MEM_DATA:
			id = d->order[i].kind == MEM_DATA ? PART_DATA :
			    PART_CONTROL;
			pt = &d->parts[id];
			part_build(d, id);
			snprintf(name, sizeof(name), "%s.tar%s",
			    part_names[id], comp_suffix[pt->comp]);
			ar_put(d, deb, name, &pt->payload, pt->size_lie,
			    pt->size_lie_line);
			seen[id] = 1;
			break;
		case MEM_EXTRA:
			ar_put(d, deb, d->order[i].name, &extra, 0, 0);
			break;
		}
	}
	for (id = 0; id < PART_COUNT; id++)
		if (d->parts[id].corrupt && !seen[id])
			fatal_at(d, d->parts[id].corrupt_line,
			    "corrupt-member %s, but member-order omits it",
			    part_names[id]);

	if (d->truncate > 0) {
		if ((unsigned long long)d->truncate > deb->len)
			fatal_at(d, d->truncate_line,
			    "cannot truncate %lld bytes off a %zu-byte .deb",
			    d->truncate, deb->len);
		deb->len -= (size_t)d->truncate;
	}
	for (; d->garbage > 0; d->garbage--)
		buf_addc(deb, 0xab);
}

static void
deb_write(const char *path, const struct buf *deb)
{
	FILE *fp;
	int tostdout;

	tostdout = strcmp(path, "-") == 0;
	if (tostdout)
		fp = stdout;
	else if ((fp = fopen(path, "wb")) == NULL)
		fatal("%s: %s", path, strerror(errno));
	if (fwrite(deb->data, 1, deb->len, fp) != deb->len ||
	    fflush(fp) != 0 || (!tostdout && fclose(fp) != 0)) {
		if (!tostdout)
			unlink(path);
		fatal("%s: %s", path, strerror(errno));
	}
}

static void __attribute__((noreturn))
usage(void)
{
	fputs("usage: mkdeb DESC OUT.deb\n", stderr);
	exit(2);
}

int
main(int argc, char *argv[])
{
	struct desc d;
	struct buf deb = { 0 };
	FILE *fp;

	if (argc != 3)
		usage();
	/*
	 * The pax writer converts names from the locale's charset to
	 * UTF-8; in the C locale any non-ASCII name would be downgraded
	 * to hdrcharset=BINARY, so read descriptions as UTF-8.
	 */
	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL)
		setlocale(LC_CTYPE, "");

	if (strcmp(argv[1], "-") == 0) {
		desc_init(&d, "<stdin>");
		desc_read(&d, stdin);
	} else {
		desc_init(&d, argv[1]);
		if ((fp = fopen(argv[1], "r")) == NULL)
			fatal("%s: %s", argv[1], strerror(errno));
		desc_read(&d, fp);
		fclose(fp);
	}
	deb_build(&d, &deb);
	deb_write(argv[2], &deb);
	buf_free(&deb);
	desc_free(&d);
	return 0;
}
