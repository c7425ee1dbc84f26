#include <stdio.h>
#include <string.h>
struct save { char name[16]; int gold; };
void apply_save(struct save *s, const char *name) { strcpy(s->name, name); s->gold += 100; }
struct save *find_slot(int n) { static struct save slots[2]; return n < 2 ? &slots[n] : NULL; }
int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("farm sim: loading slot 0\n");
    apply_save(find_slot(0), "Hazel");
    printf("farm sim: loading slot 5\n");
    apply_save(find_slot(5), "Rowan");
    return 0;
}
