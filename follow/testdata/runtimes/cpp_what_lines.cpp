#include <cstdio>
#include <stdexcept>
#include <string>
struct ShaderError : std::runtime_error { using std::runtime_error::runtime_error; };
void linkProgram(const char *vs, const char *fs) {
    std::string log = "0:3(14): error: `fragUV' undeclared\n0:7(1): error: syntax error, unexpected '}'";
    throw ShaderError(std::string("failed to link program (") + vs + ", " + fs + "):\n" + log);
}
void initRenderer() noexcept {      // noexcept: the throw calls std::terminate
    linkProgram("sprite.vert", "sprite.frag");
}
int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::puts("renderer: GL 3.3 core");
    initRenderer();
}
