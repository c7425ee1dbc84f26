/* A small game for mcplogd's runtime tests: game MODE [PREFIX], run under
 * xvfb-run.
 *
 * It opens its X display, logs as SDL_Log does ("INFO: msg") or, with
 * PREFIX "stamp", behind a timestamp and a padded level; warns of a
 * missing texture in every run; then, in frame 3, MODE "badwindow" maps a
 * window that does not exist: Xlib's default error handler prints "X
 * Error of failed request:  BadWindow (invalid Window parameter)" and the
 * request's details, and exits with status 1. Build it with -lX11.
 */
#include <X11/Xlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int stamped;

static void logf_(const char *level, const char *fmt, ...) {
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (stamped) {
		struct timeval tv;
		char when[32];
		gettimeofday(&tv, NULL);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&tv.tv_sec));
		fprintf(stderr, "%s,%03d [%-7s] %s\n", when, (int)(tv.tv_usec / 1000), level, line);
	} else {
		fprintf(stderr, "%s: %s\n", strcmp(level, "WARNING") == 0 ? "WARN" : level, line);
	}
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "ok";
	stamped = argc > 2 && strcmp(argv[2], "stamp") == 0;
	Display *d = XOpenDisplay(NULL);
	if (d == NULL) {
		logf_("ERROR", "cannot open the display");
		return 2;
	}
	logf_("INFO", "starting in mode %s", mode);
	for (int frame = 1; frame <= 5; frame++) {
		logf_("INFO", "frame %d", frame);
		if (frame == 1 && access("enemy.png", R_OK) != 0) {
			logf_("WARNING", "missing texture enemy.png, using the placeholder");
		}
		if (frame == 3 && strcmp(mode, "badwindow") == 0) {
			XMapWindow(d, (Window)0x12345); /* CRASH:badwindow */
			XSync(d, False);
		}
	}
	logf_("INFO", "shutting down");
	XCloseDisplay(d);
	return 0;
}
