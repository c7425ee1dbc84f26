// A small game for mcplogd's runtime tests: game MODE [PREFIX], with
// bombela/backward-cpp's signal handler (backward.hpp, vendored beside it,
// MIT), as C++ games and servers install it to print a stack trace when
// they crash.
//
// It ticks a few frames, logging as SDL_Log does ("INFO: msg") or, with
// PREFIX "stamp", behind a timestamp and a padded level; warns of a missing
// texture in every run; then, in frame 3, deep in game code (main -> tick
// -> World::spawn -> World::spawnEnemy): MODE "segv" writes through a null
// pointer, "fpe" divides by zero, "throw" throws a std::runtime_error that
// nothing catches (std::terminate prints what() and aborts), "ok" none of
// them. backward-cpp prints the stack, outermost first, then the signal as
// psiginfo(3) says it. Build it with -g; with -DBACKWARD_HAS_DW=1 and
// -ldw (libdw-dev) the frames name their source files and lines.
#include "backward.hpp"

#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <stdexcept>
#include <string>

static std::string mode = "ok";
static bool stamped;

static void log(const char *level, const std::string &msg) {
	if (stamped) {
		timeval tv;
		char when[32];
		gettimeofday(&tv, nullptr);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&tv.tv_sec));
		fprintf(stderr, "%s,%03d [%-7s] %s\n", when, int(tv.tv_usec / 1000), level, msg.c_str());
	} else {
		fprintf(stderr, "%s: %s\n", strcmp(level, "WARNING") == 0 ? "WARN" : level, msg.c_str());
	}
}

struct Enemy {
	int hp = 30;
};

class World {
public:
	void loadTexture(const std::string &name) {
		if (access(name.c_str(), R_OK) != 0) {
			log("WARNING", "missing texture " + name + ", using the placeholder");
		}
	}

	void spawnEnemy(const std::string &kind) {
		auto at = spawnPoints.find(kind);
		if (mode == "segv") {
			Enemy *boss = findEnemy("boss");
			boss->hp += 10; // CRASH:segv
		} else if (mode == "fpe") {
			volatile int zero = 0;
			enemies = enemies / zero; // CRASH:fpe
		} else if (mode == "throw" && at == spawnPoints.end()) {
			throw std::runtime_error("no spawn point for " + kind); // CRASH:throw
		}
		enemies++;
	}

	void spawn(int frame) {
		if (frame == 3) {
			spawnEnemy("orc");
		}
	}

private:
	Enemy *findEnemy(const std::string &) { return nullptr; }

	std::map<std::string, int> spawnPoints{{"troll", 4}};
	int enemies = 0;
};

static void tick(World &world, int frame) {
	log("INFO", "frame " + std::to_string(frame));
	if (frame == 1) {
		world.loadTexture("enemy.png");
	}
	world.spawn(frame);
}

int main(int argc, char **argv) {
	backward::SignalHandling crashes;
	if (argc > 1) {
		mode = argv[1];
	}
	stamped = argc > 2 && strcmp(argv[2], "stamp") == 0;
	log("INFO", "starting in mode " + mode);
	World world;
	for (int frame = 1; frame <= 5; frame++) {
		tick(world, frame);
	}
	log("INFO", "shutting down");
	return 0;
}
