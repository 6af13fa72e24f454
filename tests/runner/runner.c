/*
 * runner.c - mmlab-runner's commands: "test" (boots the mmlab kernel under
 * QEMU on every test topology and runs host test programs, through the job
 * loop, then writes JUnit XML / JSON reports), "run" and "print-cmd".
 * The rest of the runner: options.c (command line), qemu.c (QEMU command
 * line), jobs.c (job loop), ktap.c (KTAP parser), judge.c (boot judge),
 * kunit_tool.c (kunit_tool's output), topology.c, report.c, xalloc.c.
 *
 * Build (from the repository root):
 *   gcc -std=gnu11 -Wall -Wextra -Werror -Wmissing-prototypes -Wmissing-declarations -O2 -o build/host/mmlab-runner tests/runner/runner.c tests/runner/options.c tests/runner/qemu.c tests/runner/jobs.c tests/runner/topology.c tests/runner/report.c tests/runner/hostile.c tests/runner/session.c tests/runner/ktap.c tests/runner/judge.c tests/runner/kunit_tool.c tests/runner/xalloc.c
 *   gcc -std=gnu11 -Wall -Wextra -Werror -Wmissing-prototypes -Wmissing-declarations -O2 -fsanitize=address,undefined -o build/host/runner-selftest tests/runner/selftest.c tests/runner/ktap.c tests/runner/judge.c tests/runner/kunit_tool.c tests/runner/xalloc.c tests/runner/topology.c tests/runner/hostile.c tests/runner/qemu.c tests/runner/jobs.c tests/runner/options.c tests/runner/session.c tests/runner/session_selftest.c
 *
 * Invariants:
 *   - the verdict of every run comes from the judge alone (judge.c), and the
 *     job loop's own invariants are in jobs.c;
 *   - the last line printed by "test" is exactly "N passed, N failed, N
 *     skipped" and the exit status is 0 only if every run passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobs.h"
#include "ktap.h"
#include "options.h"
#include "qemu.h"
#include "report.h"
#include "topology.h"
#include "xalloc.h"
#include "session.h"

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, 0777);
	free(p);
	return r && errno != EEXIST ? -1 : 0;
}

static int copy_file(const char *src, const char *dst, char *err, size_t errlen)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		snprintf(err, errlen, "%s: %s", src, strerror(errno));
		return -1;
	}
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		close(in);
		return -1;
	}
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				rc = -1;
				break;
			}
			off += w;
		}
		if (rc)
			break;
	}
	if (close(out))
		rc = -1;
	close(in);
	if (rc)
		snprintf(err, errlen, "copying %s to %s: %s", src, dst, strerror(errno));
	return rc;
}

/* How long each boot took when it last ran whole (no --filter) to its
 * end: RESULTS/durations, one "name seconds" line per boot, kept across
 * runs (a run of some topologies updates only theirs). It orders the boots
 * of the next run, longest first. */
struct durations {
	struct duration {
		char *name;
		double s;
	} *v;
	size_t n;
};

static double *durations_find(struct durations *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].name, name))
			return &d->v[i].s;
	return NULL;
}

static void durations_set(struct durations *d, const char *name, double s)
{
	double *v = durations_find(d, name);
	if (!v) {
		d->v = xrealloc(d->v, (d->n + 1) * sizeof(*d->v));
		d->v[d->n].name = xstrdup(name);
		v = &d->v[d->n++].s;
	}
	*v = s;
}

/* Adds DIR/durations' lines to *d (a later line for a name wins). */
static void durations_add(struct durations *d, const char *dir)
{
	char *path = xasprintf("%s/durations", dir);
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	char name[256];
	double v;
	while (fscanf(f, "%255s %lf", name, &v) == 2)
		durations_set(d, name, v);
	fclose(f);
}

static void durations_read(struct durations *d, const char *dir)
{
	memset(d, 0, sizeof(*d));
	durations_add(d, dir);
}

/* What a fresh results folder orders by: the durations file that each
 * folder of --topologies may hold (tests/topologies/durations: one full
 * run's RESULTS/durations on this project's 2-core machines, copied by
 * hand now and then). Without it a fresh clone started its boots by
 * timeout, and the longest ones came late: uefi-ring, the longest, as
 * the 13th of 66 boots. Only the order depends on it. */
static void durations_read_reference(struct durations *d, const char *dirs)
{
	memset(d, 0, sizeof(*d));
	if (!dirs)
		return;
	char *copy = xstrdup(dirs), *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		durations_add(d, dir);
	free(copy);
}

/* Records each boot that ran whole to its end (not timed out), then
 * writes the file back; a failure to write only loses the ordering. */
static void durations_update(struct durations *d, const char *dir, const struct job *jobs,
			     size_t n, bool filtered)
{
	if (filtered)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &jobs[i];
		if (j->topo && !j->timed_out && j->end > j->start)
			durations_set(d, j->name, j->end - j->start);
	}
	char *path = xasprintf("%s/durations", dir);
	FILE *f = fopen(path, "w");
	free(path);
	if (!f)
		return;
	for (size_t i = 0; i < d->n; i++)
		fprintf(f, "%s %.1f\n", d->v[i].name, d->v[i].s);
	fclose(f);
}

static void durations_free(struct durations *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
}

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static const struct topology *find_topology(const struct topology *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

static void unknown_topology(const char *name, const struct topology *t, size_t n, const char *dir)
{
	fprintf(stderr, "%s: unknown topology '%s'; available in %s:", progname, name, dir);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", t[i].name);
	fprintf(stderr, "%s\n", n ? "" : " (none)");
	exit(EXIT_USAGE);
}

/* A kernel = linux topology boots --linux-kernel with --linux-initrd. */
static void check_linux_files(const struct opts *o, bool readable)
{
	if (!o->linux_kernel)
		usage_error("a 'kernel = linux' topology needs --linux-kernel and --linux-initrd");
	const char *files[] = {o->linux_kernel, o->linux_initrd};
	for (int i = 0; i < 2 && readable; i++)
		if (access(files[i], R_OK)) {
			fprintf(stderr, "%s: cannot read %s: %s\n", progname, files[i], strerror(errno));
			exit(EXIT_USAGE);
		}
}

/* --topologies DIR[:DIR...]: every folder's topologies, in the order the
 * folders are given (the hostile-firmware boots that tools/hostile writes
 * into the build tree come after tests/topologies); a name twice is an
 * error. */
static struct topology *load_topologies(const char *dirs, size_t *n)
{
	struct topology *all = NULL;
	size_t nall = 0;
	char *copy = xstrdup(dirs), *save = NULL;
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		struct topology *t;
		size_t nt;
		char err[1024];
		if (topology_load_dir(dir, &t, &nt, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", progname, err);
			exit(EXIT_USAGE);
		}
		for (size_t i = 0; i < nt; i++)
			if (find_topology(all, nall, t[i].name)) {
				fprintf(stderr, "%s: topology '%s' of %s is also in an earlier folder\n",
					progname, t[i].name, dir);
				exit(EXIT_USAGE);
			}
		all = xrealloc(all, (nall + nt + 1) * sizeof(*all));
		memcpy(all + nall, t, nt * sizeof(*t));
		nall += nt;
		free(t); /* its topologies now belong to all[] */
	}
	free(copy);
	*n = nall;
	return all;
}

static int cmd_test(const struct opts *o)
{
	struct topology *topos = NULL;
	size_t ntopos = 0;
	const struct topology **sel = NULL;
	size_t nsel = 0;
	if (o->topo_dir) {
		topos = load_topologies(o->topo_dir, &ntopos);
		sel = xrealloc(NULL, (ntopos + o->nnames + 1) * sizeof(*sel));
		if (o->nnames) {
			for (size_t i = 0; i < o->nnames; i++) {
				const struct topology *t = find_topology(topos, ntopos, o->names[i]);
				if (!t)
					unknown_topology(o->names[i], topos, ntopos, o->topo_dir);
				bool dup = false; /* each topology boots once */
				for (size_t k = 0; k < nsel; k++)
					dup |= sel[k] == t;
				if (!dup)
					sel[nsel++] = t;
			}
		} else {
			for (size_t i = 0; i < ntopos; i++)
				if (!topos[i].on_request &&
				    (!topos[i].session || session_matches(topos[i].session, o->filter)))
					sel[nsel++] = &topos[i];
		}
		if (!nsel && !o->nhosts)
			usage_error("no topologies in %s and no --host programs", o->topo_dir);
		bool boots_mmlab = false, boots_linux = false;
		for (size_t i = 0; i < nsel; i++) {
			boots_mmlab |= sel[i]->kernel == KERNEL_MMLAB;
			boots_linux |= sel[i]->kernel == KERNEL_LINUX;
		}
		if (boots_mmlab && access(o->iso, R_OK)) {
			fprintf(stderr, "%s: cannot read ISO %s: %s\n", progname, o->iso, strerror(errno));
			exit(EXIT_USAGE);
		}
		for (size_t i = 0; i < nsel; i++)
			for (int k = 0; k < 2; k++) {
				const char *file = k ? sel[i]->initrd : sel[i]->iso;
				if (file && access(file, R_OK)) {
					fprintf(stderr, "%s: cannot read %s %s of topology %s: %s\n", progname,
						k ? "initramfs" : "ISO", file, sel[i]->name, strerror(errno));
					exit(EXIT_USAGE);
				}
			}
		if (boots_linux)
			check_linux_files(o, true);
	}
	if (mkdir_p(o->results)) {
		fprintf(stderr, "%s: cannot create %s: %s\n", progname, o->results, strerror(errno));
		return 1;
	}

	struct durations last, ref;
	durations_read(&last, o->results);
	durations_read_reference(&ref, o->topo_dir);
	long host_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (host_cpus < 1)
		host_cpus = 1;
	size_t njobs = o->nhosts + nsel;
	struct job *jobs = xrealloc(NULL, njobs * sizeof(*jobs));
	memset(jobs, 0, njobs * sizeof(*jobs));
	for (size_t i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		j->fd[0] = j->fd[1] = -1;
		if (i < o->nhosts) {
			const char *prog = o->hosts[i];
			const char *base = strrchr(prog, '/');
			base = base ? base + 1 : prog;
			j->name = xasprintf("host-%s", base);
			for (size_t k = 0, dup = 1; k < i; k++) /* keep names (and logs) unique */
				if (!strcmp(jobs[k].name, j->name)) {
					free(j->name);
					j->name = xasprintf("host-%s-%zu", base, ++dup);
					k = (size_t)-1;
				}
			j->kind = KTAP_KIND_HOST;
			j->timeout_s = HOST_TIMEOUT_S;
			j->cpus = 1;
			sv_push(&j->argv, prog);
		} else {
			const struct topology *t = sel[i - o->nhosts];
			j->name = xstrdup(t->name);
			j->topo = t;
			j->kind = KTAP_KIND_QEMU;
			j->timeout_s = t->timeout_s;
			const double *took = durations_find(&last, j->name);
			if (!took)
				took = durations_find(&ref, j->name);
			j->est_s = took ? *took : t->timeout_s;
			/* The CPU budget of the timeout: one host thread runs
			 * every vCPU unless TCG has a thread per vCPU. */
			j->cpus = strcmp(o->accel, "tcg") || tcg_multi_threaded(o, t) ? topology_vcpus(t) : 1;
			if (j->cpus > host_cpus)
				j->cpus = host_cpus;
			if (t->firmware == FIRMWARE_UEFI)
				j->vars_path = vars_copy_path(o, t);
			build_qemu_argv(&j->argv, o, t, true, j->vars_path);
		}
		j->in_fd = -1;
		j->log_path = xasprintf("%s/%s.log", o->results, j->name);
		bool panic = j->topo && j->topo->expect == EXPECT_PANIC;
		/* a boot that must panic prints no KTAP: nothing for kunit.py */
		if (o->kunit_tool && j->kind == KTAP_KIND_QEMU && !panic)
			j->kt_path = xasprintf("%s/%s.kunit_tool.log", o->results, j->name);
		j->parser = ktap_new(j->kind, j->timeout_s);
		if (panic)
			ktap_expect_panic(j->parser, (const char *const *)j->topo->expect_output,
					  j->topo->nexpect_output);
		if (j->topo && j->topo->session)
			job_attach_session(j);
	}
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* Logs and firmware copies are prepared before anything starts. */
	int rc = 0;
	for (size_t i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		char err[1024];
		j->log = fopen(j->log_path, "we"); /* not inherited by the boots */
		if (!j->log) {
			fprintf(stderr, "%s: %s: %s\n", progname, j->log_path, strerror(errno));
			rc = 1;
		}
		if (j->log) {
			fprintf(j->log, "# mmlab-runner:");
			for (size_t k = 0; k < j->argv.n; k++) {
				fputc(' ', j->log);
				print_quoted(j->log, j->argv.v[k]);
			}
			fputc('\n', j->log);
		}
		if (j->vars_path && copy_file(ovmf_vars(), j->vars_path, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", progname, err);
			rc = 1;
		}
		if (j->topo && disk_image_create(o, j->topo, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", progname, err);
			rc = 1;
		}
	}
	if (rc) {
		durations_free(&last);
		durations_free(&ref);
		printf("0 passed, 0 failed, 0 skipped\n");
		return 1;
	}

	run_jobs(jobs, njobs, o->jobs);
	for (size_t i = 0; i < njobs; i++)
		if (jobs[i].topo)
			disk_image_remove(o, jobs[i].topo);
	if (!interrupted)
		durations_update(&last, o->results, jobs, njobs, o->filter != NULL);
	durations_free(&last);
	durations_free(&ref);

	struct run_record *recs = xrealloc(NULL, njobs * sizeof(*recs));
	int passed = 0, failed = 0, skipped = 0;
	bool all_pass = true;
	for (size_t i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		recs[i] = (struct run_record){
			.name = j->name,
			.kind = j->kind,
			.firmware = j->topo ? firmware_name(j->topo->firmware) : NULL,
			.log_path = j->log_path,
			.exit_status = j->exit_status,
			.timed_out = j->timed_out,
			.duration_s = j->end - j->start,
			.cpu_s = j->cpu_s,
			.sys_s = j->sys_s,
			.suite_seconds = j->suite_seconds,
			.nsuite_seconds = j->nsuite_start,
			.parser = j->parser,
			.verdict = j->verdict,
		};
		passed += j->verdict->passed;
		failed += j->verdict->failed;
		skipped += j->verdict->skipped;
		all_pass &= j->verdict->pass;
	}
	char err[1024];
	char *junit = xasprintf("%s/junit.xml", o->results);
	char *json = xasprintf("%s/results.json", o->results);
	if (report_write_junit(junit, recs, njobs, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		all_pass = false;
	}
	if (report_write_json(json, recs, njobs, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		all_pass = false;
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	fflush(stdout);

	for (size_t i = 0; i < njobs; i++) {
		ktap_free(jobs[i].parser);
		sv_free(&jobs[i].argv);
		free(jobs[i].name);
		free(jobs[i].log_path);
		free(jobs[i].kt_path);
		free(jobs[i].vars_path);
		free(jobs[i].lb[0].buf);
		free(jobs[i].lb[1].buf);
		free(jobs[i].suite_start);
		free(jobs[i].suite_seconds);
	}
	free(jobs);
	free(recs);
	free(junit);
	free(json);
	free(sel);
	topology_free_all(topos, ntopos);
	return all_pass && failed == 0 ? 0 : 1;
}

static int cmd_run_or_print(const struct opts *o)
{
	size_t ntopos;
	struct topology *topos = load_topologies(o->topo_dir, &ntopos);
	const struct topology *t = find_topology(topos, ntopos, o->names[0]);
	if (!t)
		unknown_topology(o->names[0], topos, ntopos, o->topo_dir);
	bool test = o->mode == MODE_PRINT && o->test_flag;
	if (t->kernel == KERNEL_LINUX)
		check_linux_files(o, o->mode == MODE_RUN);
	char *vars = t->firmware == FIRMWARE_UEFI ? vars_copy_path(o, t) : NULL;
	struct strvec av = {0};
	build_qemu_argv(&av, o, t, test, vars);

	if (o->mode == MODE_PRINT) {
		for (size_t i = 0; i < av.n; i++) {
			if (i)
				putchar(' ');
			print_quoted(stdout, av.v[i]);
		}
		putchar('\n');
		sv_free(&av);
		free(vars);
		topology_free_all(topos, ntopos);
		return 0;
	}

	char err[1024];
	if ((vars || t->disk_bytes) && mkdir_p(o->results)) {
		fprintf(stderr, "%s: cannot create %s: %s\n", progname, o->results, strerror(errno));
		return 1;
	}
	if (vars && copy_file(ovmf_vars(), vars, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		return 1;
	}
	if (disk_image_create(o, t, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", progname, err);
		return 1;
	}
	if (o->gdb)
		printf("QEMU is waiting for GDB on localhost:1234\n");
	fflush(stdout);
	/* Like system(): the terminal's ^C goes to QEMU, we report its status. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		qemu_child_setup();
		execvp(av.v[0], av.v);
		fprintf(stderr, "%s: cannot run %s: %s\n", progname, av.v[0], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("waitpid");
			return 1;
		}
	}
	int rc = 0;
	int want = t->expect == EXPECT_PANIC ? KTAP_QEMU_EXIT_PANIC : KTAP_QEMU_EXIT_PASS;
	/* Linux powered off (BusyBox's poweroff in make shell): QEMU exits 0. */
	bool linux_off = t->kernel == KERNEL_LINUX && want == KTAP_QEMU_EXIT_PASS && WIFEXITED(status) &&
			 WEXITSTATUS(status) == 0;
	if ((WIFEXITED(status) && WEXITSTATUS(status) == want) || linux_off) {
		rc = 0;
	} else {
		const char *exp = t->expect == EXPECT_PANIC ? " (expected a kernel panic, 37)" : "";
		if (WIFSIGNALED(status))
			printf("kernel exited with status signal %d%s\n", WTERMSIG(status), exp);
		else
			printf("kernel exited with status %d%s\n", WEXITSTATUS(status), exp);
		rc = 1;
	}
	disk_image_remove(o, t);
	sv_free(&av);
	free(vars);
	topology_free_all(topos, ntopos);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o;
	parse_opts(argc, argv, &o);
	kunit_tool_dir = o.kunit_tool;
	int rc = o.mode == MODE_TEST ? cmd_test(&o) : cmd_run_or_print(&o);
	free(o.names);
	free(o.hosts);
	return rc;
}
