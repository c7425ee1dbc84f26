// A small physics game logging with glog: InstallFailureSignalHandler
// prints a SIGSEGV's report; CHECK fails with LOG(FATAL)'s report.
#include <glog/logging.h>
#include <cstring>
#include <vector>

namespace phys {
struct Body { float mass; };
struct World {
  std::vector<Body *> bodies;
  void addBody(Body *b) {
    CHECK_LT(bodies.size(), 4u) << "body pool full";
    bodies.push_back(b);
  }
  float totalMass(int n) {
    float m = 0;
    for (int i = 0; i < n; i++) m += bodies[i]->mass;
    return m;
  }
};
}  // namespace phys

int main(int argc, char **argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  google::InstallFailureSignalHandler();
  LOG(INFO) << "physics sandbox starting";
  LOG(WARNING) << "no GPU, software rendering";
  phys::World w;
  const char *mode = argc > 1 ? argv[1] : "segv";
  if (strcmp(mode, "check") == 0) {
    for (int i = 0; i < 6; i++) w.addBody(new phys::Body{1});
  }
  w.addBody(new phys::Body{1});
  LOG(ERROR) << "mass " << w.totalMass(3);
  return 0;
}
