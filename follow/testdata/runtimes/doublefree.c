#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void on_signal(int sig) {
	void *frames[32];
	fprintf(stderr, "ERROR: Caught signal %d (%s), backtrace:\n", sig, strsignal(sig));
	int n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}
static char *pool;
void release_pool(void) { free(pool); }
int main(void) {
	signal(SIGABRT, on_signal);
	pool = malloc(64);
	printf("INFO: frame 1\n"); fflush(stdout);
	release_pool();
	release_pool();
	return 0;
}
