/*
 * session.h - scripted sessions on a machine's serial port (session.c):
 * a script (tests/sessions/NAME.session) sends keystrokes to the guest and
 * waits for text in what it prints; each step is a KTAP case of the
 * script's suite, so a session is judged like any boot (docs/shell.md).
 *
 * The script, one directive a line ('#' starts a comment line):
 *
 *   suite NAME              the KTAP suite (default: the file's name)
 *   timeout SECONDS         the default bound of a wait (default 60)
 *   skip_if "TEXT" REASON   if the guest prints TEXT before the session
 *                           is over, the steps not done yet are skipped
 *                           with REASON and the machine is stopped
 *   step NAME [mmlab-only|linux-only]
 *                           a case; the actions below it are its own:
 *     send "TEXT"           bytes to the serial port (\r is Enter, \x03 ^C,
 *                           \x1a ^Z; escapes \r \n \t \e \\ \" \xHH)
 *     wait "TEXT" [SECONDS] until the guest has printed TEXT after what the
 *                           last wait matched; SECONDS only bound a hang
 *     end [SECONDS]         the machine must end, as power off ends it
 *                           (mmlab: exit 33; Linux: QEMU's exit 0)
 *
 * A step passes when each of its actions did; a wait that runs out, or
 * the machine ending during a step, fails it, and the steps after it are
 * skipped ("an earlier step failed") and the machine stopped. A step for
 * the other kernel only is reported skipped. Timing never passes a step:
 * the seconds only turn a hang into a failure.
 */
#ifndef MMLAB_SESSION_H
#define MMLAB_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "topology.h"

enum session_action_kind { SESSION_SEND, SESSION_WAIT, SESSION_END };

struct session_action {
	enum session_action_kind kind;
	char *text; /* send, wait: the bytes (escapes done), NUL-free */
	size_t len;
	int timeout_s;
};

/* Which kernels run a step: both, or one (the kernels differ on purpose). */
enum session_only { SESSION_BOTH, SESSION_MMLAB_ONLY, SESSION_LINUX_ONLY };

struct session_step {
	char *name;
	enum session_only only;
	struct session_action *actions;
	size_t nactions;
};

struct session_skip {
	char *text, *reason;
	size_t len;
};

struct session {
	char *path;
	char *suite;
	int timeout_s;
	struct session_step *steps;
	size_t nsteps;
	struct session_skip *skips;
	size_t nskips;
};

/* Parses a script held in text (path names it in messages). Returns 0, or
 * -1 with "path:line: problem" in err (nothing to free then). */
int session_parse(const char *path, const char *text, struct session *out, char *err, size_t errlen);
/* Reads and parses the file. */
int session_load(const char *path, struct session *out, char *err, size_t errlen);
void session_free(struct session *s);
/* Whether a --filter GLOB[,GLOB...] (NULL: all) names one of the
 * session's steps as SUITE.STEP: if not, its machine is not booted. */
bool session_matches(const struct session *s, const char *filter);

/* One run of a session on a machine. emit receives each KTAP line
 * (with its newline) as the session decides it; send the bytes for the
 * serial port; stop asks that the machine be stopped (the session is over
 * without it ending by itself). */
struct session_run;
struct session_io {
	void (*emit)(void *ctx, const char *line);
	void (*send)(void *ctx, const char *bytes, size_t len);
	void (*stop)(void *ctx);
	void *ctx;
};
struct session_run *session_run_new(const struct session *s, enum kernel k, const struct session_io *io);
void session_run_free(struct session_run *r);
/* The KTAP header and the first actions, at the machine's start (now in
 * seconds, any monotonic clock). */
void session_run_start(struct session_run *r, double now);
/* Bytes the guest printed on the serial port. */
void session_run_output(struct session_run *r, const char *data, size_t n, double now);
/* The clock moved: a wait or an end may have run out. Returns the
 * seconds until the next deadline (< 0: none). */
double session_run_tick(struct session_run *r, double now);
/* The machine ended with exit_status (ktap.h's encoding; timed_out: the
 * runner's own limit ended it): the last lines, and the status to judge
 * the boot by: 33 when the session ended as its script says (35 if a step
 * failed), else exit_status as it was (a crash stays a crash). */
int session_run_finish(struct session_run *r, int exit_status, bool timed_out);

#endif /* MMLAB_SESSION_H */
