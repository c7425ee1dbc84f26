#include "loguru.hpp"
#include <map>
#include <string>

struct Enemy { int hp; };

static Enemy *spawn_enemy(std::map<std::string, Enemy*> &enemies, const std::string &kind) {
	LOG_SCOPE_F(INFO, "spawning %s", kind.c_str());
	Enemy *e = enemies[kind];
	if (!e) LOG_F(WARNING, "no template for %s", kind.c_str());
	e->hp = 10; // crashes
	return e;
}

int main(int argc, char **argv) {
	loguru::init(argc, argv);
	LOG_F(INFO, "starting");
	LOG_F(1, "debug detail %d", 42);
	LOG_F(ERROR, "could not load texture %s", "grass.png");
	std::map<std::string, Enemy*> enemies;
	for (int frame = 0; frame < 3; frame++) {
		LOG_F(INFO, "frame %d", frame);
	}
	if (argc > 1 && std::string(argv[1]) == "check") {
		CHECK_F(enemies.size() > 0, "no enemies loaded");
	}
	spawn_enemy(enemies, "orc");
	return 0;
}
