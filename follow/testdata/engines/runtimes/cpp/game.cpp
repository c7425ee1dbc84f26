// A small game for mcplogd's runtime tests: game MODE [PREFIX].
//
// It ticks a few frames, logging as SDL_Log does ("INFO: msg") or, with
// PREFIX "stamp", behind a timestamp and a padded level; warns of a missing
// texture in every run; then, in frame 3, throws a std::runtime_error that
// nothing catches deep in game code (main -> tick -> World::spawn ->
// World::spawnEnemy): std::terminate prints what() and aborts. MODE "throw"
// leaves SIGABRT alone; "throw-bt" installs a handler that prints a
// backtrace with backtrace_symbols_fd, then raises the signal again; "pure"
// calls a pure virtual method instead (libstdc++ says so, then terminates);
// "assert" fails the game's own assertion macro instead, which prints where
// and aborts; "checked" reads a wave past the end of its std::vector,
// which a build with -D_GLIBCXX_ASSERTIONS (Fedora's and Arch's flags)
// reports as libstdc++'s failed assertion, then aborts; "ok" throws
// nothing. Build it with -g -rdynamic.
#include <execinfo.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

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

static void onSignal(int sig) {
	void *frames[64];
	int n = backtrace(frames, 64);
	log("ERROR", "Caught signal " + std::to_string(sig) + " (" + strsignal(sig) + "), backtrace:");
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

// GAME_ASSERT is a game's own assertion macro, as engines write them: it
// says what failed and where, then aborts.
#define GAME_ASSERT(cond)                                                                   \
	do {                                                                                    \
		if (!(cond)) {                                                              \
			fprintf(stderr, "ASSERT FAILED: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
			std::abort();                                                       \
		}                                                                           \
	} while (0)

// A spawner whose destructor calls what only its subclasses define: in
// the base's destructor, the call is of the pure virtual method.
struct Spawner {
	virtual ~Spawner() { release(); }
	void release() { onRelease(); } // CRASH:pure
	virtual void onRelease() = 0;
};

struct OrcSpawner : Spawner {
	void onRelease() override {}
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
		if (mode == "pure") {
			Spawner *s = new OrcSpawner;
			delete s;
			return;
		}
		if (mode == "assert") {
			GAME_ASSERT(at != spawnPoints.end()); // CRASH:assert
		}
		if (mode == "checked") {
			enemies += waves[waves.size()]; // CRASH:checked
			return;
		}
		if (at == spawnPoints.end() && mode != "ok") {
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
	std::map<std::string, int> spawnPoints{{"troll", 4}};
	std::vector<int> waves{3, 5, 8};
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
	if (argc > 1) {
		mode = argv[1];
	}
	stamped = argc > 2 && strcmp(argv[2], "stamp") == 0;
	if (mode == "throw-bt") {
		signal(SIGABRT, onSignal);
	}
	log("INFO", "starting in mode " + mode);
	World world;
	for (int frame = 1; frame <= 5; frame++) {
		tick(world, frame);
	}
	log("INFO", "shutting down");
	return 0;
}
