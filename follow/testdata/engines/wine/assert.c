/* A small Windows game for the Wine test (follow/engines_wine_test.go):
   its assert fails in a function of its own; Microsoft's C runtime (as
   MinGW links it) prints "Assertion failed: n < 100, file assert.c, line
   N" and exits with status 3. */
#include <assert.h>
#include <stdio.h>

void spawn_enemies(int n) {
    assert(n < 100); /* CRASH:assert */
    printf("spawned %d\n", n);
}

int main(void) {
    printf("game starting\n");
    fflush(stdout);
    spawn_enemies(5);
    spawn_enemies(500);
    return 0;
}
