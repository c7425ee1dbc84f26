/* A small Windows game for the Wine test (follow/engines_wine_test.go):
   it writes through a NULL pointer in a function of its own, which
   Wine's debugger reports with its registers, stack and backtrace. */
#include <stdio.h>

struct enemy { int hp; int x, y; };

static struct enemy *find_enemy(struct enemy *list, int n, int id) {
    return id < n ? &list[id] : NULL;
}

void damage_enemy(struct enemy *list, int n, int id, int dmg) {
    struct enemy *e = find_enemy(list, n, id);
    e->x = -1; /* e is NULL for id >= n */
    e->hp -= dmg;
    printf("enemy %d hp now %d\n", id, e->hp);
    fflush(stdout);
}

int main(void) {
    struct enemy enemies[2] = {{10, 0, 0}, {12, 5, 5}};
    printf("game starting\n");
    fflush(stdout);
    damage_enemy(enemies, 2, 1, 3);
    damage_enemy(enemies, 2, 7, 3);
    printf("unreachable\n");
    return 0;
}
