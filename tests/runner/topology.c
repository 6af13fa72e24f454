/*
 * topology.c - reader for mmlab topology files (see topology.h, tests/runner/README.md).
 *
 * Format: one "key = value" per line; lines whose first non-blank character
 * is '#' are comments; blank lines are ignored.  Keys:
 *   description  free text, once
 *   firmware     bios | uefi, once (default bios)
 *   qemu         whitespace-separated QEMU argument tokens (no quoting),
 *                may repeat: tokens are appended in order
 *   cmdline      kernel command-line words, may repeat, appended
 *   timeout      seconds per boot, positive integer, once (default 120)
 *   expect       pass | panic, once (default pass)
 *   expect_output  one expected line of the panic report (a substring of a
 *                log line), may repeat, in order; only with expect = panic
 *   kernel       mmlab | linux, once (default mmlab); linux needs firmware
 *                bios and expect pass
 *   base         NAME of another topology in the same folder, once: its
 *                qemu tokens (and its base's, first) come before this file's
 *
 * Invariant: on success every field is set and valid; on failure the caller
 * gets "file:line: message" and no allocation leaks.
 */
#define _GNU_SOURCE
#include "topology.h"
#include "session.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *firmware_name(enum firmware f) { return f == FIRMWARE_UEFI ? "uefi" : "bios"; }
const char *expect_name(enum expect e) { return e == EXPECT_PANIC ? "panic" : "pass"; }
const char *kernel_name(enum kernel k) { return k == KERNEL_LINUX ? "linux" : "mmlab"; }

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int append_tokens(char ***vec, size_t *n, char *value)
{
	char *save = NULL;
	for (char *tok = strtok_r(value, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char **nv = realloc(*vec, (*n + 1) * sizeof(**vec));
		if (!nv)
			return -1;
		*vec = nv;
		if (!(nv[*n] = strdup(tok)))
			return -1;
		(*n)++;
	}
	return 0;
}

int topology_vcpus(const struct topology *t)
{
	int n = 1;
	for (size_t i = 0; i + 1 < t->nqemu; i++) {
		if (strcmp(t->qemu_args[i], "-smp"))
			continue;
		/* "N[,key=value...]" or "key=value,...,cpus=N,..." */
		for (const char *v = t->qemu_args[i + 1]; *v;) {
			long k = -1;
			if (isdigit((unsigned char)*v))
				k = strtol(v, NULL, 10);
			else if (!strncmp(v, "cpus=", 5))
				k = strtol(v + 5, NULL, 10);
			if (k >= 1 && k <= 4096)
				n = (int)k;
			v += strcspn(v, ",");
			v += *v == ',';
		}
	}
	return n;
}

void topology_free(struct topology *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->path);
	free(t->description);
	free(t->base);
	for (size_t i = 0; i < t->nqemu; i++)
		free(t->qemu_args[i]);
	free(t->qemu_args);
	for (size_t i = 0; i < t->ncmdline; i++)
		free(t->cmdline[i]);
	free(t->cmdline);
	for (size_t i = 0; i < t->nexpect_output; i++)
		free(t->expect_output[i]);
	free(t->expect_output);
	free(t->iso);
	free(t->initrd);
	free(t->filter);
	if (t->session) {
		session_free(t->session);
		free(t->session);
	}
	for (size_t i = 0; i < t->nexpect_log; i++)
		free(t->expect_log[i]);
	free(t->expect_log);
	memset(t, 0, sizeof(*t));
}

void topology_free_all(struct topology *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		topology_free(&t[i]);
	free(t);
}

static char *name_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".topo") == 0)
		len -= 5;
	return strndup(base, len);
}

static int load(const char *path, struct topology *t, char *err, size_t errlen, int depth);

/* "base = NAME" (topology.h): NAME.topo beside path, its qemu tokens first. */
static int load_base(const char *path, int lineno, const char *name, struct topology *t,
		     char *err, size_t errlen, int depth)
{
	if (!*name || strchr(name, '/')) {
		snprintf(err, errlen, "%s:%d: base must be a topology name, not '%s'", path, lineno,
			 name);
		return -1;
	}
	if (depth >= TOPOLOGY_MAX_BASE_DEPTH) {
		snprintf(err, errlen, "%s:%d: base '%s': more than %d bases deep (a cycle?)", path,
			 lineno, name, TOPOLOGY_MAX_BASE_DEPTH);
		return -1;
	}
	const char *slash = strrchr(path, '/');
	char *bpath;
	if (asprintf(&bpath, "%.*s%s.topo", slash ? (int)(slash - path + 1) : 0, path, name) < 0) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	struct topology b;
	char berr[512];
	int r = load(bpath, &b, berr, sizeof(berr), depth + 1);
	free(bpath);
	if (r) {
		snprintf(err, errlen, "%s:%d: base '%s': %s", path, lineno, name, berr);
		return -1;
	}
	/* this file's tokens so far (none: base is checked to come first) go after */
	char **nv = realloc(b.qemu_args, (b.nqemu + t->nqemu + 1) * sizeof(*nv));
	if (!nv) {
		topology_free(&b);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	for (size_t i = 0; i < t->nqemu; i++)
		nv[b.nqemu + i] = t->qemu_args[i];
	free(t->qemu_args);
	t->qemu_args = nv;
	t->nqemu += b.nqemu;
	b.qemu_args = NULL;
	b.nqemu = 0;
	topology_free(&b);
	return 0;
}

int topology_load(const char *path, struct topology *t, char *err, size_t errlen)
{
	return load(path, t, err, errlen, 0);
}

static int load(const char *path, struct topology *t, char *err, size_t errlen, int depth)
{
	memset(t, 0, sizeof(*t));
	t->firmware = FIRMWARE_BIOS;
	t->timeout_s = TOPOLOGY_DEFAULT_TIMEOUT;
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	t->name = name_from_path(path);
	t->path = strdup(path);
	t->description = strdup("");
	bool seen_desc = false, seen_fw = false, seen_timeout = false, seen_expect = false;
	bool seen_kernel = false;
	bool seen_disk_format = false;
	int first_output_line = 0; /* line of the first expect_output */
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	int rc = 0;
	if (!t->name || !t->path || !t->description)
		goto oom;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
			goto fail;
		}
		*eq = '\0';
		char *key = trim(s), *value = trim(eq + 1);
		if (strcmp(key, "description") == 0) {
			if (seen_desc) {
				snprintf(err, errlen, "%s:%d: duplicate key 'description'", path, lineno);
				goto fail;
			}
			seen_desc = true;
			free(t->description);
			if (!(t->description = strdup(value)))
				goto oom;
		} else if (strcmp(key, "firmware") == 0) {
			if (seen_fw) {
				snprintf(err, errlen, "%s:%d: duplicate key 'firmware'", path, lineno);
				goto fail;
			}
			seen_fw = true;
			if (strcmp(value, "bios") == 0)
				t->firmware = FIRMWARE_BIOS;
			else if (strcmp(value, "uefi") == 0)
				t->firmware = FIRMWARE_UEFI;
			else {
				snprintf(err, errlen, "%s:%d: firmware must be 'bios' or 'uefi', not '%s'",
					 path, lineno, value);
				goto fail;
			}
		} else if (strcmp(key, "qemu") == 0 || strcmp(key, "cmdline") == 0) {
			if (!*value) {
				snprintf(err, errlen, "%s:%d: empty value for '%s'", path, lineno, key);
				goto fail;
			}
			int r = key[0] == 'q' ? append_tokens(&t->qemu_args, &t->nqemu, value)
					      : append_tokens(&t->cmdline, &t->ncmdline, value);
			if (r)
				goto oom;
		} else if (strcmp(key, "timeout") == 0) {
			if (seen_timeout) {
				snprintf(err, errlen, "%s:%d: duplicate key 'timeout'", path, lineno);
				goto fail;
			}
			seen_timeout = true;
			char *end;
			errno = 0;
			long v = strtol(value, &end, 10);
			if (!*value || *end || errno || v <= 0 || v > INT_MAX / 1000) {
				snprintf(err, errlen,
					 "%s:%d: timeout must be a positive number of seconds, not '%s'",
					 path, lineno, value);
				goto fail;
			}
			t->timeout_s = (int)v;
		} else if (strcmp(key, "expect") == 0) {
			if (seen_expect) {
				snprintf(err, errlen, "%s:%d: duplicate key 'expect'", path, lineno);
				goto fail;
			}
			seen_expect = true;
			if (strcmp(value, "pass") == 0)
				t->expect = EXPECT_PASS;
			else if (strcmp(value, "panic") == 0)
				t->expect = EXPECT_PANIC;
			else {
				snprintf(err, errlen, "%s:%d: expect must be 'pass' or 'panic', not '%s'",
					 path, lineno, value);
				goto fail;
			}
		} else if (strcmp(key, "expect_output") == 0) {
			if (!*value) {
				snprintf(err, errlen, "%s:%d: empty value for '%s'", path, lineno, key);
				goto fail;
			}
			if (!first_output_line)
				first_output_line = lineno;
			char **nv = realloc(t->expect_output,
					    (t->nexpect_output + 1) * sizeof(*t->expect_output));
			if (!nv)
				goto oom;
			t->expect_output = nv;
			if (!(nv[t->nexpect_output] = strdup(value)))
				goto oom;
			t->nexpect_output++;
		} else if (strcmp(key, "expect_log") == 0) {
			if (!*value) {
				snprintf(err, errlen, "%s:%d: empty value for '%s'", path, lineno, key);
				goto fail;
			}
			char **nv = realloc(t->expect_log, (t->nexpect_log + 1) * sizeof(*t->expect_log));
			if (!nv)
				goto oom;
			t->expect_log = nv;
			if (!(nv[t->nexpect_log] = strdup(value)))
				goto oom;
			t->nexpect_log++;
		} else if (strcmp(key, "iso") == 0) {
			if (t->iso || !*value) {
				snprintf(err, errlen, "%s:%d: duplicate or empty key 'iso'", path, lineno);
				goto fail;
			}
			if (!(t->iso = strdup(value)))
				goto oom;
		} else if (strcmp(key, "initrd") == 0 || strcmp(key, "filter") == 0) {
			char **slot = key[0] == 'i' ? &t->initrd : &t->filter;
			if (*slot || !*value) {
				snprintf(err, errlen, "%s:%d: duplicate or empty key '%s'", path, lineno, key);
				goto fail;
			}
			if (!(*slot = strdup(value)))
				goto oom;
		} else if (strcmp(key, "session") == 0) {
			if (t->session || !*value) {
				snprintf(err, errlen, "%s:%d: duplicate or empty key 'session'", path, lineno);
				goto fail;
			}
			struct session sess;
			char why[512];
			if (session_load(value, &sess, why, sizeof(why))) {
				snprintf(err, errlen, "%s:%d: session: %s", path, lineno, why);
				goto fail;
			}
			if (!(t->session = malloc(sizeof(*t->session)))) {
				session_free(&sess);
				goto oom;
			}
			*t->session = sess;
		} else if (strcmp(key, "tcg_threads") == 0) {
			if (!strcmp(value, "single"))
				t->tcg_threads = TCG_THREADS_SINGLE;
			else if (!strcmp(value, "multi"))
				t->tcg_threads = TCG_THREADS_MULTI;
			else {
				snprintf(err, errlen, "%s:%d: tcg_threads must be 'single' or 'multi', not '%s'",
					 path, lineno, value);
				goto fail;
			}
		} else if (strcmp(key, "on_request") == 0) {
			if (strcmp(value, "yes") && strcmp(value, "no")) {
				snprintf(err, errlen, "%s:%d: on_request must be 'yes' or 'no'", path, lineno);
				goto fail;
			}
			t->on_request = value[0] == 'y';
		} else if (strcmp(key, "kernel") == 0) {
			if (seen_kernel) {
				snprintf(err, errlen, "%s:%d: duplicate key 'kernel'", path, lineno);
				goto fail;
			}
			seen_kernel = true;
			if (strcmp(value, "mmlab") == 0)
				t->kernel = KERNEL_MMLAB;
			else if (strcmp(value, "linux") == 0)
				t->kernel = KERNEL_LINUX;
			else {
				snprintf(err, errlen, "%s:%d: kernel must be 'mmlab' or 'linux', not '%s'",
					 path, lineno, value);
				goto fail;
			}
		} else if (strcmp(key, "disk") == 0) {
			/* "disk = SIZE": a scratch disk of SIZE bytes (K, M or G:
			 * binary units), virtio-blk, made empty for each boot in
			 * the results directory and removed after it (qemu.c). */
			char *end;
			unsigned long long n = strtoull(value, &end, 10), unit = 1;
			if (*end == 'K')
				unit = 1ull << 10, end++;
			else if (*end == 'M')
				unit = 1ull << 20, end++;
			else if (*end == 'G')
				unit = 1ull << 30, end++;
			if (t->disk_bytes || end == value || *end || !n || n > (4ull << 30) / unit ||
			    (n * unit) % 512) {
				snprintf(err, errlen, "%s:%d: disk must be given once, as a size such as 32M "
					 "(a multiple of 512 bytes, at most 4G), not '%s'", path, lineno, value);
				goto fail;
			}
			t->disk_bytes = n * unit;
		} else if (strcmp(key, "disk-format") == 0) {
			if (seen_disk_format || (strcmp(value, "swap") && strcmp(value, "none"))) {
				snprintf(err, errlen, "%s:%d: disk-format must be given once, as 'swap' or 'none', "
					 "not '%s'", path, lineno, value);
				goto fail;
			}
			seen_disk_format = true;
			t->disk_format = strcmp(value, "swap") == 0 ? DISK_FORMAT_SWAP : DISK_FORMAT_NONE;
		} else if (strcmp(key, "base") == 0) {
			if (t->base) {
				snprintf(err, errlen, "%s:%d: duplicate key 'base'", path, lineno);
				goto fail;
			}
			if (t->nqemu) {
				snprintf(err, errlen, "%s:%d: 'base' must come before every 'qemu' line",
					 path, lineno);
				goto fail;
			}
			if (load_base(path, lineno, value, t, err, errlen, depth))
				goto fail;
			if (!(t->base = strdup(value)))
				goto oom;
		} else {
			snprintf(err, errlen,
				 "%s:%d: unknown key '%s' (expected description, firmware, qemu, cmdline, "
				 "timeout, expect, expect_output, expect_log, iso, initrd, filter, on_request, tcg_threads, kernel, base, disk, "
				 "disk-format, session)",
				 path, lineno, key);
			goto fail;
		}
	}
	if (first_output_line && t->expect != EXPECT_PANIC) {
		snprintf(err, errlen, "%s:%d: 'expect_output' is only valid with 'expect = panic'",
			 path, first_output_line);
		goto fail;
	}
	if (t->kernel == KERNEL_LINUX && (t->firmware != FIRMWARE_BIOS || t->expect != EXPECT_PASS)) {
		snprintf(err, errlen,
			 "%s: kernel = linux boots with QEMU's -kernel: it needs firmware = bios "
			 "and expect = pass",
			 path);
		goto fail;
	}
	if (t->session && t->expect != EXPECT_PASS) {
		snprintf(err, errlen, "%s: a session's machine is judged by its steps: expect = pass", path);
		goto fail;
	}
	if ((t->initrd && t->kernel != KERNEL_LINUX) || (t->iso && t->kernel == KERNEL_LINUX)) {
		snprintf(err, errlen, "%s: 'initrd' is a kernel = linux boot's, 'iso' an mmlab boot's", path);
		goto fail;
	}
	if (t->disk_format != DISK_FORMAT_NONE && !t->disk_bytes) {
		snprintf(err, errlen, "%s: 'disk-format' formats the scratch disk: it needs 'disk = SIZE'", path);
		goto fail;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto fail;
	}
	goto out;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
fail:
	rc = -1;
	topology_free(t);
out:
	free(line);
	fclose(f);
	return rc;
}

static int cmp_topo(const void *a, const void *b)
{
	return strcmp(((const struct topology *)a)->name, ((const struct topology *)b)->name);
}

int topology_load_dir(const char *dir, struct topology **out, size_t *nout, char *err,
		      size_t errlen)
{
	*out = NULL;
	*nout = 0;
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	struct topology *v = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || strcmp(e->d_name + len - 5, ".topo") != 0 || e->d_name[0] == '.')
			continue;
		struct topology *nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		v = nv;
		char *path;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		int r = topology_load(path, &v[n], err, errlen);
		free(path);
		if (r)
			goto fail;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_topo);
	*out = v;
	*nout = n;
	return 0;
fail:
	closedir(d);
	topology_free_all(v, n);
	return -1;
}
