#include <stdio.h>
typedef struct { int x, y; } P;
static int W = 64, H = 64;
static char grid[64][64];
int flood(int x, int y, int depth) {
    char pad[256]; pad[0] = (char)depth;
    if (x < 0 || y < 0 || x >= W || y >= H) return 0;
    /* bug: never marks cells as visited */
    return 1 + flood(x + 1, y, depth + 1) + flood(x - 1, y, depth + 1) + pad[0] * 0;
}
int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("paint game: loading canvas 64x64\n");
    printf("bucket fill at (3,3)\n");
    printf("filled %d cells\n", flood(3, 3, 0));
    return 0;
}
