#include <glib.h>
typedef struct { const char *name; int frames; } Anim;
static Anim *find_anim(GHashTable *t, const char *name) {
    Anim *a = g_hash_table_lookup(t, name);
    if (!a) g_critical("find_anim: no animation named '%s'", name);
    return a;
}
int main(void) {
    GHashTable *anims = g_hash_table_new(g_str_hash, g_str_equal);
    static Anim walk = {"walk", 8};
    g_hash_table_insert(anims, "walk", &walk);
    g_message("platformer: %u animations loaded", g_hash_table_size(anims));
    find_anim(anims, "jump");
    g_warning("falling back to idle pose");
    Anim *a = find_anim(anims, "walk");
    if (a->frames > 4) g_error("sprite sheet hero.png: animation '%s' needs %d frames, sheet has 4", a->name, a->frames);
    return 0;
}
