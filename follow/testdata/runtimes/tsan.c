#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static int score;
void *audio_thread(void *arg) {
    for (int i = 0; i < 1000; i++) score += 1;   /* bug: touches game state */
    return NULL;
}
int main(void) {
    pthread_t t;
    fprintf(stderr, "music game: start\n");
    pthread_create(&t, NULL, audio_thread, NULL);
    for (int i = 0; i < 1000; i++) score += 2;
    pthread_join(t, NULL);
    fprintf(stderr, "final score %d\n", score);
    return 0;
}
