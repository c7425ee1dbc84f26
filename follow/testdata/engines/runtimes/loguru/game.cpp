// A small game for mcplogd's runtime tests, logging through emilk/loguru
// (loguru.cpp, loguru.hpp: github.com/emilk/loguru at 4adaa18, public
// domain): game MODE [PREFIX]. Build it with -g -rdynamic -pthread -ldl.
//
// It ticks a few frames at INFO, logs a texture it could not load at
// ERROR in every run, then, in frame 3, deep in game code (main -> tick ->
// World::spawn -> World::spawnEnemy): MODE "check" fails a CHECK_F (loguru
// prints the stack, outermost first, then the failed check at FATL, and
// aborts); "segv" writes through a null pointer (loguru's handler prints
// "Loguru caught a signal: SIGSEGV", the stack, and the signal again at
// FATL); "ok" does neither. With PREFIX "stamp" the lines carry no uptime
// and no thread.
#include "loguru.hpp"

#include <map>
#include <string>

struct Enemy {
	int hp;
};

static std::string mode = "ok";

struct World {
	std::map<std::string, Enemy *> templates;

	Enemy *spawnEnemy(const std::string &kind) {
		Enemy *e = templates[kind];
		if (mode == "check") {
			CHECK_F(e != nullptr, "no template for %s", kind.c_str()); // CRASH:check
		}
		if (mode == "segv") {
			e->hp = 10; // CRASH:segv
		}
		return e;
	}

	void spawn(int frame) {
		if (frame == 3) {
			spawnEnemy("orc");
		}
	}
};

void tick(World &w, int frame) {
	LOG_F(INFO, "frame %d", frame);
	w.spawn(frame);
}

int main(int argc, char **argv) {
	if (argc > 1) {
		mode = argv[1];
	}
	if (argc > 2 && std::string(argv[2]) == "stamp") {
		loguru::g_preamble_uptime = false;
		loguru::g_preamble_thread = false;
	}
	loguru::init(argc, argv);
	LOG_F(INFO, "starting mode=%s", mode.c_str());
	LOG_F(ERROR, "could not load texture grass.png");
	World w;
	for (int frame = 1; frame <= 4; frame++) {
		tick(w, frame);
	}
	LOG_F(INFO, "quitting");
	return 0;
}
