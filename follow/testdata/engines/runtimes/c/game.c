/* A small game for mcplogd's runtime tests: game MODE [PREFIX].
 *
 * It ticks a few frames, logging as SDL_Log does ("INFO: msg") or, with
 * PREFIX "stamp", behind a timestamp and a padded level; warns of a
 * missing texture in every run; then, in frame 3, does what MODE says
 * deep in game code (main -> tick -> world_spawn -> spawn_enemy): "assert"
 * (a failing assert), "segv" and "fpe" (a signal its handler reports with
 * backtrace_symbols_fd, then raises again), "segv-exit" (the handler most
 * games copy: "Error: signal 11:", backtrace_symbols_fd, exit(1)), "segv-cdda" and
 * "segv-yq2" (the SIGSEGV reported as Cataclysm: DDA's and Yamagi Quake II's
 * crash handlers print it, from their sources), "uaf" (a heap use after free,
 * for -fsanitize=address), "overflow" (a signed overflow, for
 * -fsanitize=undefined), "leak" (memory never freed, for
 * -fsanitize=address's LeakSanitizer at exit), "segv-bare" (the SIGSEGV
 * with no handler: the process dies of it, and a shell that ran it says
 * so), "race" (a thread adds to the score while the game does, for
 * -fsanitize=thread: ThreadSanitizer reports it, the game goes on, and
 * exits with ThreadSanitizer's status), "ok". Build it with -g
 * -rdynamic so that the backtrace names functions.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char *mode = "ok";
static int stamped;

struct enemy {
	char kind[16];
	int hp;
};

struct world {
	struct enemy *enemies[8];
	int count;
	int score;
};

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

static void on_signal(int sig) {
	void *frames[64];
	int n = backtrace(frames, 64);
	char head[128];
	snprintf(head, sizeof head, "Caught signal %d (%s), backtrace:", sig, strsignal(sig));
	logf_("ERROR", "%s", head);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_signal_exit(int sig) {
	void *frames[64];
	int n = backtrace(frames, 64);
	fprintf(stderr, "Error: signal %d:\n", sig);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	exit(1);
}

/* Cataclysm: DDA's report (its src/crash.cpp, log_crash), then the signal again. */
static void on_signal_cdda(int sig) {
	void *frames[20];
	int n = backtrace(frames, 20);
	char **names = backtrace_symbols(frames, n);
	fprintf(stderr, "The program has crashed.\nSee the log file for a stack trace.\nCRASH LOG FILE: ./config/crash.log\n"
		"VERSION: 0.G-1234-gabcdef0\nTYPE: Signal\nMESSAGE: SIGSEGV: Segmentation fault\nSTACK TRACE:\n");
	for (int i = 0; i < n; i++) {
		fprintf(stderr, "\n    %s", names[i]);
	}
	fprintf(stderr, "\n");
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Yamagi Quake II's report (its src/backends/unix/signalhandler.c), on stdout. */
static void on_signal_yq2(int sig) {
	void *frames[15];
	int n = backtrace(frames, 15);
	char **names = backtrace_symbols(frames, n);
	printf("\n=======================================================\n");
	printf("\nYamagi Quake II crashed! This should not happen...\n");
	printf("\nMake sure that you're using the last version. It can\n");
	printf("be found at http://www.yamagi.org/quake2. If you do,\n");
	printf("send a bug report to quake2@yamagi.org and include:\n\n");
	printf(" - This output\n");
	printf(" - The conditions that triggered the crash\n");
	printf("\n=======================================================\n\n");
	printf("Product:      Yamagi Quake II\nVersion:      8.41\nPlatform:     Linux\nArchitecture: x86_64\n");
	printf("Compiler:     12.2.0\nSignal:       %i\n\nBacktrace:\n", sig);
	for (int i = 0; i < n; i++) {
		printf("  %s\n", names[i]);
	}
	printf("\n");
	fflush(stdout);
	signal(sig, SIG_DFL);
	raise(sig);
}

static struct enemy *find_enemy(struct world *w, const char *kind) {
	for (int i = 0; i < w->count; i++) {
		if (strcmp(w->enemies[i]->kind, kind) == 0) {
			return w->enemies[i];
		}
	}
	return NULL;
}

static void load_texture(const char *name) {
	if (access(name, R_OK) != 0) {
		logf_("WARNING", "missing texture %s, using the placeholder", name);
	}
}

static void *play_sound(void *arg) {
	struct world *w = arg;
	w->score += 100; /* CRASH:race */
	return NULL;
}

void spawn_enemy(struct world *w, const char *kind) {
	struct enemy *e = calloc(1, sizeof *e);
	snprintf(e->kind, sizeof e->kind, "%s", kind);
	e->hp = strcmp(mode, "assert") == 0 ? 0 : 30;
	volatile int bonus = 2147483600, zero = 0;
	if (strcmp(mode, "assert") == 0) {
		assert(e->hp > 0); /* CRASH:assert */
	} else if (strncmp(mode, "segv", 4) == 0) {
		struct enemy *boss = find_enemy(w, "boss");
		boss->hp += 10; /* CRASH:segv */
	} else if (strcmp(mode, "fpe") == 0) {
		e->hp = w->score / zero; /* CRASH:fpe */
	} else if (strcmp(mode, "uaf") == 0) {
		free(e);
		logf_("INFO", "spawned %s with %d hp", kind, e->hp); /* CRASH:uaf */
		return;
	} else if (strcmp(mode, "overflow") == 0) {
		w->score = bonus + e->hp * 10; /* CRASH:overflow */
	} else if (strcmp(mode, "race") == 0) {
		pthread_t sound;
		pthread_create(&sound, NULL, play_sound, w);
		w->score += e->hp;
		pthread_join(sound, NULL);
	} else if (strcmp(mode, "leak") == 0) {
		char *name = strdup(kind); /* CRASH:leak */
		logf_("INFO", "spawned %s", name);
	}
	w->enemies[w->count++] = e;
}

void world_spawn(struct world *w, int frame) {
	if (frame == 3) {
		spawn_enemy(w, "orc");
	}
}

void tick(struct world *w, int frame) {
	logf_("INFO", "frame %d", frame);
	if (frame == 1) {
		load_texture("enemy.png");
	}
	world_spawn(w, frame);
}

int main(int argc, char **argv) {
	if (argc > 1) {
		mode = argv[1];
	}
	stamped = argc > 2 && strcmp(argv[2], "stamp") == 0;
	if (strcmp(mode, "segv") == 0 || strcmp(mode, "fpe") == 0) {
		signal(SIGSEGV, on_signal);
		signal(SIGFPE, on_signal);
	} else if (strcmp(mode, "segv-exit") == 0) {
		signal(SIGSEGV, on_signal_exit);
	} else if (strcmp(mode, "segv-cdda") == 0) {
		signal(SIGSEGV, on_signal_cdda);
	} else if (strcmp(mode, "segv-yq2") == 0) {
		signal(SIGSEGV, on_signal_yq2);
	}
	static struct world w;
	logf_("INFO", "starting in mode %s", mode);
	for (int frame = 1; frame <= 5; frame++) {
		tick(&w, frame);
	}
	logf_("INFO", "shutting down with score %d", w.score);
	return 0;
}
